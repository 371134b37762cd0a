"""What staff may do beyond the tariff and the lead time, each on purpose and on the record: a price set by
hand with its reason (a permission of its own), a ride moved at short notice, a past ride recorded (a
permission of its own, never onto a month already invoiced on account); and the texts they type that land on
the invoice kept on one line. Every refusal changes nothing."""

from datetime import datetime, time, timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.utils import timezone

from booking.models import Booking, BookingEvent, PaymentMethod
from corporate.models import CompanyAccount
from invoicing.collective_invoices import previous_month
from invoicing.models import CreditNote, Invoice
from payments import collective_invoices, payment_updates
from payments.models import Surcharge
from tests.dispatch.test_phone_booking import ADD, form
from tests.operator_profile.test_operator_profile import ONE_LINE
from tests.payments.ledger_rows import received_cents

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]
DISPATCH = ["view_booking", "add_booking", "change_booking"]
REASON = "Agreed congress price"


def staff(client: Client, *extra: str) -> Client:
    """A dispatcher, with `extra` permissions (set_price, record_past_ride, record_payment)."""
    user = User.objects.create_user("eva", password="pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=[*DISPATCH, *extra]))
    client.force_login(user)
    return client


def state() -> list:
    return sorted(Booking.objects.values_list("reference", "pickup_at", "amount_cents", "quote_record"))


def vienna_in(**delta) -> datetime:
    return (timezone.localtime() + timedelta(**delta)).replace(second=0, microsecond=0)


def at(moment: datetime) -> dict:
    return {"pickup_0": moment.strftime("%d.%m.%Y"), "pickup_1": moment.strftime("%H:%M")}


@pytest.fixture
def paid(make_booking):
    """Marked paid 74 EUR by invoice, with its invoice (staff settle differences themselves), four days
    ahead."""
    pickup = (timezone.localtime() + timedelta(days=4)).replace(hour=11, minute=0, second=0, microsecond=0)

    def make(**fields) -> Booking:
        values = {
            "name": "Anna Berger",
            "email": "anna@example.com",
            "distance_km": Decimal("21.8"),
            "duration_s": 1455,
            "in_zone_a": True,
            "pickup_at": pickup,
        }
        booking = make_booking(**{**values, **fields})
        return payment_updates.mark_paid(booking.pk, method="invoice", user=None, actor="test")

    return make


def change(client: Client, booking: Booking, **fields):
    data = {
        **at(timezone.localtime(booking.pickup_at)),
        "vehicle_class": booking.vehicle_class,
        "through_provider": "",
        **fields,
    }
    return client.post(f"/admin/booking/booking/{booking.pk}/do/change/", data, follow=True)


def said(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def history(booking: Booking) -> list[tuple[str, str]]:
    return list(BookingEvent.objects.filter(booking=booking, kind="change").values_list("text", "actor"))


# --- the texts that land on the invoice ----------------------------------------------------------------


@pytest.mark.parametrize("field", ["origin", "destination", "name", "flight_number"])
def test_a_line_break_in_what_the_invoice_prints_is_refused_booking_nothing(admin_client, field):
    response = admin_client.post(ADD, {**form(**{field: "OS 1\r\nX"}), "_book": "Book"})
    assert response.status_code == 200
    assert ONE_LINE in response.context["form"].errors[field]
    assert not Booking.objects.exists()


# --- a price set by hand on the phone form -------------------------------------------------------------


def test_the_phone_form_offers_the_price_by_hand_only_with_its_permission(client):
    html = staff(client).get(ADD).content.decode()
    assert 'name="price"' not in html and 'name="past_ride"' not in html
    User.objects.get().user_permissions.add(
        *Permission.objects.filter(codename__in=["set_price", "record_past_ride"])
    )
    html = client.get(ADD).content.decode()
    assert 'name="price"' in html and 'name="price_reason"' in html and 'name="past_ride"' in html


def test_a_phone_booking_at_a_price_set_by_hand_is_invoiced_with_its_reason(
    client, django_capture_on_commit_callbacks
):
    staff(client, "set_price", "record_payment")
    quoted = client.post(ADD, {**form(payment="cash", price="90,00", price_reason=REASON), "_quote": "Quote"})
    quote = quoted.content.decode().split('<div id="quote">', 1)[1].split("</div>", 1)[0]
    assert "<strong>€90.00</strong>" in quote
    assert f"<li>Price set by hand (the tariff&#x27;s €74.00): {REASON}: €16.00</li>" in quote
    assert not Booking.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(ADD, {**form(payment="cash", price="90,00", price_reason=REASON), "_book": "Book"})
    booking = Booking.objects.get()
    assert (booking.amount_cents, received_cents(booking), booking.quote.price) == (
        9000,
        9000,
        Decimal("90.00"),
    )
    assert history(booking) == [
        ("Booked by phone.", "eva (staff)"),
        (f"Price set by hand: 90.00 EUR instead of the tariff's 74.00 EUR. Reason: {REASON}", "eva (staff)"),
    ]
    invoice = Invoice.objects.get(booking=booking)
    assert invoice.gross_cents == 9000
    adjustment = {"label": f"Preisanpassung: {REASON}", "amount": "16.00", "kind": "adjustment"}
    assert adjustment in [  # German booking
        {key: line[key] for key in adjustment} for line in invoice.content["lines"]
    ]
    assert sum(Decimal(line["amount"]) for line in invoice.content["lines"]) == Decimal("90.00")


@pytest.mark.parametrize(
    ("fields", "field", "error"),
    [
        ({"price": "90,00"}, "price_reason", "Give the reason for the price set by hand."),
        ({"price_reason": REASON}, "price", "Enter the price the reason is for"),
        ({"price": "0,50", "price_reason": REASON}, "price", "between 1.00 and 99999.99 euros"),
        ({"price": "90,001", "price_reason": REASON}, "price", "at most two decimal places"),
        ({"price": "90", "price_reason": "Agreed\r\nBcc: x"}, "price_reason", ONE_LINE),
    ],
)
def test_a_price_by_hand_without_its_reason_or_out_of_range_books_nothing(client, fields, field, error):
    staff(client, "set_price", "record_payment")
    response = client.post(ADD, {**form(payment="cash", **fields), "_book": "Book"})
    assert response.status_code == 200 and error in " ".join(response.context["form"].errors[field])
    assert not Booking.objects.exists()


def test_a_price_by_hand_sent_without_the_permission_is_refused(client):
    staff(client, "record_payment")
    response = client.post(ADD, {**form(payment="cash", price="90,00", price_reason=REASON), "_book": "Book"})
    assert response.status_code == 403 and not Booking.objects.exists()


# --- a price set by hand on the change form ------------------------------------------------------------


def test_staff_raise_a_paid_ride_to_a_price_by_hand_the_difference_invoiced_with_its_reason(client, paid):
    booking = paid()
    staff(client, "set_price", "record_payment")
    response = change(client, booking, price="90,00", price_reason=REASON)
    assert said(response) == [
        f"{booking.reference}: Changed: price €74.00 → €90.00; price set by hand, reason: {REASON}; "
        "€16.00 collected by staff."
    ]
    booking.refresh_from_db()
    assert (booking.amount_cents, received_cents(booking)) == (9000, 9000)
    assert history(booking)[-1] == (
        f"Changed: price 74.00 EUR → 90.00 EUR; price set by hand, reason: {REASON}",
        "eva (staff)",
    )
    supplementary = Invoice.objects.get(kind=Invoice.Kind.SUPPLEMENTARY)
    assert supplementary.gross_cents == 1600
    assert supplementary.content["lines"][0]["label"] == (
        f"Price difference after a change of the ride (price set by hand: {REASON})"
    )


def test_staff_lower_a_price_by_hand_and_the_refund_is_credited_with_its_reason(client, paid):
    booking = paid()
    staff(client, "set_price", "record_payment")
    change(client, booking, price="60,00", price_reason="Corrected: waited 40 minutes at the hotel")
    booking.refresh_from_db()
    assert (booking.amount_cents, received_cents(booking)) == (6000, 7400)
    note = CreditNote.objects.get()
    assert note.gross_cents == 1400
    assert note.content["lines"][0]["label"] == (
        "Price change of the ride: refund of the difference (price set by hand: Corrected: waited 40 minutes "
        "at the hotel)"
    )


def test_a_price_by_hand_stays_when_a_dispatcher_moves_the_ride_until_staff_remove_it(client, paid):
    booking = paid()
    staff(client, "set_price", "record_payment")
    change(client, booking, price="90,00", price_reason=REASON)
    page = client.get(f"/admin/booking/booking/{booking.pk}/change/").content.decode()
    assert 'name="price" value="90.00"' in page and f'value="{REASON}"' in page  # kept unless changed
    eva = User.objects.get()
    eva.user_permissions.remove(*Permission.objects.filter(codename="set_price"))
    later = timezone.localtime(booking.pickup_at) + timedelta(hours=2)
    assert "price set by hand" not in " ".join(said(change(client, booking, **at(later))))
    booking.refresh_from_db()
    assert booking.amount_cents == 9000 and booking.quote.lines[-1].code == "price_by_hand"
    eva.user_permissions.add(*Permission.objects.filter(codename="set_price"))
    response = change(client, booking, **at(later), price="", price_reason="")
    assert "the price set by hand is removed: the tariff's price applies" in said(response)[0]
    booking.refresh_from_db()
    assert booking.amount_cents == 7400 and all(line.code != "price_by_hand" for line in booking.quote.lines)


def test_a_price_by_hand_sent_to_the_change_form_without_the_permission_is_refused(client, paid):
    booking = paid()
    staff(client, "record_payment")
    before = state()
    response = client.post(
        f"/admin/booking/booking/{booking.pk}/do/change/",
        {
            **at(timezone.localtime(booking.pickup_at)),
            "vehicle_class": "executive",
            "through_provider": "",
            "price": "90,00",
            "price_reason": REASON,
        },
    )
    assert response.status_code == 403 and state() == before and not Surcharge.objects.exists()


# --- short notice on the change form -------------------------------------------------------------------


def test_a_ride_moved_inside_the_lead_time_needs_short_notice(client, paid):
    booking = paid()
    staff(client)
    soon = vienna_in(minutes=40)
    before = state()
    refused = change(client, booking, **at(soon), through_provider="1")
    assert "cannot be booked; the earliest possible is" in said(refused)[0] and state() == before
    moved = change(client, booking, **at(soon), through_provider="1", short_notice="on")
    assert "at short notice (the lead time was not applied)" in said(moved)[0]
    booking.refresh_from_db()
    assert booking.pickup_at == soon
    assert "at short notice (the lead time was not applied)" in history(booking)[-1][0]


def test_the_change_form_offers_short_notice(client, paid):
    html = staff(client).get(f"/admin/booking/booking/{paid().pk}/change/").content.decode()
    assert 'name="short_notice"' in html and 'name="past_ride"' not in html and 'name="price"' not in html


# --- past pickups --------------------------------------------------------------------------------------


def test_short_notice_does_not_take_a_pickup_six_weeks_ago(client):
    staff(client, "record_payment")
    weeks_ago = vienna_in(days=-42)
    response = client.post(ADD, {**form(payment="cash", **at(weeks_ago), short_notice="on"), "_book": "Book"})
    assert "has passed. To record a ride that was driven" in " ".join(
        response.context["form"].errors["pickup"]
    )
    assert not Booking.objects.exists() and not Invoice.objects.exists()


def test_a_past_ride_is_recorded_only_with_its_permission(client, django_capture_on_commit_callbacks):
    staff(client, "record_payment")
    yesterday = vienna_in(days=-1)
    refused = client.post(ADD, {**form(payment="cash", **at(yesterday), past_ride="on"), "_book": "Book"})
    assert refused.status_code == 403 and not Booking.objects.exists()
    User.objects.get().user_permissions.add(*Permission.objects.filter(codename="record_past_ride"))
    with django_capture_on_commit_callbacks(execute=True):
        client.post(ADD, {**form(payment="cash", **at(yesterday), past_ride="on"), "_book": "Book"})
    booking = Booking.objects.get()
    assert booking.pickup_at == yesterday and booking.status == "paid"
    assert history(booking)[0] == ("Booked by phone as a past ride (its pickup had passed).", "eva (staff)")
    pickup = Invoice.objects.get(booking=booking).content["pickup_at"]
    assert datetime.fromisoformat(pickup) == yesterday


def test_record_a_past_ride_is_refused_for_a_pickup_ahead(client):
    staff(client, "record_payment", "record_past_ride")
    response = client.post(ADD, {**form(payment="cash", past_ride="on"), "_book": "Book"})
    assert "is for a pickup that has passed" in " ".join(response.context["form"].errors["past_ride"])
    assert not Booking.objects.exists()


def test_a_pickup_typed_during_the_call_is_not_a_past_ride(client):
    staff(client, "record_payment")
    now = vienna_in(minutes=-5)
    client.post(ADD, {**form(payment="cash", **at(now), short_notice="on"), "_book": "Book"})
    assert Booking.objects.get().pickup_at == now


@pytest.fixture
def company(db) -> CompanyAccount:
    return CompanyAccount.objects.create(
        name="Beispiel GmbH",
        street_address="Ring 1",
        postcode="1010",
        city="Wien",
        billing_email="ap@beispiel.at",
        bookers="@beispiel.at",
    )


def last_month_day(day: int) -> datetime:
    month = previous_month(timezone.localdate())
    return datetime.combine(month.replace(day=day), time(9), tzinfo=timezone.get_current_timezone())


def test_a_past_ride_never_lands_on_a_collective_invoice_already_issued(client, company, make_booking):
    make_booking(
        company_account=company,
        payment_method=PaymentMethod.ACCOUNT,
        status="completed",
        pickup_at=last_month_day(3),
        paid_at=last_month_day(1),
    )
    issued, _ = collective_invoices.issue(company, last_month_day(3).date())
    staff(client, "record_past_ride", "record_payment")
    ride = form(payment="account", company_account=company.pk, **at(last_month_day(20)), past_ride="on")
    response = client.post(ADD, {**ride, "_book": "Book"})
    errors = " ".join(response.context["form"].errors["pickup"])
    assert f"The collective invoice {issued.number} of Beispiel GmbH for that month is issued" in errors
    assert Booking.objects.count() == 1 and issued.lines.count() == 1


def test_a_past_ride_of_a_month_not_yet_invoiced_goes_on_its_collective_invoice(client, company):
    staff(client, "record_past_ride", "record_payment")
    ride = form(payment="account", company_account=company.pk, **at(last_month_day(20)), past_ride="on")
    client.post(ADD, {**ride, "_book": "Book"})
    booking = Booking.objects.get()
    invoice, created = collective_invoices.issue(company, last_month_day(20).date())
    assert created and list(invoice.lines.values_list("booking", flat=True)) == [booking.pk]


def test_a_ride_moved_into_the_past_needs_record_a_past_ride(client, paid):
    booking = paid()
    staff(client, "record_payment")
    before = state()
    yesterday = vienna_in(days=-1)
    refused = change(client, booking, **at(yesterday), short_notice="on")
    assert "has passed. To record a ride that was driven" in said(refused)[0] and state() == before
    User.objects.get().user_permissions.add(*Permission.objects.filter(codename="record_past_ride"))
    moved = change(client, booking, **at(yesterday), past_ride="on")
    assert "recorded as a past ride (its pickup had passed)" in said(moved)[0]
    booking.refresh_from_db()
    assert booking.pickup_at == yesterday


def test_a_price_by_hand_on_account_is_billed_on_the_collective_invoice_with_its_reason(client, company):
    staff(client, "set_price", "record_payment", "record_past_ride")
    ride = form(
        payment="account",
        company_account=company.pk,
        **at(last_month_day(20)),
        past_ride="on",
        price="90,00",
        price_reason=REASON,
    )
    client.post(ADD, {**ride, "_book": "Book"})
    booking = Booking.objects.get()
    assert (booking.amount_cents, received_cents(booking)) == (9000, 0)
    invoice, _ = collective_invoices.issue(company, last_month_day(20).date())
    (line,) = invoice.content["lines"]
    assert [item["amount"] for item in line["items"]] == ["74.00", "16.00"] and line["amount"] == "90.00"
    assert line["items"][1]["label"] == f"Preisanpassung: {REASON}"  # the account's language
    assert invoice.gross_cents == 9000
