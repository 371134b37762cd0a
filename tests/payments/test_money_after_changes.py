"""Money after staff change a paid ride, against a Stripe that keeps its own
books (tests/payments/fake_stripe.py): a change back never refunds a difference that was only asked for,
cancelling withdraws open payment links, money that still arrives through one goes back to its own
payment, and the late-cancel fee is a share of what was paid, not of an unpaid price."""

from datetime import timedelta
from decimal import Decimal

import pytest
import responses
from django.core import mail
from django.utils import timezone

from booking.models import Booking
from dispatch import changes
from payments import cancellation, refunds
from payments.models import Payment, Refund, Surcharge
from tests.payments.fake_stripe import FakeStripe
from tests.payments.ledger_rows import own_intent, paid_through_checkout, received_cents
from tests.payments.stripe_events import use_stripe

pytestmark = pytest.mark.django_db
STAFF = "eva (staff)"


@pytest.fixture
def stripe(settings):
    use_stripe(settings)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield FakeStripe().install(mock)


@pytest.fixture
def booking(make_booking, stripe):
    """Paid 74 EUR through Stripe; the pickup four days ahead, so cancelling is free until a day before."""
    pickup = (timezone.localtime() + timedelta(days=4)).replace(hour=11, minute=0, second=0, microsecond=0)
    made = make_booking(
        status="paid",
        paid_at=timezone.now(),
        payment_provider="stripe",
        email="anna@example.com",
        distance_km=Decimal("21.8"),
        duration_s=1455,
        in_zone_a=True,
        pickup_at=pickup,
    )
    session, intent = stripe.paid_booking(made.reference, 7400)
    paid_through_checkout(made, session, intent)
    made.refresh_from_db()
    return made


def change(booking, vehicle_class, *, django_capture_on_commit_callbacks, through_provider=True):
    with django_capture_on_commit_callbacks(execute=True):
        return changes.change_ride(
            booking.pk,
            pickup=booking.pickup_at,
            vehicle_class=vehicle_class,
            through_provider=through_provider,
            actor=STAFF,
        )


def cancel(booking, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        return cancellation.cancel(booking.pk, actor="the customer")


def link(surcharge: Surcharge) -> str:
    return surcharge.provider_session_id


def test_a_change_back_withdraws_the_open_link_and_refunds_nothing(
    booking, stripe, django_capture_on_commit_callbacks
):
    up = change(booking, "first", django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    assert str(up.settlement) == "a payment link for 42.00 EUR e-mailed to the customer"
    opened = Surcharge.objects.get()

    back = change(booking, "executive", django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)

    assert str(back.settlement) == "the open payment link is withdrawn: nothing more to pay or refund"
    assert not Refund.objects.exists() and stripe.refunded == {}
    opened.refresh_from_db()
    assert opened.status == "waived" and stripe.sessions[link(opened)].status == "expired"
    stored = Booking.objects.get()
    assert (stored.amount_cents, received_cents(stored), stripe.net()) == (7400, 7400, 7400)


def test_a_second_change_asks_for_what_is_owed_in_one_new_link(
    booking, stripe, django_capture_on_commit_callbacks, settings
):
    change(booking, "first", django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    # Staff lower the first class's price: 116 -> 100; the customer now owes 26, not 42 + (-16).
    from pricing.models import Tariff
    from pricing.services import TARIFFS

    Tariff.objects.filter(vehicle_class__code="first").update(base_fare=Decimal("14.00"))
    TARIFFS.announce()
    changed = changes.change_ride(
        booking.pk,
        pickup=booking.pickup_at + timedelta(hours=1),
        vehicle_class="first",
        through_provider=True,
        actor=STAFF,
    )
    waived, fresh = Surcharge.objects.order_by("pk")
    assert (waived.status, fresh.status) == ("waived", "pending")
    owed = changed.booking.amount_cents - 7400
    assert fresh.amount_cents == owed and 0 < owed < 4200


def test_cancelling_withdraws_open_links_and_the_fee_is_a_share_of_what_was_paid(
    booking, stripe, django_capture_on_commit_callbacks
):
    change(booking, "first", django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    opened = Surcharge.objects.get()
    Booking.objects.filter(pk=booking.pk).update(pickup_at=timezone.now() + timedelta(hours=5))  # late

    cancelled = cancel(booking, django_capture_on_commit_callbacks)

    assert cancelled.cancellation_fee_cents == 3700  # 50 % of the 74 paid, not of the unpaid 116
    opened.refresh_from_db()
    assert opened.status == "waived" and stripe.sessions[link(opened)].status == "expired"
    assert stripe.net() == 3700 and received_cents(Booking.objects.get()) == 7400


def test_money_through_a_withdrawn_link_goes_back_to_its_own_payment(
    booking, stripe, client, django_capture_on_commit_callbacks
):
    change(booking, "first", django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    opened = Surcharge.objects.get()
    stripe.sessions[link(opened)].status = "open"
    # The customer cancels; the page closing is too late: they paid the link meanwhile.
    with django_capture_on_commit_callbacks(execute=True):
        cancellation.cancel(booking.pk, actor="the customer")
        stripe.pay(client, link(opened))

    stored = Booking.objects.get()
    paid_link = stripe.sessions[link(opened)].intent
    assert stripe.refunded[paid_link] == 4200  # to the link's own payment, all of it
    assert stripe.net() == stored.cancellation_fee_cents == 0  # cancelled four days ahead: free
    assert received_cents(stored) - refunds.committed_cents(stored) == 0
    opened.refresh_from_db()
    assert opened.status == "waived" and opened.payment_intent_id == paid_link


def test_a_late_link_payment_the_provider_will_not_refund_is_alerted(
    booking, stripe, client, django_capture_on_commit_callbacks
):
    change(booking, "first", django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    opened = Surcharge.objects.get()
    cancel(booking, django_capture_on_commit_callbacks)
    stripe.sessions[link(opened)].status = "open"  # the page's closing never reached Stripe
    stripe.refusing_refunds = True
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        stripe.pay(client, link(opened))

    alert = next(message for message in mail.outbox if "dispatch@chauffeur.test" in message.to)
    assert "withdrawn payment link" in alert.body and "42.00" in alert.body
    stored = Booking.objects.get()
    assert received_cents(stored) - refunds.committed_cents(stored) == 4200  # kept, and the operator told


def test_a_cancellation_after_a_paid_difference_refunds_each_payment_its_own_share(
    booking, stripe, client, django_capture_on_commit_callbacks
):
    change(booking, "first", django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    stripe.pay(client, link(Surcharge.objects.get()))
    assert received_cents(Booking.objects.get()) == 11600

    cancel(booking, django_capture_on_commit_callbacks)

    assert stripe.net() == 0 and sorted(stripe.refunded.values()) == [4200, 7400]
    assert sorted(Refund.objects.values_list("amount_cents", flat=True)) == [4200, 7400]


def test_a_price_change_on_a_difference_collected_by_staff_is_refunded_partly_by_staff(
    booking, stripe, django_capture_on_commit_callbacks
):
    change(
        booking,
        "first",
        through_provider=False,
        django_capture_on_commit_callbacks=django_capture_on_commit_callbacks,
    )
    assert received_cents(Booking.objects.get()) == 11600

    cancel(booking, django_capture_on_commit_callbacks)

    assert stripe.refunded == {own_intent(booking): 7400}  # what Stripe charged goes back there
    owed = Refund.objects.get(method="manual")
    assert (owed.amount_cents, owed.status) == (4200, "pending")  # the cash staff took: owed by staff


def test_a_links_payment_waits_in_the_ledger_until_paid_or_withdrawn(
    booking, stripe, client, django_capture_on_commit_callbacks
):
    """The ledger knows a link's payment from the moment its page opens: waiting, then received with the
    provider's payment intent, on the same row; a withdrawn link's payment is cancelled and counts nothing."""
    change(booking, "first", django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    opened = Surcharge.objects.get()
    waiting = Payment.objects.get(surcharge=opened)
    assert (waiting.kind, waiting.state, waiting.provider_session_id, waiting.amount_cents) == (
        "link",
        "pending",
        opened.provider_session_id,
        4200,
    )
    assert received_cents(booking) == 7400  # waiting money is not received
    with django_capture_on_commit_callbacks(execute=True):
        stripe.pay(client, opened.provider_session_id)
    waiting.refresh_from_db()
    assert (waiting.state, waiting.payment_intent_id) == (
        "received",
        Surcharge.objects.get().payment_intent_id,
    )
    assert Payment.objects.filter(surcharge=opened).count() == 1 and received_cents(booking) == 11600


def test_a_withdrawn_links_payment_is_cancelled_in_the_ledger(booking, django_capture_on_commit_callbacks):
    change(booking, "first", django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    change(booking, "executive", django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    withdrawn = Payment.objects.get(surcharge=Surcharge.objects.get())
    assert (withdrawn.state, withdrawn.received_at) == ("cancelled", None)
    assert received_cents(booking) == 7400
