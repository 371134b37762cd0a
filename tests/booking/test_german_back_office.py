"""The back office in the staff member's language: states, booking types, price lines, history entries,
messages, forms and the dispatch CSV in German when the admin is German (and English when English), money
and dates by the one rule of sitekit/l10n.py; history and price lines stored before they were
translatable still show; and the CSV's cells cannot run as spreadsheet formulas."""

import csv
import io
import re
from datetime import datetime, time, timedelta
from decimal import Decimal

import pytest
from django.core import mail
from django.utils import timezone, translation

from booking import history, transitions
from booking.models import Booking, BookingEvent
from fleet.models import Vehicle
from operator_profile.models import PROFILE_ID
from pricing.models import VehicleClass

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]
GERMAN, ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "de"}, {"HTTP_ACCEPT_LANGUAGE": "en"}
NBSP = "\u00a0"
EXPORT = "/admin/booking/booking/dispatch/rides.csv"


def text_of(html: str, element_id: str | None = None) -> str:
    """The words a person reads (of one element, when given), tags and scripts left out."""
    if element_id:
        html = html[html.index(f'id="{element_id}"') :]
    html = re.sub(r"(?s)<script.*?</script>|<style.*?</style>|<svg.*?</svg>", " ", html)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace(NBSP, " ")


def saturday(hour: int) -> datetime:
    """A Saturday a week or two ahead, at `hour` Vienna time."""
    day = timezone.localdate() + timedelta(days=7)
    day += timedelta(days=(5 - day.weekday()) % 7)
    return datetime.combine(day, time(hour), tzinfo=timezone.get_default_timezone())


@pytest.fixture
def paid(make_booking):
    def make(**fields) -> Booking:
        values = {
            "status": "paid",
            "paid_at": timezone.now(),
            "distance_km": Decimal("21.8"),
            "duration_s": 1455,
            "in_zone_a": True,
            "name": "Anna Berger",
            "phone": "+43 660 1234567",
            "email": "anna@example.com",
            "pickup_at": saturday(10),
        }
        return make_booking(**{**values, **fields})

    return make


def test_the_booking_page_in_german_has_no_english_states_types_lines_or_history(admin_client, paid):
    booking = paid(status="pending_payment", paid_at=None)
    transitions.move(booking.pk, "paid", actor="eva (staff)")
    history.record(
        booking,
        history.Kind.REFUND,
        history.said("Refund of {amount} paid back.", amount=history.eur(4200)),
        actor="eva (staff)",
    )
    history.record(booking, history.Kind.NOTE, "Rang an", actor="API token “Reisebüro Wien”")
    history.record(booking, history.Kind.NOTE, "Kommt später", actor="customer (manage page)")
    page = admin_client.get(f"/admin/booking/booking/{booking.pk}/change/", **GERMAN).content.decode()
    words = text_of(page, "booking-page")
    for german in (
        "bezahlt",
        "nach Strecke",
        "Grundpreis",
        "Strecke 21,8 km (21,8 km × 2,00 €)",
        "Aufgerundet auf 1,00 €",
        "74,00 €",
        "Zahlung ausstehend → bezahlt",
        "Erstattung von 42,00 € ausbezahlt.",
        "Sa., ",
        "Englisch",
        "eva (Personal)",
        "API-Token „Reisebüro Wien“",
        "Kunde (Buchungsseite)",
    ):
        assert german in words, german
    for english in (
        "pending payment",
        " paid ",
        "distance",
        "Base fare",
        "Distance",
        "Rounded up",
        "EUR 74",
        "74.00",
        "Refund of",
        "Sat ",
        "English",
        "(staff)",
        "API token",
        "customer",
    ):
        assert english not in words, english


def test_the_same_page_in_english_follows_the_english_rule(admin_client, paid):
    booking = paid()
    words = text_of(
        admin_client.get(f"/admin/booking/booking/{booking.pk}/change/", **ENGLISH).content.decode()
    )
    for english in (
        "paid",
        "by distance",
        "Base fare",
        "Distance 21.8 km (21.8 km × €2.00)",
        "€74.00",
        "Sat ",
    ):
        assert english in words, english
    assert "74,00" not in words and "Grundpreis" not in words


def test_an_old_booking_with_stored_english_lines_and_history_still_shows(admin_client, paid):
    """Stored before lines had params and history had messages: the lines are worded from their codes,
    the history shows its stored text."""
    booking = paid()
    record = booking.quote_record
    for line in record["lines"]:
        line.pop("params")
    Booking.objects.filter(pk=booking.pk).update(quote_record=record)
    BookingEvent.objects.create(
        booking=booking, kind="payment", text="Payment link e-mailed to a@b.c.", actor="x"
    )
    BookingEvent.objects.create(
        booking=booking, kind="refund", text="old", actor="x", message="No {such}", params={}
    )
    words = text_of(
        admin_client.get(f"/admin/booking/booking/{booking.pk}/change/", **GERMAN).content.decode()
    )
    assert "Grundpreis" in words and "Strecke 21,8 km" in words and "Base fare" not in words
    assert "Payment link e-mailed to a@b.c." in words  # as stored
    assert " old " in words  # a message that no longer fits its values falls back to the stored text


def test_the_booking_list_in_german(admin_client, paid):
    paid()
    paid(status="pending_payment", paid_at=None)
    words = text_of(admin_client.get("/admin/booking/booking/", **GERMAN).content.decode())
    for german in (
        "Buchung zur Änderung auswählen",
        "Buchungsnummer",
        "Klasse",
        "Betrag",
        "bezahlt",
        "Zahlung ausstehend",
        "Executive Class",
        "74,00 €",
        "Sa., ",
    ):
        assert german in words, german
    for english in ("booking zur", "pending payment", "EUR 74", "Sat ", " executive "):
        assert english not in words, english


def test_messages_in_german_name_the_method_and_state_in_german(admin_client, paid):
    booking = paid(status="pending_payment", paid_at=None)
    response = admin_client.post(
        f"/admin/booking/booking/{booking.pk}/do/mark-paid/", {"method": "invoice"}, follow=True, **GERMAN
    )
    said = [str(message) for message in response.context["messages"]]
    assert said == [
        f"{booking.reference}: als bezahlt markiert per Rechnung (admin); die Bestätigung geht an den Kunden."
    ]


def test_the_phone_form_and_its_quote_in_german(admin_client):
    form = text_of(admin_client.get("/admin/booking/booking/add/", **GERMAN).content.decode(), "content-main")
    assert "Wiener Stadtrundfahrt" in form and "Vienna City Tour" not in form
    assert "nach Strecke" in form and "stundenweise" in form
    pickup = saturday(10)
    response = admin_client.post(
        "/admin/booking/booking/add/",
        {
            "origin": "Hotel Sacher",
            "destination": "Flughafen Wien",
            "pickup_0": pickup.strftime("%d.%m.%Y"),
            "pickup_1": "10:00",
            "vehicle_class": "executive",
            "booking_type": "hourly",
            "duration_hours": "3",
            "name": "Anna",
            "phone": "+43 1 5345678",
            "locale": "de",
            "payment": "link",
            "_quote": "1",
        },
        **GERMAN,
    )
    quote = text_of(response.content.decode(), "quote")
    assert "3 Std. × 65,00 €: 195,00 €" in quote and "195,00 €" in quote
    assert " h × " not in quote and "EUR" not in quote
    assert not Booking.objects.exists()


def test_the_tariff_form_in_german(admin_client):
    words = text_of(admin_client.get("/admin/pricing/tariff/1/change/", **GERMAN).content.decode(), "content")
    for german in (
        "Tarif ändern",
        "Buchungen nach Strecke",
        "Grundpreis",
        "Mindestfahrpreis",
        "Stundenpreis",
        "Untergrenze für Grundpreis + Streckenpreis.",
        "USt.-Satz",
        "Streckenstufen",
        "Ab km",
        "2,00 €/km",
    ):
        assert german in words, german
    for english in ("Distance bookings", "Base fare", "Minimum fare", "Hourly rate", "Floor of", "EUR/km"):
        assert english not in words, english


def test_the_operator_profile_form_in_german(admin_client):
    url = f"/admin/company/operatorprofile/{PROFILE_ID}/change/"
    words = text_of(admin_client.get(url, **GERMAN).content.decode(), "content")
    for german in (
        "Unternehmensprofil ändern",
        "Markenfarbe",
        "Aussehen",
        "Logo entfernen",
        "Der Firmenname, den Reisende sehen.",
    ):
        assert german in words, german
    for english in ("operator profile", "Brand colour", "Look", "Remove the logo", "travellers see"):
        assert english not in words, english


def test_the_dispatch_board_in_german(admin_client, paid):
    paid(pickup_at=timezone.now() + timedelta(hours=3), status="pending_payment", paid_at=None)
    html = admin_client.get("/admin/booking/booking/dispatch/", {"range": "next7"}, **GERMAN).content.decode()
    assert len(re.findall(r"<th>\w\w\., \d\d\.\d\d\.\d{4}</th>", html)) == 7
    words = text_of(html, "content")
    assert "Zahlung ausstehend" in words and "Nicht zugeteilt" in words
    assert "pending payment" not in words and "Unassigned" not in words


# --- the CSV ------------------------------------------------------------------------------------------


def export(client, language: dict) -> list[dict]:
    text = client.get(EXPORT, {"range": "next7"}, **language).content.decode("utf-8").lstrip("\ufeff")
    header, *rows = list(csv.reader(io.StringIO(text), delimiter=";"))
    return [dict(zip(header, row, strict=True)) for row in rows]


@pytest.fixture
def soon(paid):
    """A paid ride tomorrow at 10:00, on the board of the next 7 days."""
    tomorrow = timezone.localdate() + timedelta(days=1)
    pickup = datetime.combine(tomorrow, time(10), tzinfo=timezone.get_default_timezone())
    return lambda **fields: paid(pickup_at=pickup, **fields)


def test_the_csv_in_german(admin_client, soon):
    ride = soon()
    (row,) = export(admin_client, GERMAN)
    assert list(row)[:4] == ["Buchungsnummer", "Status", "Abholung", "bis"]
    assert (row["Buchungsnummer"], row["Status"], row["Klasse"], row["Leistung"], row["Preis EUR"]) == (
        ride.reference,
        "bezahlt",
        "Executive Class",
        "Transfer",
        "74,00",
    )
    assert row["Abholung"] == timezone.localtime(ride.pickup_at).strftime("%d.%m.%Y 10:00")
    assert row["Zahlung"] == "Online-Kasse"


def test_the_csv_in_english(admin_client, soon):
    ride = soon(booking_type="hourly", duration_hours=Decimal("3.00"))
    (row,) = export(admin_client, ENGLISH)
    assert (row["reference"], row["state"], row["class"], row["service"], row["price EUR"]) == (
        ride.reference,
        "paid",
        "Executive Class",
        "By the hour: 3 hours",
        "74.00",
    )


def test_no_csv_cell_runs_as_a_formula(admin_client, soon):
    soon(
        name='=HYPERLINK("http://x")',
        phone="+43 660 1234567",
        notes="@SUM(1)",
        flight_number="-2+3",
        origin="\tHotel",
        destination="+cmd|' /C calc'!A0",
        email="\rx@example.com",
    )
    (row,) = export(admin_client, ENGLISH)
    assert row["customer"] == """'=HYPERLINK("http://x")"""
    assert row["notes"] == "'@SUM(1)" and row["flight"] == "'-2+3"
    assert (
        row["from"] == "'\tHotel"
        and row["to"] == "'+cmd|' /C calc'!A0"
        and row["e-mail"] == "'\rx@example.com"
    )
    assert row["phone"] == "+43 660 1234567"  # a plus, then digits and spaces: a phone number, left as is
    assert row["price EUR"] == "74.00"  # numbers stay numbers
    assert Booking.objects.get().name == '=HYPERLINK("http://x")'  # the record itself is unchanged


def test_a_phone_with_more_than_digits_after_the_plus_is_guarded(admin_client, soon):
    soon(phone="+1+2")
    assert export(admin_client, ENGLISH)[0]["phone"] == "'+1+2"


# --- refusals: what the services say no with, worded for the staff member --------------------------------


def refusal(response) -> str:
    (said,) = [str(message) for message in response.context["messages"]]
    return said


def test_a_refused_move_is_worded_in_german_with_german_states(admin_client, paid):
    done, unpaid = paid(status="completed"), paid(status="pending_payment", paid_at=None)
    cancel = admin_client.post(f"/admin/booking/booking/{done.pk}/do/cancel/", follow=True, **GERMAN)
    assert refusal(cancel) == (
        f"{done.reference}: Eine Buchung im Zustand „abgeschlossen“ kann nicht storniert werden."
    )
    complete = admin_client.post(f"/admin/booking/booking/{unpaid.pk}/do/complete/", follow=True, **GERMAN)
    assert refusal(complete) == (
        f"{unpaid.reference}: Eine Buchung im Zustand „Zahlung ausstehend“ kann nicht in den Zustand "
        "„abgeschlossen“ wechseln."
    )
    english = admin_client.post(f"/admin/booking/booking/{done.pk}/do/cancel/", follow=True, **ENGLISH)
    assert refusal(english) == f"{done.reference}: A completed booking cannot be cancelled."
    assert [booking.status for booking in Booking.objects.order_by("pk")] == ["completed", "pending_payment"]
    assert not BookingEvent.objects.exists()


def test_a_ride_change_refused_names_the_class_in_german(admin_client, paid):
    executive = VehicleClass.objects.get(code="executive")
    sedan = Vehicle.objects.create(plate="W-1000A", vehicle_class=executive, seats=3, luggage=3)
    booking = paid(vehicle=sedan, vehicle_class="executive")
    before = booking.amount_cents
    response = admin_client.post(
        f"/admin/booking/booking/{booking.pk}/do/change/",
        {
            "pickup_0": booking.pickup_at.strftime("%d.%m.%Y"),
            "pickup_1": "10:00",
            "vehicle_class": "first",
            "through_provider": "1",
        },
        follow=True,
        **GERMAN,
    )
    with translation.override("de"):
        vehicle = str(sedan)  # its plate and class, in German
    assert refusal(response) == (
        f"{booking.reference}: {booking.reference} ist {vehicle} zugeteilt: Solange ein Fahrzeug zugeteilt ist, "
        "kann sich die Klasse nicht ändern."
    )
    booking.refresh_from_db()
    assert (booking.vehicle_class, booking.amount_cents) == ("executive", before)


@pytest.mark.parametrize(
    ("language", "said", "mailed"),
    [
        ("de", "Klasse Executive Class → First Class; Preis 74,00 € → 116,00 €", "Fahrzeug:   First Class\n"),
        ("en", "class Executive Class → First Class; price €74.00 → €116.00", "Vehicle:    First Class\n"),
    ],
)
def test_a_class_change_names_the_classes_and_the_money_as_the_reader_reads_them(
    admin_client, paid, django_capture_on_commit_callbacks, language, said, mailed
):
    booking = paid(vehicle_class="executive", locale=language)
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            f"/admin/booking/booking/{booking.pk}/do/change/",
            {
                "pickup_0": booking.pickup_at.strftime("%d.%m.%Y"),
                "pickup_1": "10:00",
                "vehicle_class": "first",
                "through_provider": "1",
            },
            follow=True,
            HTTP_ACCEPT_LANGUAGE=language,
        )
    (message,) = [str(m).replace(NBSP, " ") for m in response.context["messages"]]
    assert said in message and "executive" not in message and " first" not in message
    page = text_of(
        admin_client.get(
            f"/admin/booking/booking/{booking.pk}/change/", HTTP_ACCEPT_LANGUAGE=language
        ).content.decode()
    )
    assert said in page  # the history entry, worded for the reader
    (changed,) = [m for m in mail.outbox if "geändert" in m.subject or "changed" in m.subject]
    assert mailed in changed.body and "   first" not in changed.body and "executive" not in changed.body
    # Stored once, in English with the classes' codes; worded at display.
    event = BookingEvent.objects.get(booking=booking, kind="change")
    assert "class executive → first" in event.text


def test_a_phone_booking_too_soon_says_so_in_german_with_a_german_date(admin_client):
    soon = timezone.localtime() + timedelta(minutes=30)
    response = admin_client.post(
        "/admin/booking/booking/add/",
        {
            "origin": "Hotel Sacher",
            "destination": "Flughafen Wien",
            "pickup_0": soon.strftime("%d.%m.%Y"),
            "pickup_1": soon.strftime("%H:%M"),
            "vehicle_class": "first",
            "booking_type": "distance",
            "name": "Anna",
            "phone": "+43 1 5345678",
            "email": "anna@example.com",
            "locale": "de",
            "payment": "link",
        },
        **GERMAN,
    )
    errors = text_of(response.content.decode(), "content-main")
    found = re.search(
        r"Diese Abholzeit ist nicht buchbar; frühestens möglich ist (\S+ [\d.]+, \d\d:\d\d)\.", errors
    )
    assert found, errors
    assert found.group(1)[:3] in {"Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa.", "So."}
    assert "cannot be booked" not in errors and not Booking.objects.exists()
