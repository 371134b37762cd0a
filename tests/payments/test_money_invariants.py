"""The money invariants as a property: any sequence of staff changes (through the provider or
collected by staff), payments of open links (some after their page failed to close), amounts staff
collect themselves, staff refunds and cancellations, in any order, against a Stripe that keeps its own
books (tests/payments/fake_stripe.py):

- nothing is refunded that was not received, at Stripe or in our books, and both books agree;
- over the ledger (payments/ledger.py): each payment through Stripe is what Stripe charged for its
  payment intent, and what went back to it is what Stripe refunded of it; no payment gets back more than
  it brought in; the invoices less the credit notes are what was received less what was refunded;
- a change never refunds while a payment link asks the customer for money;
- a ride that is on holds plus asks for no more than its price, and no less than its price less what staff
  gave back as goodwill;
- a cancelled ride keeps no more than its fee, unless the operator was alerted;

and all of it for a ride with passengers, luggage and extras too."""

from datetime import timedelta
from decimal import Decimal

import pytest
import responses
from django.core import mail
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apikit.errors import DomainError
from booking.models import Booking
from dispatch import changes
from invoicing import invoices
from payments import cancellation, document_balance, ledger, refunds, surcharges
from payments.models import Refund
from pricing.quote import ExtraChoice
from tests.conftest import clear_shared_cache
from tests.payments.conftest import refund_booking
from tests.payments.fake_stripe import FakeStripe
from tests.payments.ledger_rows import paid_through_checkout, received_cents
from tests.payments.stripe_events import use_stripe

pytestmark = pytest.mark.django_db

STEPS = st.one_of(
    st.tuples(st.just("change"), st.sampled_from(["executive", "first", "business-van"]), st.booleans()),
    st.tuples(st.just("pay_links")),
    st.tuples(st.just("collect")),
    st.tuples(st.just("lose_page_closing"), st.booleans()),
    st.tuples(st.just("refund"), st.integers(1, 12000), st.booleans()),
    st.tuples(st.just("cancel"), st.booleans()),
    st.tuples(
        st.just("late"),
    ),  # the pickup comes within the late-cancel window
)


# The ride as booked: nothing said, or passengers, luggage, extras and stops (three suitcases do not fit a First
# Class car: a change into it is refused; two child seats are 20 euros of the price, refunded in their share).
TRIPS = st.sampled_from(
    [
        {},
        {"passengers": 3, "luggage": 3, "extras": (ExtraChoice("child-seat", 2), ExtraChoice("name-sign"))},
        {"passengers": 2, "extras": (ExtraChoice("booster-seat"),)},
        # a stop with a wait: its line is priced again on every change
        {"stops": [{"address": "Stephansdom", "wait_minutes": 20}], "luggage": 1},
    ]
)


@pytest.fixture(autouse=True)
def stripe_settings(settings):
    use_stripe(settings)  # once per test: hypothesis runs the body many times


class ExpireFails(FakeStripe):
    """A Stripe whose page closings can be made to fail: a withdrawn link's page then stays payable."""

    losing_closings = False

    def _expire_session(self, request):
        if self.losing_closings:
            return 500, {}, '{"error": {"type": "api_error", "message": "try later"}}'
        return super()._expire_session(request)


def books(booking: Booking, stripe: FakeStripe) -> dict:
    provider_refunds = sum(
        Refund.objects.filter(booking=booking, method="provider", status="succeeded").values_list(
            "amount_cents", flat=True
        )
    )
    return {
        "held": received_cents(booking) - refunds.committed_cents(booking),
        "refunded_at_stripe": sum(stripe.refunded.values()),
        "refunded_in_books": provider_refunds,
    }


@settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(STEPS, min_size=1, max_size=8), trip=TRIPS)
def test_no_sequence_of_changes_payments_refunds_and_cancels_loses_or_keeps_money(
    steps, trip, make_booking, client, django_capture_on_commit_callbacks
):
    clear_shared_cache()
    mail.outbox.clear()
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock, transaction.atomic():
        rollback = transaction.savepoint()
        stripe = ExpireFails().install(mock)
        pickup = (timezone.localtime() + timedelta(days=4)).replace(
            hour=11, minute=0, second=0, microsecond=0
        )
        booking = make_booking(
            status="paid",
            paid_at=timezone.now(),
            payment_provider="stripe",
            email="anna@example.com",
            distance_km=Decimal("21.8"),
            duration_s=1455,
            in_zone_a=True,
            pickup_at=pickup,
            **trip,
        )
        session, intent = stripe.paid_booking(booking.reference, booking.amount_cents)
        paid_through_checkout(booking, session, intent)
        invoices.issue(booking)  # paid with its invoice, as payments/payment_updates.py does
        goodwill = 0
        for step in steps:
            with django_capture_on_commit_callbacks(execute=True):
                goodwill += run(step, booking.pk, stripe, client)
            check(Booking.objects.get(pk=booking.pk), stripe, goodwill)
        transaction.savepoint_rollback(rollback)


def run(step: tuple, pk: int, stripe: ExpireFails, client) -> int:
    """Do one step; the cents staff gave back as goodwill by it."""
    booking = Booking.objects.get(pk=pk)
    kind = step[0]
    try:
        if kind == "change":
            changes.change_ride(
                pk, pickup=booking.pickup_at, vehicle_class=step[1], through_provider=step[2], actor="staff"
            )
        elif kind == "pay_links":
            for session in stripe.open_sessions():
                stripe.pay(client, session)
        elif kind == "collect":
            for owed in booking.surcharges.filter(status="pending", payment__provider_session_id=None):
                surcharges.collect(pk, owed.pk, actor="staff")
        elif kind == "lose_page_closing":
            stripe.losing_closings = step[1]
        elif kind == "refund":
            amount = min(step[1], refunds.refundable_cents(booking) or 1)
            refund_booking(pk, amount, reason="Goodwill.", actor="staff", manual=step[2])
            return amount
        elif kind == "cancel":
            cancellation.cancel(pk, actor="staff" if step[1] else "the customer", by_staff=step[1])
        elif kind == "late":
            Booking.objects.filter(pk=pk).update(pickup_at=timezone.now() + timedelta(hours=3))
    except DomainError:
        pass  # refused: what the books say is checked all the same
    return 0


def check(booking: Booking, stripe: FakeStripe, goodwill: int) -> None:
    now = books(booking, stripe)
    assert now["refunded_at_stripe"] == now["refunded_in_books"], now
    assert all(stripe.refunded[intent] <= stripe.charged[intent] for intent in stripe.refunded)
    assert now["held"] >= 0, now
    online = sum(stripe.charged.values())
    manual = sum(booking.surcharges.filter(method="manual").values_list("amount_cents", flat=True))
    assert received_cents(booking) == online + manual, (received_cents(booking), online, manual)
    check_ledger(booking, stripe)
    alerted = any(
        "dispatch@chauffeur.test" in message.to and "check" in message.subject for message in mail.outbox
    )
    asking = booking.surcharges.filter(status="pending")
    for refund in booking.refunds.filter(reason="Price difference after a change."):
        assert not asking.filter(created_at__lt=refund.created_at).exists(), "refunded while asking"
    if booking.status == "cancelled":
        assert now["held"] <= (booking.cancellation_fee_cents or 0) or alerted, now
        return
    asked = sum(asking.values_list("amount_cents", flat=True))
    assert now["held"] + asked <= booking.amount_cents or alerted, (now, asked, booking.amount_cents)
    assert now["held"] + asked >= booking.amount_cents - goodwill, (
        now,
        asked,
        booking.amount_cents,
        goodwill,
    )


def check_ledger(booking: Booking, stripe: FakeStripe) -> None:
    """Per payment: our books are Stripe's, and nothing goes back that the payment did not bring in."""
    for share in ledger.received_shares(booking):
        payment = share.payment
        back = payment.refunds.filter(status__in=refunds.COMMITTED)
        assert sum(back.values_list("amount_cents", flat=True)) <= share.amount_cents, payment
        if ledger.through_provider(payment):
            intent = payment.payment_intent_id
            assert stripe.charged[intent] == payment.amount_cents, (intent, stripe.charged)
            sent = back.filter(method="provider", status="succeeded").values_list("amount_cents", flat=True)
            assert stripe.refunded.get(intent, 0) == sum(sent), (intent, stripe.refunded)
    assert set(stripe.charged) == {
        share.payment.payment_intent_id
        for share in ledger.received_shares(booking)
        if ledger.through_provider(share.payment)
    }
    balance = document_balance.balance(booking)
    assert balance.adds_up, balance
