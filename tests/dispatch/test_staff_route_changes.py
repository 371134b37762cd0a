"""Staff change a ride's addresses, stops, party and extras on the booking page, as agents do through the API
(test_route_and_extra_changes.py), and also what agents leave to them: a return trip's ride, a price set by
hand. A field the form does not send keeps what the booking has. Refusals change nothing."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission, User
from django.utils import timezone

from booking.models import Booking
from dispatch.admin.forms import ChangeForm
from pricing.models import Extra, ExtraLimit
from pricing.quote import offered
from pricing.services import TARIFFS
from tests.booking.test_checkout import post, ride
from tests.booking.test_return_trips import trip, trip_amount
from tests.dispatch.test_booking_changes import priced_by_hand

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client):
    user = User.objects.create_user("eva", password="pw", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(codename__in=["view_booking", "change_booking", "refund_booking"])
    )
    client.force_login(user)
    return client


def sent(booking: Booking, *, may_set_price: bool = False, **fields) -> dict:
    """The change form as the page fills it in for the booking (its initial values, the version it shows
    included; the price set by hand for a user who may set prices), with `fields` typed over it."""
    initial = ChangeForm(booking=Booking.objects.get(pk=booking.pk), may_set_price=may_set_price).initial
    if not may_set_price:
        del initial["price"], initial["price_reason"]
    pickup = timezone.localtime(initial.pop("pickup"))
    form = {name: "" if value is None else value for name, value in initial.items()}
    return {**form, "pickup_0": pickup.strftime("%d.%m.%Y"), "pickup_1": pickup.strftime("%H:%M"), **fields}


def change(client, booking: Booking, form: dict) -> str:
    response = client.post(f"/admin/booking/booking/{booking.pk}/do/change/", form, follow=True)
    assert response.status_code == 200
    return " ".join(str(message) for message in response.context["messages"])


def booked(client, agent, data: dict) -> Booking:
    """Checked out at the price the server names (`expectedAmount`)."""
    asked = post(client, "/api/v1/checkout", {"amount": 1, "bookingData": data}, **agent).json()
    answer = post(
        client, "/api/v1/checkout", {"amount": asked["expectedAmount"], "bookingData": data}, **agent
    )
    assert answer.status_code == 201, answer.content
    return Booking.objects.get(reference=answer.json()["reference"])


def kept(booking: Booking) -> tuple:
    booking = Booking.objects.get(pk=booking.pk)
    return (booking.origin, booking.destination, booking.stops, booking.quote_record, booking.amount_cents)


def test_staff_add_a_stop_a_child_seat_and_a_passenger_and_move_the_destination(staff, paid, stripe):
    page = staff.get(f"/admin/booking/booking/{paid.pk}/change/").content.decode()
    assert 'name="stops"' in page and 'name="extra_child-seat"' in page and 'name="destination"' in page

    said = change(
        staff,
        paid,
        sent(
            paid,
            destination="Linz Airport",
            stops="Wien Hauptbahnhof | 15",
            passengers=3,
            **{"extra_child-seat": 1},
        ),
    )

    changed = Booking.objects.get(pk=paid.pk)
    assert (changed.destination, changed.passengers) == ("Linz Airport", 3), said
    assert changed.stops == [{"address": "Wien Hauptbahnhof", "wait_minutes": 15}]
    assert [(extra.code, extra.quantity) for extra in changed.quote.extras] == [("child-seat", 1)]
    assert changed.distance_km > paid.distance_km and changed.amount_cents > paid.amount_cents
    (entry,) = changed.history.filter(kind="change")
    assert entry.actor == "eva (staff)"
    for words in (
        "destination Flughafen Wien → Linz Airport",
        "stops — → Wien Hauptbahnhof (15 min)",
        "passengers — → 3",
        "extras — → child-seat",
    ):
        assert words in entry.text
    (link,) = stripe.open_sessions()  # the difference asked through the provider
    assert stripe.sessions[link].amount == changed.amount_cents - paid.amount_cents


def test_a_form_without_the_new_fields_keeps_the_stops_and_extras(staff, client, agent, stripe):
    data = ride(
        vehicleClass="business-van",
        stops=[{"address": "Wien Hauptbahnhof", "waitMinutes": 15}],
        extras=["name-sign"],
    )
    booking = booked(client, agent, data)
    later = timezone.localtime(booking.pickup_at + timedelta(hours=1))

    change(
        staff,
        booking,
        {
            "pickup_0": later.strftime("%d.%m.%Y"),
            "pickup_1": later.strftime("%H:%M"),
            "vehicle_class": "business-van",
            "through_provider": "1",
        },
    )

    moved = Booking.objects.get(pk=booking.pk)
    assert moved.pickup_at == later and moved.stops == booking.stops
    assert moved.quote.extras == booking.quote.extras and moved.amount_cents == booking.amount_cents


def test_staff_change_what_agents_leave_to_them_and_not_an_hourly_hires_route(
    staff, client, agent, paid, stripe
):
    priced_by_hand(paid)
    by_hand = Booking.objects.get(pk=paid.pk)
    said = change(staff, by_hand, sent(by_hand, stops="Wien Hauptbahnhof"))
    assert "needs the permission to set prices" in said and kept(by_hand) == kept(paid)  # 90 € for any ride
    User.objects.get(username="eva").user_permissions.add(Permission.objects.get(codename="set_price"))
    change(staff, by_hand, sent(by_hand, may_set_price=True, stops="Wien Hauptbahnhof"))
    with_stop = Booking.objects.get(pk=paid.pk)
    assert with_stop.stops[0]["address"] == "Wien Hauptbahnhof"
    assert with_stop.amount_cents == by_hand.amount_cents  # the price set by hand stays, as the form showed

    data = trip()
    answer = post(
        client, "/api/v1/checkout", {"amount": trip_amount(client, data), "bookingData": data}, **agent
    )
    (page,) = stripe.open_sessions()
    stripe.pay(client, page)
    way_out = Booking.objects.get(reference=answer.json()["reference"])
    way_back = Booking.objects.get(reference=answer.json()["wayBack"]["reference"])
    Booking.objects.filter(pk=way_back.pk).update(pickup_at=way_out.estimated_arrival + timedelta(minutes=10))
    before = kept(way_out)
    said = change(staff, way_out, sent(way_out, stops="Schloss Schönbrunn | 60"))  # then arrives too late
    assert "The way back's pickup must be after the way out arrives" in said, said
    assert kept(way_out) == before
    Booking.objects.filter(pk=way_back.pk).update(pickup_at=way_out.estimated_arrival + timedelta(hours=3))
    said = change(staff, way_out, sent(way_out, stops="Schloss Schönbrunn | 60"))
    assert "keeps its addresses" not in said  # the way back still starts where the way out ends
    said = change(staff, way_out, sent(way_out, destination="Wien Hauptbahnhof"))
    assert f"The return trip's other ride {way_back.reference} keeps its addresses" in said
    assert Booking.objects.get(pk=way_out.pk).stops == [
        {"address": "Schloss Schönbrunn", "wait_minutes": 60}
    ], said

    hire = booked(client, agent, ride(bookingType="hourly", durationHours=3, vehicleClass="business-van"))
    before = kept(hire)
    said = change(staff, hire, sent(hire, destination="Linz Airport"))
    assert "hourly hire" in said and kept(hire) == before


def test_a_page_read_before_another_change_undoes_nothing(staff, client, agent, paid):
    page = sent(paid, pickup_1="11:00")  # the page as staff opened it
    quoted = post(
        client, f"/api/v1/bookings/{paid.reference}/change-quotes", {"passengers": 2}, **agent
    ).json()
    made = post(
        client, f"/api/v1/bookings/{paid.reference}/changes", {"changeQuoteId": quoted["id"]}, **agent
    )
    assert made.status_code == 200, made.content
    agents = kept(paid)

    said = change(staff, paid, page)

    assert "changed meanwhile: look again and retry" in said
    assert kept(paid) == agents and Booking.objects.get(pk=paid.pk).passengers == 2


def test_an_extra_booked_before_its_maximum_was_lowered_does_not_hold_up_a_change(
    staff, client, agent, stripe
):
    booking = booked(client, agent, ride(vehicleClass="business-van", passengers=3, extras=["child-seat:3"]))
    Extra.objects.filter(code="child-seat").update(maximum=1)
    ExtraLimit.objects.filter(extra__code="child-seat").update(maximum=1)
    TARIFFS.bump()

    said = change(staff, booking, sent(booking, pickup_1="11:00"))

    moved = Booking.objects.get(pk=booking.pk)
    assert timezone.localtime(moved.pickup_at).hour == 11, said
    assert [(extra.code, extra.quantity) for extra in moved.quote.extras] == [("child-seat", 3)]


def test_an_offers_extras_are_its_own(staff, paid):
    quote = offered("business-van", [("Transfer as offered", paid.quote.price)], paid.quote.vat_rate)
    Booking.objects.filter(pk=paid.pk).update(quote_record=quote.as_record())
    before = kept(paid)

    said = change(staff, paid, sent(paid, **{"extra_name-sign": 1}))

    assert "make a new offer" in said and kept(paid) == before
