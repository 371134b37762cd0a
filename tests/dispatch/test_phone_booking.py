"""Phone bookings in the admin: staff enter the ride and the customer, the server prices it (a Quote shows
the price and stores nothing), and the customer pays by an e-mailed payment link, or staff mark it paid by
invoice or cash, with who and when."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission, User
from django.core import mail
from django.utils import timezone

from booking.models import Booking, BookingEvent
from payments.ledger import own_payment
from tests.payments import ledger_rows
from tests.payments.ledger_rows import received_cents

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]
ADD = "/admin/booking/booking/add/"


def form(**changes) -> dict:
    pickup = (timezone.localtime() + timedelta(days=2)).replace(hour=9, minute=30)
    data = {
        "origin": "Hotel Sacher",
        "destination": "Flughafen Wien",
        "pickup_0": pickup.strftime("%d.%m.%Y"),
        "pickup_1": "09:30",
        "vehicle_class": "executive",
        "booking_type": "distance",
        "duration_hours": "",
        "tour_name": "",
        "name": "Franz Gruber",
        "phone": "+43 660 9876543",
        "email": "franz@example.com",
        "locale": "de",
        "flight_number": "OS 123",
        "notes": "Two suitcases",
        "payment": "link",
    }
    return {**data, **changes}


def test_a_quote_shows_the_servers_price_and_stores_nothing(admin_client):
    response = admin_client.post(ADD, {**form(), "_quote": "Quote"})
    html = response.content.decode()
    assert response.status_code == 200 and "€74.00" in html and "21.8 km" in html
    assert not Booking.objects.exists() and mail.outbox == []


def test_a_phone_booking_with_a_payment_link(admin_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(ADD, {**form(), "_book": "Book"}, follow=True)
    booking = Booking.objects.get()
    assert (booking.status, booking.channel, booking.amount_cents) == ("pending_payment", "phone", 7400)
    assert (booking.name, booking.phone, booking.flight_number, booking.locale) == (
        "Franz Gruber",
        "+436609876543",
        "OS 123",
        "de",
    )
    assert [str(m) for m in response.context["messages"]] == [
        f"{booking.reference} booked by phone at €74.00; payment link e-mailed to franz@example.com."
    ]
    (link,) = mail.outbox
    assert link.to == ["franz@example.com"] and "Zahlung" in link.subject
    assert f"https://chauffeur.test/booking/sandbox/{ledger_rows.session_of(booking)}" in link.body
    assert list(BookingEvent.objects.values_list("text", "actor")) == [
        ("Booked by phone.", "admin (staff)"),
        ("Payment link e-mailed to franz@example.com.", "admin (staff)"),
    ]


@pytest.mark.parametrize("method", ["invoice", "cash"])
def test_a_phone_booking_paid_on_invoice_or_in_cash(admin_client, method, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(ADD, {**form(payment=method, email=""), "_book": "Book"})
    booking = Booking.objects.get()
    assert (booking.status, booking.payment_method, own_payment(booking).recorded_by.username) == (
        "paid",
        method,
        "admin",
    )
    assert (
        booking.paid_at is not None
        and received_cents(booking) == 7400
        and ledger_rows.session_of(booking) is None
    )
    assert mail.outbox == []  # no e-mail address: no confirmation to send


def test_a_payment_link_needs_an_email_address(admin_client):
    response = admin_client.post(ADD, {**form(email=""), "_book": "Book"})
    assert "A payment link needs the customer" in response.content.decode()
    assert not Booking.objects.exists()


def test_the_lead_time_applies_unless_staff_take_it_at_short_notice(admin_client):
    soon = timezone.localtime() + timedelta(minutes=30)
    rushed = form(pickup_0=soon.strftime("%d.%m.%Y"), pickup_1=soon.strftime("%H:%M"), payment="cash")
    response = admin_client.post(ADD, {**rushed, "_book": "Book"})
    assert "cannot be booked" in response.content.decode() and not Booking.objects.exists()
    admin_client.post(ADD, {**rushed, "short_notice": "on", "_book": "Book"})
    assert Booking.objects.get().status == "paid"
    assert "short notice" in BookingEvent.objects.first().text


@pytest.mark.parametrize(
    ("changes", "shown"),
    [
        ({"booking_type": "hourly"}, "An hourly hire needs its hours."),
        ({"destination": "Nowhere at all"}, "Unknown place: &#x27;Nowhere at all&#x27;"),
        ({"booking_type": "hourly", "duration_hours": "2", "destination": "Salzburg"}, "cannot cover it"),
    ],
)
def test_what_the_server_refuses_is_shown_and_nothing_stored(admin_client, changes, shown):
    response = admin_client.post(ADD, {**form(payment="cash", **changes), "_book": "Book"})
    assert response.status_code == 200 and shown in response.content.decode()
    assert not Booking.objects.exists()


def test_staff_without_the_add_permission_cannot_book(client):
    viewer = User.objects.create_user("max", password="pw", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename__in=["view_booking", "change_booking"]))
    client.force_login(viewer)
    assert client.get(ADD).status_code == 403
    assert client.post(ADD, {**form(payment="cash"), "_book": "Book"}).status_code == 403
    assert not Booking.objects.exists()


# --- on a company's account (booking/on_account.py) -------------------------------------------------------


@pytest.fixture
def company(db):
    from corporate.models import CompanyAccount

    return CompanyAccount.objects.create(
        name="Beispiel GmbH",
        street_address="Kärntner Straße 1",
        postcode="1010",
        city="Wien",
        billing_email="buchhaltung@beispiel.at",
        bookers="@beispiel.at",
    )


def test_staff_book_on_any_active_account_and_the_history_says_who(
    admin_client, company, django_capture_on_commit_callbacks
):
    from invoicing.models import Invoice

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            ADD,
            {
                **form(payment="account", company_account=company.pk, billing_vat_id="ATU12345678"),
                "_book": "Book",
            },
            follow=True,
        )
    booking = Booking.objects.get()
    assert (booking.status, booking.payment_method, booking.company_account) == ("paid", "account", company)
    assert (
        received_cents(booking) == 0
        and not Invoice.objects.exists()
        and booking.billing_vat_id == "ATU12345678"
    )
    assert [str(m) for m in response.context["messages"]] == [
        f"{booking.reference} booked by phone at €74.00; on account of Beispiel GmbH (its monthly invoice)."
    ]
    texts = list(BookingEvent.objects.values_list("text", "actor"))
    # franz@example.com is no booker of the account: staff vouched for him, and the history names them
    assert (
        "Put on the account of Beispiel GmbH by staff, though its bookers do not list franz@example.com.",
        "admin (staff)",
    ) in texts
    assert any("on account of Beispiel GmbH" in actor and "admin" in actor for _, actor in texts)
    (confirmation,) = mail.outbox
    assert "Auf Rechnung von Beispiel GmbH; monatlich verrechnet." in confirmation.body


def test_on_account_needs_an_active_account_and_stores_nothing(admin_client, company):
    response = admin_client.post(ADD, {**form(payment="account"), "_book": "Book"})
    assert "Choose the company account the ride goes on." in response.content.decode()
    company.active = False
    company.save()
    response = admin_client.post(
        ADD, {**form(payment="account", company_account=company.pk), "_book": "Book"}
    )
    assert response.status_code == 200 and "company_account" in response.context["form"].errors
    assert not Booking.objects.exists()


def test_staff_book_passengers_luggage_and_extras_by_phone(admin_client):
    response = admin_client.post(
        ADD, {**form(passengers="3", **{"extra_child-seat": "2"}), "_quote": "Quote"}
    )
    html = response.content.decode()
    assert "€94.00" in html and "Child seat: 2 × €10.00" in html  # 74.00 and the seats
    admin_client.post(
        ADD,
        {**form(payment="cash", passengers="3", luggage="2", **{"extra_child-seat": "2"}), "_book": "Book"},
    )
    booking = Booking.objects.get()
    assert (booking.passengers, booking.luggage, booking.amount_cents) == (3, 2, 9400)
    assert [(extra.code, extra.quantity) for extra in booking.quote.extras] == [("child-seat", 2)]
    assert booking.booking_data["phone booking"]["extras"] == ["child-seat:2"]


def test_a_phone_booking_the_class_cannot_take_is_refused_on_its_field(admin_client):
    response = admin_client.post(ADD, {**form(payment="cash", passengers="4"), "_book": "Book"})
    assert "Vehicle class &#x27;executive&#x27; seats 3 passengers, not 4." in response.content.decode()
    response = admin_client.post(
        ADD, {**form(payment="cash", passengers="1", **{"extra_child-seat": "2"}), "_book": "Book"}
    )
    assert "2 child seats for 1 passengers" in response.content.decode()
    assert not Booking.objects.exists()


def test_staff_book_stops_on_the_way_by_phone(admin_client):
    stops = "Stephansdom | 20\n\n  Schloss Schönbrunn  \n"
    response = admin_client.post(ADD, {**form(stops=stops), "_quote": "Quote"})
    html = response.content.decode()
    assert "Stop 1: Stephansdom, waiting 20 min" in html and "Stop 2: Schloss Schönbrunn" in html
    admin_client.post(ADD, {**form(payment="cash", stops=stops), "_book": "Book"})
    booking = Booking.objects.get()
    assert booking.stops == [
        {"address": "Stephansdom", "wait_minutes": 20},
        {"address": "Schloss Schönbrunn", "wait_minutes": 0},
    ]
    assert [line.code for line in booking.quote.lines].count("stop") == 2
    assert booking.booking_data["phone booking"]["stops"][0] == {"address": "Stephansdom", "waitMinutes": 20}


@pytest.mark.parametrize(
    ("stops", "error"),
    [
        ("Stephansdom | soon", "The wait at Stephansdom is whole minutes, 0 to 240."),
        ("Stephansdom | 241", "The wait at Stephansdom is whole minutes, 0 to 240."),
        (" | 20", "Give each stop its address (at most 500 characters)."),
        ("\n".join(["Stephansdom"] * 11), "At most 10 stops on the way."),
        ("\n".join(["Stephansdom"] * 6), "may stop at most 5 times on the way, not 6."),
        ("Atlantis", "Unknown place: &#x27;Atlantis&#x27;"),
    ],
)
def test_a_phone_booking_with_stops_it_cannot_take_is_refused_on_the_field(admin_client, stops, error):
    response = admin_client.post(ADD, {**form(payment="cash", stops=stops), "_book": "Book"})
    assert response.status_code == 200
    assert error in response.content.decode()
    assert "stops" in response.context["form"].errors or "Atlantis" in stops
    assert not Booking.objects.exists()
