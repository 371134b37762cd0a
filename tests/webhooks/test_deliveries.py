"""Webhooks as a partner lives them: an endpoint added through the API hears of its token's bookings, and
only of those, each event once and one booking's in their order, signed so that the Standard Webhooks
library accepts it; a receiver that is down gets the events again after its backoff, still in order; one
that stays down is paused with staff alerted, and its events wait until it is resumed. The receiver is a
real HTTP server on this machine (private addresses allowed here, as in development)."""

from datetime import timedelta

import pytest
import time_machine
from django.db import transaction
from django.utils import timezone

from booking import transitions
from booking.models import Booking, RideState
from dispatch import ride_day
from jobqueue.models import Job
from tests.booking.test_checkout import post, ride, server_amount
from tests.conftest import bearer
from tests.dispatch.conftest import assign
from tests.payments import fake_stripe
from tests.queued import run_pending_jobs
from tests.webhooks.receiver import Receiver
from webhooks import publishing, sending
from webhooks.models import Delivery, Endpoint, Event

pytestmark = pytest.mark.django_db

STAFF = "eva (staff)"


@pytest.fixture
def stripe(settings):
    with fake_stripe.installed(settings) as books:
        yield books


@pytest.fixture
def receivers(settings):
    settings.WEBHOOKS_PRIVATE_ADDRESSES = True  # the receivers run on this machine
    started: list[Receiver] = []

    def start() -> Receiver:
        started.append(Receiver())
        return started[-1]

    yield start
    for receiver in started:
        receiver.stop()


def add_endpoint(client, token: dict, url: str, **fields) -> dict:
    answer = post(client, "/api/v1/webhook-endpoints", {"url": url, **fields}, **token)
    assert answer.status_code == 201, answer.content
    return answer.json()


def book_and_pay(client, token: dict, stripe, **overrides) -> Booking:
    data = ride(vehicleClass="business-van", **overrides)
    body = {"amount": server_amount(client, data), "bookingData": data}
    answer = post(client, "/api/v1/checkout", body, **token)
    assert answer.status_code == 201, answer.content
    session = next(iter(reversed(stripe.sessions.values())))
    stripe.pay(client, session.id)
    return Booking.objects.get(reference=answer.json()["reference"])


def change_pickup(client, token: dict, booking: Booking, hours: int) -> None:
    moved = timezone.localtime(booking.pickup_at + timedelta(hours=hours)).isoformat()
    path = f"/api/v1/bookings/{booking.reference}"
    quoted = post(client, f"{path}/change-quotes", {"pickupDatetime": moved}, **token)
    assert quoted.status_code == 201, quoted.content
    made = post(client, f"{path}/changes", {"changeQuoteId": quoted.json()["id"]}, **token)
    assert made.status_code == 200, made.content


def ride_the_day(booking: Booking) -> None:
    booking.refresh_from_db()
    with time_machine.travel(booking.pickup_at - timedelta(minutes=30), tick=False) as clock:
        for state in (RideState.ACCEPTED, RideState.ON_THE_WAY, RideState.ARRIVED):
            ride_day.advance(booking.pk, state, driver=None, actor=STAFF)
        clock.move_to(booking.pickup_at + timedelta(minutes=5))
        ride_day.advance(booking.pk, RideState.ON_BOARD, driver=None, actor=STAFF)
        clock.move_to(booking.pickup_at + timedelta(minutes=40))
        ride_day.advance(booking.pk, RideState.COMPLETED, driver=None, actor=STAFF)


WHOLE_DAY = [
    "booking.paid",
    "chauffeur.assigned",
    "booking.confirmed",
    "booking.changed",
    "booking.pickup_moved",
    "ride.on_the_way",
    "ride.arrived",
    "ride.on_board",
    "ride.completed",
]


def test_a_tokens_endpoint_hears_each_event_of_its_bookings_once_in_order(
    client, agent, stripe, fleet, receivers
):
    mine, theirs, staffs = receivers(), receivers(), receivers()
    endpoint = add_endpoint(client, agent, mine.url, description="our booking system")
    other = bearer("booking.read", "booking.write")
    their_endpoint = add_endpoint(client, other, theirs.url)
    staff_endpoint = Endpoint.objects.create(url=staffs.url)  # added in the admin: every booking
    book_and_pay(client, other, stripe)  # the other token's own booking: theirs to hear of

    booking = book_and_pay(client, agent, stripe)
    assign(booking, fleet["karl"], fleet["van"])
    change_pickup(client, agent, booking, hours=1)
    ride_the_day(booking)
    run_pending_jobs()

    assert mine.types(endpoint["secret"]) == WHOLE_DAY
    events = mine.events(endpoint["secret"])
    assert {event["data"]["reference"] for event in events} == {booking.reference}
    assert len({request.headers["webhook-id"] for request in mine.received}) == len(WHOLE_DAY)
    changed = events[WHOLE_DAY.index("booking.changed")]["data"]["changes"]
    assert set(changed) == {"pickupDatetime"}
    assert events[-1]["data"]["status"] == "completed" and events[-1]["data"]["rideState"] == "completed"
    assert events[1]["data"]["chauffeur"] == {"name": "Karl Huber", "vehicle": "E-Class", "plate": "W-3000C"}
    assert theirs.types(their_endpoint["secret"]) == ["booking.paid"]  # never this token's booking
    staff_types = staffs.types(staff_endpoint.secret)
    assert staff_types == ["booking.paid", *WHOLE_DAY]  # the other token's payment, then this whole day
    assert not Delivery.objects.exclude(state=Delivery.State.DELIVERED).exists()


def test_a_receiver_that_is_down_gets_the_events_after_its_backoff_still_in_order(
    client, agent, stripe, fleet, receivers
):
    receiver = receivers()
    endpoint = add_endpoint(client, agent, receiver.url)
    receiver.status = 503
    booking = book_and_pay(client, agent, stripe)
    run_pending_jobs()
    (paid,) = Delivery.objects.all()
    assert (paid.state, paid.attempts, paid.last_status) == ("pending", 1, 503)
    assert paid.next_attempt_at == paid.last_attempt_at + timedelta(seconds=5)

    assign(booking, fleet["karl"], fleet["van"])  # two events more, held behind the first
    run_pending_jobs()
    assert len(receiver.received) == 1

    receiver.status = 204
    with time_machine.travel(timezone.now() + timedelta(seconds=6)):
        run_pending_jobs()

    assert receiver.types(endpoint["secret"]) == ["booking.paid", "chauffeur.assigned", "booking.confirmed"]
    first, again = receiver.received[:2]
    assert first.headers["webhook-id"] == again.headers["webhook-id"]  # the retry of the same event
    assert set(Delivery.objects.values_list("state", flat=True)) == {"delivered"}


def test_a_receiver_down_for_good_is_paused_staff_are_told_once_and_resuming_sends_what_waited(
    client, agent, stripe, fleet, receivers, settings, mailoutbox
):
    settings.WEBHOOKS_RETRY_SECONDS, settings.OPERATOR_EMAIL = (1, 1), "ops@chauffeur.test"
    receiver = receivers()
    endpoint = add_endpoint(client, agent, receiver.url)
    receiver.status = 500
    booking = book_and_pay(client, agent, stripe)
    now = timezone.now()
    for seconds in (0, 2, 4):
        with time_machine.travel(now + timedelta(seconds=seconds)):
            run_pending_jobs()

    (failed,) = Delivery.objects.all()
    assert (failed.state, failed.attempts) == ("failed", 3)
    paused = Endpoint.objects.get()
    assert paused.paused_at is not None and "HTTP 500" in paused.pause_reason
    alerts = [mail for mail in mailoutbox if mail.to == ["ops@chauffeur.test"] and "paused" in mail.subject]
    assert len(alerts) == 1 and receiver.url in alerts[0].body
    shown = client.get(f"/api/v1/webhook-endpoints/{endpoint['id']}", **agent).json()
    assert shown["pausedAt"] is not None and shown["pauseReason"] == paused.pause_reason

    receiver.status = 204
    assign(booking, fleet["karl"], fleet["van"])  # while paused: kept, not sent
    run_pending_jobs()
    assert len(receiver.received) == 3
    assert Delivery.objects.filter(state="pending").count() == 2

    resumed = post(client, f"/api/v1/webhook-endpoints/{endpoint['id']}/resume", {}, **agent)
    assert resumed.status_code == 200 and resumed.json()["pausedAt"] is None
    run_pending_jobs()
    # the one that failed every retry first, then what waited behind it: each once, in order
    assert receiver.types(endpoint["secret"]) == ["booking.paid", "chauffeur.assigned", "booking.confirmed"]
    assert receiver.received[3].headers["webhook-id"] == failed.event.public_id
    assert set(Delivery.objects.values_list("state", flat=True)) == {"delivered"}

    sending.replay(failed)  # staff send one again (the admin's action): the same id, for the receiver to skip
    run_pending_jobs()
    assert receiver.received[-1].headers["webhook-id"] == failed.event.public_id
    assert len([mail for mail in mailoutbox if "paused" in mail.subject]) == 1


def test_cancelling_tells_of_the_cancel_and_the_refund_and_an_undone_step_is_told_too(
    client, agent, stripe, fleet, receivers
):
    receiver = receivers()
    endpoint = add_endpoint(client, agent, receiver.url, eventTypes=["booking.cancelled", "booking.refunded"])
    booking = book_and_pay(client, agent, stripe)
    answer = post(client, f"/api/v1/bookings/{booking.reference}/cancel", {}, **agent)
    assert answer.status_code == 200, answer.content
    run_pending_jobs()

    events = receiver.events(endpoint["secret"])
    assert [event["type"] for event in events] == ["booking.cancelled", "booking.refunded"]
    assert events[1]["data"]["refund"] == {"amount": "93.00", "currency": "EUR"}

    undone_receiver = receivers()
    watched = add_endpoint(
        client, agent, undone_receiver.url, eventTypes=["ride.step_undone", "ride.arrived"]
    )
    other = book_and_pay(client, agent, stripe)
    assign(other, fleet["karl"], fleet["van"])
    with time_machine.travel(other.pickup_at - timedelta(minutes=30), tick=False):
        for state in (RideState.ACCEPTED, RideState.ON_THE_WAY, RideState.ARRIVED):
            ride_day.advance(other.pk, state, driver=None, actor=STAFF)
        ride_day.undo_last(other.pk, actor=STAFF)
    run_pending_jobs()
    told = undone_receiver.events(watched["secret"])
    assert [event["type"] for event in told] == ["ride.arrived", "ride.step_undone"]
    assert told[1]["data"]["undoneRideState"] == "arrived"


def test_a_move_rolled_back_tells_nobody(client, agent, stripe, receivers):
    receiver = receivers()
    add_endpoint(client, agent, receiver.url)
    booking = book_and_pay(client, agent, stripe)
    run_pending_jobs()
    events, jobs = Event.objects.count(), Job.objects.count()

    with pytest.raises(RuntimeError), transaction.atomic():
        transitions.apply(Booking.objects.get(pk=booking.pk), "cancelled", actor=STAFF)
        raise RuntimeError("the cancel's refund failed")

    assert (Event.objects.count(), Job.objects.count()) == (events, jobs)
    run_pending_jobs()
    assert len(receiver.received) == 1


def test_a_booking_being_sent_by_another_worker_waits_for_its_lease(receivers):
    receiver = receivers()
    endpoint = Endpoint.objects.create(url=receiver.url)
    for event_type in ("booking.paid", "booking.confirmed"):
        publishing.publish(event_type, subject="CB-LEASE1", data={}, audience=[])
    leased_until = timezone.now() + timedelta(seconds=45)
    Delivery.objects.filter(pk=Delivery.objects.order_by("event_id").first().pk).update(
        sending_until=leased_until
    )
    Job.objects.all().delete()

    assert sending.send_stream(endpoint.pk, "CB-LEASE1") == 0  # neither the leased one nor the one behind it
    assert receiver.received == []
    (comeback,) = Job.objects.filter(task_path="webhooks.sending.send_deliveries")
    assert comeback.run_after == leased_until  # back when the lease ends, had its worker vanished

    with time_machine.travel(leased_until + timedelta(seconds=1)):
        run_pending_jobs()
    assert receiver.types(endpoint.secret) == ["booking.paid", "booking.confirmed"]
    assert not Delivery.objects.filter(sending_until__isnull=False).exists()


def test_an_answer_with_a_nul_byte_is_kept_without_it(receivers):
    receiver = receivers()
    receiver.status, receiver.answer = 500, b"broken\x00answer"
    endpoint = Endpoint.objects.create(url=receiver.url)
    publishing.publish("booking.paid", subject="CB-NUL001", data={}, audience=[])
    run_pending_jobs()

    delivery = Delivery.objects.get(endpoint=endpoint)
    assert (delivery.state, delivery.attempts, delivery.last_status) == ("pending", 1, 500)
    assert delivery.last_answer == "brokenanswer"
    assert len(receiver.received) == 1


def test_a_cheaper_change_is_told_before_its_refund_and_the_same_assignment_again_is_not_news(
    client, agent, stripe, fleet, receivers
):
    receiver = receivers()
    endpoint = add_endpoint(client, agent, receiver.url)
    booking = book_and_pay(client, agent, stripe)
    path = f"/api/v1/bookings/{booking.reference}"
    quoted = post(client, f"{path}/change-quotes", {"vehicleClass": "executive"}, **agent).json()
    assert quoted["settlement"] == "refund"
    assert post(client, f"{path}/changes", {"changeQuoteId": quoted["id"]}, **agent).status_code == 200
    assign(booking, fleet["karl"], fleet["sedan"])
    assign(booking, fleet["karl"], fleet["sedan"])  # staff save the same choice again
    run_pending_jobs()

    assert receiver.types(endpoint["secret"]) == [
        "booking.paid",
        "booking.changed",
        "booking.refunded",
        "chauffeur.assigned",
        "booking.confirmed",
    ]
    changed = receiver.events(endpoint["secret"])[1]["data"]["changes"]
    assert changed["vehicleClass"] == {"before": "business-van", "after": "executive"}
    assert set(changed) == {"vehicleClass", "price"}


def test_events_every_endpoint_has_are_removed_after_their_days(receivers, settings):
    from webhooks.tasks import remove_old_events

    receiver = receivers()
    Endpoint.objects.create(url=receiver.url)
    delivered = publishing.publish("booking.paid", subject="CB-OLD001", data={}, audience=[])
    run_pending_jobs()
    receiver.status = 503
    waiting = publishing.publish("booking.paid", subject="CB-OLD002", data={}, audience=[])
    run_pending_jobs()

    with time_machine.travel(timezone.now() + timedelta(days=settings.WEBHOOKS_KEEP_DAYS, hours=1)):
        assert remove_old_events.call() == 1

    assert list(Event.objects.values_list("pk", flat=True)) == [waiting.pk]
    assert not Delivery.objects.filter(event_id=delivered.pk).exists()
