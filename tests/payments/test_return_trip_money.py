"""The money invariants over a return trip as a property: two rides paid by one Stripe payment, then any
sequence of changes, goodwill refunds, late pickups and cancellations of either ride, against a Stripe that
keeps its own books (tests/payments/fake_stripe.py):

- Stripe's books and ours agree over the trip's one payment intent, and nothing goes back to it beyond what
  it charged; each ride gets back no more than its share of it;
- each ride's invoices less its credit notes are what it received less what went back;
- a cancelled ride keeps exactly its fee under its own terms (the other ride's money untouched by it), a ride
  that is on holds plus asks for no more than its price."""

from datetime import timedelta

import pytest
import responses
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apikit.errors import DomainError
from booking import trips
from booking.checkout import BookingRequest, WayBack
from booking.models import Booking
from dispatch import changes
from payments import cancellation, document_balance, ledger, refunds
from payments.checkout import start_checkout
from tests.conftest import clear_shared_cache
from tests.payments.conftest import refund_booking
from tests.payments.fake_stripe import FakeStripe
from tests.payments.stripe_events import use_stripe

pytestmark = pytest.mark.django_db

LEGS = st.sampled_from([0, 1])
STEPS = st.one_of(
    st.tuples(st.just("cancel"), LEGS, st.booleans()),
    st.tuples(st.just("refund"), LEGS, st.integers(1, 9000), st.booleans()),
    st.tuples(st.just("late"), LEGS),
    st.tuples(st.just("change"), LEGS, st.sampled_from(["executive", "first"])),
)


@pytest.fixture(autouse=True)
def stripe_settings(settings):
    use_stripe(settings)
    settings.PUBLIC_BASE_URL = "https://chauffeur.test"


def paid_trip(client, stripe: FakeStripe) -> list[Booking]:
    pickup = (timezone.localtime() + timedelta(days=4)).replace(hour=11, minute=0, second=0, microsecond=0)
    ride = BookingRequest(
        origin="Hotel Sacher",
        destination="Flughafen Wien",
        pickup=pickup,
        email="anna@example.com",
        way_back=WayBack(pickup=pickup + timedelta(days=2)),
    )
    priced = trips.price_the_trip(ride)
    amount = sum(round(leg.quote.price * 100) for _ride, leg in priced)
    way_out = start_checkout(amount_cents=amount, ride=ride).booking
    (session,) = stripe.open_sessions()
    stripe.pay(client, session)
    return trips.legs(Booking.objects.get(pk=way_out.pk))


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(STEPS, min_size=1, max_size=6))
def test_no_sequence_on_either_ride_loses_or_keeps_the_trips_money(
    steps, client, django_capture_on_commit_callbacks
):
    clear_shared_cache()
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock, transaction.atomic():
        rollback = transaction.savepoint()
        stripe = FakeStripe().install(mock)
        with django_capture_on_commit_callbacks(execute=True):
            legs = paid_trip(client, stripe)
        assert [leg.status for leg in legs] == ["paid", "paid"]
        goodwill = {leg.pk: 0 for leg in legs}
        for step in steps:
            pk = legs[step[1]].pk
            with django_capture_on_commit_callbacks(execute=True):
                goodwill[pk] += run(step, pk)
            check([Booking.objects.get(pk=leg.pk) for leg in legs], stripe, goodwill)
        transaction.savepoint_rollback(rollback)


def run(step: tuple, pk: int) -> int:
    """Do one step on one ride; the cents staff gave back as goodwill by it."""
    booking = Booking.objects.get(pk=pk)
    try:
        if step[0] == "cancel":
            cancellation.cancel(pk, actor="staff" if step[2] else "the customer", by_staff=step[2])
        elif step[0] == "refund":
            amount = min(step[2], refunds.refundable_cents(booking) or 1)
            refund_booking(pk, amount, reason="Goodwill.", actor="staff", manual=step[3])
            return amount
        elif step[0] == "late":
            Booking.objects.filter(pk=pk).update(pickup_at=timezone.now() + timedelta(hours=3))
        elif step[0] == "change":
            changes.change_ride(
                pk, pickup=booking.pickup_at, vehicle_class=step[2], through_provider=True, actor="staff"
            )
    except DomainError:
        pass  # refused: the books are checked all the same
    return 0


def check(legs: list[Booking], stripe: FakeStripe, goodwill: dict[int, int]) -> None:
    (intent,) = stripe.charged
    payment = ledger.payment_of_intent(legs[0], intent)
    assert payment is not None and stripe.charged[intent] == payment.amount_cents
    sent = sum(
        refund.amount_cents
        for leg in legs
        for refund in leg.refunds.filter(method="provider", status="succeeded", payment=payment)
    )
    assert stripe.refunded.get(intent, 0) == sent <= stripe.charged[intent]
    for leg in legs:
        share = payment.shares.get(booking=leg)
        back = leg.refunds.filter(status__in=refunds.COMMITTED, payment=payment)
        assert sum(back.values_list("amount_cents", flat=True)) <= share.amount_cents, leg
        balance = document_balance.balance(leg)
        assert balance.adds_up, balance
        held = ledger.received_cents(leg) - refunds.committed_cents(leg)
        asked = sum(leg.surcharges.filter(status="pending").values_list("amount_cents", flat=True))
        if leg.status == "cancelled":
            fee = leg.cancellation_fee_cents or 0
            assert held <= fee and (held == fee or goodwill[leg.pk]), (held, fee, goodwill)
            continue
        assert held + asked <= leg.amount_cents, (held, asked, leg.amount_cents)
        assert held + asked >= leg.amount_cents - goodwill[leg.pk], (held, asked, goodwill)
