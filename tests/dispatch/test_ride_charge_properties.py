"""One charge per cause, as a property: any sequence of the chauffeur's moves (waits of any length, a no-show),
staff's undo, the traveller paying the open links, and a Stripe that refuses refunds for a while, against a
Stripe that keeps its own books (tests/payments/fake_stripe.py). After every step:

- what a cause (waiting, no-show fee) asks or keeps is exactly what the ride as it stands owes for it:
  never more (no second charge), and nothing once the move that charged it is undone;
- at most one open amount per cause;
- every refund of a paid charge went back at Stripe, or waits while the operator was alerted;
- Stripe's books and ours agree, and nothing is refunded that was not charged;
- invoices − credit notes = received − refunded."""

from datetime import timedelta

import pytest
import responses
from django.core import mail
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apikit.errors import DomainError
from booking import ride as rides
from booking.models import Booking, RideState
from dispatch import ride_billing, ride_day
from invoicing import invoices
from payments import document_balance
from payments.models import Refund, Surcharge
from pricing.money import to_cents
from tests.conftest import clear_shared_cache
from tests.dispatch.conftest import assign
from tests.dispatch.test_ride_billing import move
from tests.dispatch.test_ride_charges_once import charged_cents
from tests.payments.fake_stripe import FakeStripe
from tests.payments.ledger_rows import paid_through_checkout
from tests.payments.stripe_events import use_stripe

pytestmark = pytest.mark.django_db
ORDER = [RideState.ACCEPTED, RideState.ON_THE_WAY, RideState.ARRIVED, RideState.ON_BOARD, RideState.COMPLETED]
NEXT = st.tuples(st.just("next"), st.integers(0, 60))  # the next move; its minutes where they matter
STEPS = st.one_of(
    NEXT,
    NEXT,  # moves the most often, so that sequences reach the end of the ride and go on
    st.tuples(st.just("no_show")),
    st.tuples(st.just("undo")),
    st.tuples(st.just("pay")),
    st.tuples(st.just("refuse_refunds"), st.booleans()),
)


@pytest.fixture(autouse=True)
def stripe_settings(settings):
    use_stripe(settings)  # once per test: hypothesis runs the body many times
    settings.PUBLIC_BASE_URL = "https://chauffeur.test"


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    start=st.sampled_from([0, 3, 4, 4]),
    board=st.integers(16, 75),
    steps=st.lists(STEPS, min_size=4, max_size=20),
    underpaid=st.booleans(),
)
def test_no_sequence_of_moves_undos_and_payments_charges_a_cause_twice(
    start, board, steps, underpaid, fleet, ride, client, django_capture_on_commit_callbacks
):
    """`start`: how many moves the chauffeur made before (up to "passenger on board", `board` minutes after
    the arrival: a wait beyond the included), so that most sequences play around the end of the ride."""
    clear_shared_cache()
    mail.outbox.clear()
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock, transaction.atomic():
        rollback = transaction.savepoint()
        stripe = FakeStripe().install(mock)
        booking = paid_ride(ride, fleet, stripe, underpaid=underpaid)
        for _ in range(start):
            run(("next", board), booking, fleet["karl"], stripe, client)
        for step in steps:
            with django_capture_on_commit_callbacks(execute=True):
                run(step, booking, fleet["karl"], stripe, client)
            check(Booking.objects.get(pk=booking.pk), stripe)
        transaction.savepoint_rollback(rollback)


def paid_ride(ride, fleet, stripe: FakeStripe, *, underpaid: bool) -> Booking:
    """74 EUR paid at Stripe and invoiced; `underpaid`: its price was raised to 90 EUR, not yet paid (a
    no-show then owes the rest of its fee)."""
    pickup = (timezone.now() + timedelta(hours=3)).replace(second=0, microsecond=0)
    booking = ride(pickup=pickup, payment_provider="stripe")
    assign(booking, fleet["karl"], fleet["sedan"])
    session, intent = stripe.paid_booking(booking.reference, booking.amount_cents)
    paid_through_checkout(booking, session, intent)
    booking.refresh_from_db()
    invoices.issue(booking)
    if underpaid:
        Booking.objects.filter(pk=booking.pk).update(amount_cents=9000)
    return Booking.objects.get(pk=booking.pk)


def run(step: tuple, booking: Booking, driver, stripe: FakeStripe, client) -> None:
    kind, pickup = step[0], booking.pickup_at
    state = rides.progress(booking).state
    try:
        if kind == "next" and state not in rides.FINAL:
            target = ORDER[ORDER.index(state) + 1] if state else ORDER[0]
            move(booking, target, moment(booking, target, step[1]), driver)
        elif kind == "no_show" and state == RideState.ARRIVED:
            move(booking, RideState.NO_SHOW, pickup + timedelta(minutes=80), driver)
        elif kind == "undo":
            ride_day.undo_last(booking.pk, actor="eva (staff)")
        elif kind == "pay":
            for session in stripe.open_sessions():
                stripe.pay(client, session)
        elif kind == "refuse_refunds":
            stripe.refusing_refunds = step[1]
    except DomainError:
        pass  # a move refused: what the books say is checked all the same


def moment(booking: Booking, target: str, minutes: int):
    """When the chauffeur makes a move: before the pickup on the way, up to 10 minutes late at it, the
    passenger on board up to an hour after that, completed half an hour later."""
    pickup, progress = booking.pickup_at, rides.progress(booking)
    if target in (RideState.ACCEPTED, RideState.ON_THE_WAY):
        return pickup - timedelta(minutes=40)
    if target == RideState.ARRIVED:
        return pickup + timedelta(minutes=minutes % 11)
    if target == RideState.ON_BOARD:
        return progress.at(RideState.ARRIVED) + timedelta(minutes=minutes)
    return progress.at(RideState.ON_BOARD) + timedelta(minutes=30)


def due(booking: Booking) -> dict[str, int]:
    """What the ride as it stands owes per cause, reckoned here from its live moves and the tariff."""
    progress = rides.progress(booking)
    owed = {Surcharge.Reason.WAITING: 0, Surcharge.Reason.NO_SHOW: 0}
    if (
        progress.state == RideState.COMPLETED
        and (waited := ride_billing.waited(booking, progress)) is not None
    ):
        owed[Surcharge.Reason.WAITING] = to_cents(ride_billing.price_waiting(booking, waited).amount)
    if progress.state == RideState.NO_SHOW:
        owed[Surcharge.Reason.NO_SHOW] = max(
            0, booking.amount_cents - 7400
        )  # the 100 % fee less what was paid
    return owed


def check(booking: Booking, stripe: FakeStripe) -> None:
    for cause, amount in due(booking).items():
        assert charged_cents(booking, cause) == amount, (cause, amount)
        assert booking.surcharges.filter(reason=cause, status="pending").count() <= 1
    alerted = " ".join(message.body for message in mail.outbox if message.to == ["dispatch@chauffeur.test"])
    for refund in Refund.objects.filter(booking=booking, surcharge__isnull=False):
        if refund.status == "succeeded":
            assert stripe.refunded.get(refund.payment_intent_id, 0) >= refund.amount_cents
        else:  # on its way: Stripe refused it, and the operator knows
            assert refund.status == "pending" and "could not be sent to the payment provider" in alerted
    succeeded = Refund.objects.filter(booking=booking, method="provider", status="succeeded")
    assert sum(stripe.refunded.values()) == sum(succeeded.values_list("amount_cents", flat=True))
    assert all(stripe.refunded[intent] <= stripe.charged[intent] for intent in stripe.refunded)
    balance = document_balance.balance(booking)
    assert balance.adds_up, balance
