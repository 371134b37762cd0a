"""The staff booking page in the admin: a readable summary, only the actions the state allows (through
booking.transitions), internal notes, a change of the pickup time that checks the lead time and prices
the ride again with the difference settled, refunds, and messages that name what changed."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission, User
from django.core import mail
from django.utils import timezone

from booking.models import Booking, BookingEvent
from fleet.models import Driver, Vehicle
from payments.ledger import own_payment
from payments.models import Refund, Surcharge
from pricing.models import Tariff, VehicleClass
from pricing.services import TARIFFS
from tests.booking.conftest import paid_ride
from tests.payments.ledger_rows import received_cents

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


@pytest.fixture
def staff(client):
    user = User.objects.create_user("eva", password="pw", is_staff=True)
    money = ["refund_booking", "record_payment"]  # the money moves (docs: "Staff permissions")
    user.user_permissions.set(
        Permission.objects.filter(codename__in=["view_booking", "change_booking", *money])
    )
    client.force_login(user)
    return client


@pytest.fixture
def paid(make_booking):
    def make(**fields) -> Booking:
        return make_booking(**{**paid_ride(), **fields})

    return make


def page(client, booking) -> str:
    response = client.get(f"/admin/booking/booking/{booking.pk}/change/")
    assert response.status_code == 200
    return response.content.decode()


def act(client, booking, action, data=None):
    response = client.post(f"/admin/booking/booking/{booking.pk}/do/{action}/", data or {}, follow=True)
    assert response.status_code == 200
    return [str(message) for message in response.context["messages"]]


def buttons(html: str) -> set[str]:
    return set(re.findall(r'<button type="submit"[^>]* id="([\w-]+)"', html))


def test_the_page_summarises_the_booking_without_save_buttons(staff, paid):
    booking = paid()
    html = page(staff, booking)
    for shown in (
        "Hotel Sacher",
        "Flughafen Wien",
        "Anna Berger",
        "+43 660 1234567",
        "Executive",
        "Distance 21.8 km (21.8 km × €2.00)",
        "€74.00",
        "10 % VAT",
        "unassigned",
    ):
        assert shown in html, shown
    assert timezone.localtime(booking.pickup_at).strftime("%a %d.%m.%Y, %H:%M") in html  # Vienna's format
    assert 'name="_save"' not in html and "quote_record" not in html


@pytest.mark.parametrize(
    ("state", "offered"),
    [
        ("pending_payment", {"mark-paid", "cancel", "change-ride", "add-note"}),
        ("paid", {"assign", "cancel", "change-ride", "refund-button", "add-note"}),
        (
            "confirmed",
            {"assign", "cancel", "change-ride", "refund-button", "add-note"},
        ),  # ahead: no "complete"
        ("completed", {"refund-button", "add-note"}),
        ("cancelled", {"refund-button", "add-note"}),
        ("expired", {"mark-paid", "cancel", "add-note"}),
    ],
)
def test_only_the_moves_the_state_allows_are_offered(staff, paid, state, offered):
    booking = (
        paid(status=state)
        if state not in ("pending_payment", "expired")
        else paid(status=state, paid_at=None)
    )
    assert buttons(page(staff, booking)) == offered


def test_a_ride_whose_pickup_has_come_may_be_marked_completed(staff, paid):
    booking = paid(
        status="confirmed", pickup_at=(timezone.now() - timedelta(minutes=5)).replace(microsecond=0)
    )
    assert "complete" in buttons(page(staff, booking))


def test_a_viewer_sees_the_page_without_any_action(client, paid):
    viewer = User.objects.create_user("max", password="pw", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename="view_booking"))
    client.force_login(viewer)
    booking = paid()
    assert buttons(page(client, booking)) == set()
    assert client.post(f"/admin/booking/booking/{booking.pk}/do/cancel/").status_code == 403
    assert Booking.objects.get().status == "paid"


def test_assigning_from_the_page_names_what_changed(staff, paid):
    booking = paid()
    karl = Driver.objects.create(name="Karl Huber", phone="+43 660 1112223")
    sedan = Vehicle.objects.create(
        plate="W-1000A", vehicle_class=VehicleClass.objects.get(code="executive"), seats=3, luggage=3
    )
    said = act(staff, booking, "assign", {"driver": karl.pk, "vehicle": sedan.pk})
    assert said == [
        f"{booking.reference}: Karl Huber with W-1000A (Executive Class); the booking is confirmed; "
        "driver and customer are told."
    ]
    assert Booking.objects.get().driver == karl


def test_a_refused_action_says_why_and_changes_nothing(staff, paid):
    booking = paid()
    van = Vehicle.objects.create(
        plate="W-3000C", vehicle_class=VehicleClass.objects.get(code="business-van"), seats=7, luggage=7
    )
    karl = Driver.objects.create(name="Karl Huber", phone="1")
    said = act(staff, booking, "assign", {"driver": karl.pk, "vehicle": van.pk})
    assert said == [
        f"{booking.reference}: Vehicle: Select a valid choice. That choice is not one of the available choices."
    ]
    assert act(staff, booking, "complete") == [
        f"{booking.reference}: A paid booking cannot become completed."
    ]  # completed needs confirmed first
    assert (Booking.objects.get().status, Booking.objects.get().driver) == ("paid", None)
    assert not BookingEvent.objects.exists()


def test_notes_are_kept_in_the_history_with_their_author(staff, paid):
    booking = paid()
    assert act(staff, booking, "note", {"text": "Child seat, please."}) == [
        f"{booking.reference}: note added."
    ]
    note = BookingEvent.objects.get()
    assert (note.kind, note.actor, note.text) == ("note", "eva (staff)", "Child seat, please.")
    assert "Child seat, please." in page(staff, booking)


def test_cancelling_from_the_page_applies_the_policy(staff, paid):
    booking = paid(pickup_at=timezone.now() + timedelta(hours=3))
    assert act(staff, booking, "cancel") == [
        f"{booking.reference}: cancelled under the policy; fee kept €37.00, €37.00 refunded."
    ]
    assert Refund.objects.get().amount_cents == 3700


def test_marking_paid_by_invoice_keeps_who_and_when(staff, paid):
    booking = paid(status="pending_payment", paid_at=None)
    said = act(staff, booking, "mark-paid", {"method": "invoice"})
    assert said == [
        f"{booking.reference}: marked paid by invoice (eva); the confirmation goes to the customer."
    ]
    stored = Booking.objects.get()
    assert (stored.status, stored.payment_method, own_payment(stored).recorded_by.username) == (
        "paid",
        "invoice",
        "eva",
    )
    assert stored.paid_at is not None and received_cents(stored) == 7400


# --- changing the ride ------------------------------------------------------------------------------------


def change(client, booking, *, days=4, hour=11, vehicle_class="executive", through_provider="1"):
    pickup = (timezone.localtime() + timedelta(days=days)).replace(hour=hour, minute=0)
    data = {
        "pickup_0": pickup.strftime("%d.%m.%Y"),
        "pickup_1": pickup.strftime("%H:%M"),
        "vehicle_class": vehicle_class,
        "through_provider": through_provider,
    }
    return act(client, booking, "change", data), pickup.replace(second=0, microsecond=0)


def test_a_new_pickup_time_is_checked_and_priced_again(staff, paid, django_capture_on_commit_callbacks):
    booking = paid()
    with django_capture_on_commit_callbacks(execute=True):
        said, pickup = change(staff, booking)
    stored = Booking.objects.get()
    assert stored.pickup_at == pickup and stored.amount_cents == 7400
    assert said[0].startswith(f"{booking.reference}: Changed: pickup ") and said[0].endswith(
        "price €74.00 → €74.00."
    )
    assert "geändert" in mail.outbox[0].subject or "changed" in mail.outbox[0].subject
    assert BookingEvent.objects.get().kind == "change"


def test_a_pickup_inside_the_lead_time_is_refused(staff, paid):
    booking = paid()
    before = Booking.objects.get().pickup_at
    soon = timezone.localtime() + timedelta(hours=1)  # the next hour, tomorrow's after 23:00
    said, _ = change(staff, booking, days=(soon.date() - timezone.localdate()).days, hour=soon.hour)
    assert "cannot be booked" in said[0]
    assert Booking.objects.get().pickup_at == before and not BookingEvent.objects.exists()


def test_new_tariffs_make_a_difference_refunded_through_the_provider(staff, paid):
    booking = paid()
    Tariff.objects.filter(vehicle_class__code="executive").update(base_fare=Decimal("20.00"))
    TARIFFS.announce()
    said, _ = change(staff, booking)
    assert said[0].endswith("price €74.00 → €64.00; €10.00 refunded through the payment provider.")
    refund = Refund.objects.get()
    assert (refund.amount_cents, refund.method, refund.status) == (1000, "provider", "succeeded")
    assert Booking.objects.get().amount_cents == 6400


def test_an_upgrade_sends_a_payment_link_for_the_difference_and_its_payment_counts(
    staff, paid, client, django_capture_on_commit_callbacks
):
    booking = paid()
    with django_capture_on_commit_callbacks(execute=True):
        said, _ = change(staff, booking, vehicle_class="first")
    assert "price €74.00 → €116.00; a payment link for €42.00 e-mailed to the customer" in said[0]
    surcharge = Surcharge.objects.get()
    link = next(
        message for message in mail.outbox if "Payment" in message.subject or "Zahlung" in message.subject
    )
    assert surcharge.payment_url in link.body and "42.00" in link.body
    page_path = surcharge.payment_url.removeprefix("https://chauffeur.test")
    assert "Pay €42.00" in client.get(page_path).content.decode()
    client.post(page_path, {"action": "pay"})  # the customer pays on the sandbox's page
    surcharge.refresh_from_db()
    assert surcharge.status == "paid" and received_cents(Booking.objects.get()) == 7400 + 4200


def test_a_difference_staff_collect_is_recorded_as_paid(staff, paid):
    booking = paid()
    said, _ = change(staff, booking, vehicle_class="first", through_provider="")
    assert said[0].endswith("€42.00 collected by staff.")
    assert Surcharge.objects.get().status == "paid" and received_cents(Booking.objects.get()) == 11600


def test_a_new_time_that_collides_with_the_drivers_next_ride_is_refused(staff, paid):
    karl = Driver.objects.create(name="Karl Huber", phone="1")
    executive = VehicleClass.objects.get(code="executive")
    sedan = Vehicle.objects.create(plate="W-1", vehicle_class=executive, seats=3, luggage=3)
    other = Vehicle.objects.create(plate="W-2", vehicle_class=executive, seats=3, luggage=3)
    pickup = (timezone.localtime() + timedelta(days=4)).replace(hour=11, minute=0, second=0, microsecond=0)
    paid(status="confirmed", driver=karl, vehicle=other, pickup_at=pickup)
    booking = paid(status="confirmed", driver=karl, vehicle=sedan)
    said, _ = change(staff, booking)
    assert "Karl Huber is on" in said[0]
    assert Booking.objects.get(pk=booking.pk).pickup_at != pickup
