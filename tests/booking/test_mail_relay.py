"""No mail relay: a booking nobody paid for was made with an address nobody proved,
so cancelling or expiring it mails no one, through any door; and text a customer typed reaches a mailbox
without a link we did not write, in the plain and the HTML part."""

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.utils import timezone

from booking import notifications
from booking.links import cancel_url, manage_url
from booking.models import Booking, BookingEvent, BookingStatus
from fleet.models import Driver
from payments import cancellation
from tests.booking.test_checkout import LEGACY, V1, post, ride, server_amount
from tests.conftest import bearer
from tests.mcp_endpoint.mcp import call, tool_result
from tests.payments import ledger_rows
from tests.payments.sandbox import pay_in_the_sandbox
from tests.web.test_page_checkout import PAGE, page_ride

# Mails leave once the transaction commits: real commits, so that a mail that would go out does.
pytestmark = [
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
    pytest.mark.usefixtures("sandbox", "jobs_after_commit"),  # the worker sends each commit's mails
]

VICTIM = "victim@example.org"
LINKS = "Eve https://evil.example/x www.evil.example"


@pytest.fixture(autouse=True)
def operator_copy(settings):
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"


def book(client, path=PAGE, token=None, **changes) -> Booking:
    """A checkout as the attacker makes it: someone else's address, a long name and a link in `from`."""
    data = (page_ride if path == PAGE else ride)(email=VICTIM, name="N" * 200, **changes)
    amount = server_amount(client, data)
    body = {"amount": amount, "bookingData": data} | ({"termsAccepted": True} if path == PAGE else {})
    response = post(client, path, body, **(token or {}))
    assert response.status_code in (200, 201), response.content
    return Booking.objects.latest("created_at")


def assert_nobody_mailed(booking: Booking) -> None:
    booking.refresh_from_db()
    assert booking.status in (BookingStatus.CANCELLED, BookingStatus.EXPIRED)
    assert mail.outbox == []
    assert not booking.history.filter(kind=BookingEvent.Kind.EMAIL).exists()
    assert not any("mail" in event.text.lower() for event in booking.history.all())


@pytest.mark.parametrize("path", [PAGE, LEGACY])
def test_a_never_paid_booking_cancelled_with_the_victims_address_mails_no_one(client, path):
    booking = book(client, path)
    response = post(client, f"/api/v1/bookings/{booking.reference}/cancel", {"email": VICTIM})
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    assert_nobody_mailed(booking)


def test_a_never_paid_booking_cancelled_by_its_token_mails_no_one(client, agent):
    booking = book(client, V1, agent)
    response = post(client, f"/api/v1/bookings/{booking.reference}/cancel", {}, **agent)
    assert response.status_code == 200
    assert_nobody_mailed(booking)


def test_a_never_paid_booking_cancelled_on_its_manage_page_mails_no_one(client):
    booking = book(client)
    page = client.post(
        manage_url(booking.reference).removeprefix("https://chauffeur.test"), {"action": "cancel"}
    )
    assert page.status_code == 200
    assert_nobody_mailed(booking)


def test_a_never_paid_booking_cancelled_by_an_agent_mails_no_one(client):
    booking = book(client)
    other = bearer("booking.read", "booking.write")
    result = tool_result(
        call(client, other, "booking.cancel_booking", {"reference": booking.reference, "email": VICTIM})
    )
    assert result["isError"] is False and result["structuredContent"]["status"] == "cancelled"
    assert_nobody_mailed(booking)


def test_a_never_paid_booking_cancelled_by_staff_mails_no_one(client):
    booking = book(client)
    cancellation.cancel(booking.pk, actor="staff", by_staff=True)
    assert_nobody_mailed(booking)


def test_a_checkout_abandoned_on_the_payment_page_mails_no_one(client):
    booking = book(client, LEGACY)
    assert client.get(cancel_url(booking.reference).removeprefix("https://chauffeur.test")).status_code == 200
    assert_nobody_mailed(booking)


def test_a_booking_expired_by_reconciliation_mails_no_one(client):
    booking = book(client)
    ledger_rows.without_page(booking)  # the provider failed at checkout: no payment page was ever opened
    Booking.objects.filter(pk=booking.pk).update(created_at=timezone.now() - timedelta(hours=2))
    call_command("reconcile_payments", stdout=None)
    assert_nobody_mailed(booking)


def test_a_paid_booking_cancelled_still_mails_the_customer_and_the_operator(client):
    booking = book(client)
    pay_in_the_sandbox(booking)
    mail.outbox.clear()
    response = post(client, f"/api/v1/bookings/{booking.reference}/cancel", {"email": VICTIM})
    assert response.status_code == 200
    assert sorted(message.to[0] for message in mail.outbox) == ["dispatch@chauffeur.test", VICTIM]
    assert all(re.search("ancelled|storniert", message.subject) for message in mail.outbox)


# --- links in what the customer typed ---------------------------------------------------------------

LINK_LIKE = re.compile(r"https?://evil|www\.evil|evil\.example", re.IGNORECASE)


def bodies() -> list[str]:
    return [
        part
        for message in mail.outbox
        for part in [message.subject, message.body, *(content for content, _ in message.alternatives)]
    ]


def test_customer_text_reaches_no_mail_as_a_link(client):
    booking = book(client, notes=f"call {LINKS}")
    Booking.objects.filter(pk=booking.pk).update(  # as a checkout stores them; the offline router knows
        name=LINKS, origin=f"Hotel {LINKS}", destination=LINKS, tour_name=LINKS, water_choice="x@evil.example"
    )  # no route to such places
    Booking.objects.filter(pk=booking.pk).update(  # stored before numbers were checked
        phone="evil.example", flight_number="www.evil.example"
    )
    pay_in_the_sandbox(booking)
    driver = Driver.objects.create(name="Karl", email="karl@chauffeur.test")
    booking.refresh_from_db()
    notifications.to_driver(notifications.DRIVER_JOB, booking, driver)
    notifications.alert_operator(booking.pk, "a test")
    post(client, f"/api/v1/bookings/{booking.reference}/cancel", {"email": VICTIM})
    sent = bodies()
    assert len(mail.outbox) >= 5  # confirmation ×2, driver, alert, cancellation ×2
    assert not [part for part in sent if LINK_LIKE.search(part)], [LINK_LIKE.findall(p) for p in sent]
    # still readable: the words are there, only the link is broken
    assert any("evil" in part and "Eve" in part for part in sent)


def test_what_staff_and_we_wrote_keeps_its_links(client):
    booking = book(client)
    pay_in_the_sandbox(booking)
    customer = next(message for message in mail.outbox if message.to == [VICTIM])
    html = customer.alternatives[0][0]
    assert 'href="https://chauffeur.test/booking/manage?booking=' in html
    assert "https://chauffeur.test/" in customer.body


@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        ("https://evil.example/x", "https: //evil. example/x"),
        ("www.evil.example", "www. evil. example"),
        ("J.R.R. Tolkien", "J. R. R. Tolkien"),
        ("Kärntner Straße 5, 1010 Wien", "Kärntner Straße 5, 1010 Wien"),
        ("Dr. Anna Berger", "Dr. Anna Berger"),
        ("Flight OS 123 at 10:30", "Flight OS 123 at 10:30"),
        ("x@evil.example", "x@evil. example"),
        ("javascript:alert(1)", "javascript: alert(1)"),
        ("evil\u3002example", "evil\u3002 example"),
    ],
)
def test_unlinked_breaks_only_what_a_mail_client_would_link(typed, shown):
    assert notifications.unlinked(typed) == shown
