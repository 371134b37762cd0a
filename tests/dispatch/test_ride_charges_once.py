"""One charge per cause after the ride (dispatch/ride_billing.py, payments/surcharges.py `bill`): an end of
the ride staff undo withdraws what it asked and gives back what was paid for it (through Stripe, or owed
by staff who are alerted), tells the traveller, and the end of the ride made again charges its cause once.
The rides and Stripe are those of test_ride_billing.py (Stripe faked at the HTTP boundary)."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core import mail
from django.db import transaction
from django.db.models import Sum

from booking import history
from booking.models import Booking, CancellationPolicy, RideState
from dispatch import changes, ride_day
from invoicing import invoices
from invoicing.models import CreditNote
from payments import document_balance, refunds, surcharges
from payments.models import Refund, Surcharge
from payments.providers.base import RefundState
from pricing.quote import PriceByHand
from tests.dispatch import test_ride_billing as billing
from tests.dispatch.test_ride_billing import after_ride_mails, move, no_show, payment_texts, ride_with_wait
from tests.payments.ledger_rows import own_intent, received_cents
from tests.queued import run_pending_jobs

pytestmark = pytest.mark.django_db
stripe, assigned, paid_at_stripe = billing.stripe, billing.assigned, billing.paid_at_stripe  # the fixtures
WAITING = Surcharge.Reason.WAITING


def charged_cents(booking: Booking, reason: str) -> int:
    """What a cause asks of the traveller or keeps: its open amounts and what it keeps paid."""
    open_ = booking.surcharges.filter(reason=reason, status=Surcharge.Status.PENDING)
    return (open_.aggregate(total=Sum("amount_cents"))["total"] or 0) + surcharges.kept_cents(booking, reason)


def invoiced(booking: Booking) -> Booking:
    with transaction.atomic():
        invoices.issue(booking)
    return booking


def undo(booking: Booking, capture) -> Booking:
    with capture(execute=True):
        ride_day.undo_last(booking.pk, actor="eva (staff)")
    booking.refresh_from_db()
    return booking


def complete_again(booking: Booking, driver, capture, *, minutes_after_pickup: int = 60) -> Booking:
    with capture(execute=True):
        move(
            booking, RideState.COMPLETED, booking.pickup_at + timedelta(minutes=minutes_after_pickup), driver
        )
    booking.refresh_from_db()
    return booking


def corrections():
    return [message for message in mail.outbox if message.subject.startswith(("Correction", "Korrektur"))]


def alerts():
    return [message for message in mail.outbox if message.to == ["dispatch@chauffeur.test"]]


def links_mailed():
    """The payment links the traveller got after the ride: one per after-ride e-mail that asks to pay."""
    return [message for message in after_ride_mails() if "Please pay" in message.body]


def test_paid_waiting_undone_goes_back_and_completing_again_charges_it_once(
    client, fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    booking = invoiced(paid_at_stripe())
    booking = ride_with_wait(booking, fleet["karl"], on_board=20, capture=capture)  # 5 min beyond: 12 EUR
    first = Surcharge.objects.get()
    stripe.pay(client, first.provider_session_id)
    first.refresh_from_db()
    assert (first.amount_cents, first.status) == (1200, "paid")

    booking = undo(booking, capture)  # "completed" undone: what was paid for the wait goes back
    [refund] = Refund.objects.all()
    assert (refund.surcharge, refund.amount_cents, refund.status, refund.method) == (
        first,
        1200,
        "succeeded",
        "provider",
    )
    assert stripe.refunded == {first.payment_intent_id: 1200}  # at Stripe, to the payment of the wait
    assert CreditNote.objects.get().invoice == first.invoice
    [correction] = corrections()
    assert correction.to == ["anna@example.com"] and booking.reference in correction.subject
    assert "The waiting time charged after this ride was taken back" in correction.body
    assert "The €12.00 you paid for it goes back to you the way you paid." in correction.body
    assert charged_cents(booking, WAITING) == 0

    booking = complete_again(booking, fleet["karl"], capture)  # the same wait: charged once, anew
    assert charged_cents(booking, WAITING) == 1200
    assert Surcharge.objects.filter(status="pending").count() == 1
    assert len(links_mailed()) == 2  # the first (refunded) and the one that stands
    assert stripe.net() == 7400  # nothing kept for the wait twice
    assert document_balance.balance(booking).adds_up


def test_an_open_waiting_link_undone_is_withdrawn_and_the_traveller_told(
    fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    booking = ride_with_wait(paid_at_stripe(), fleet["karl"], on_board=20, capture=capture)
    booking = undo(booking, capture)
    assert Surcharge.objects.get().status == "waived" and not Refund.objects.exists()
    [correction] = corrections()
    assert "The payment link for €12.00 is no longer valid; you need not pay it." in correction.body
    assert "goes back" not in correction.body


def test_completing_again_while_a_wait_is_still_paid_asks_only_the_difference(
    client, fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks
):
    """What a cause keeps paid counts: the end of the ride reckoned again asks only what is missing (a wait
    that grew) and gives back what is beyond (a wait that shrank), never a second full charge."""
    capture = django_capture_on_commit_callbacks
    booking = ride_with_wait(paid_at_stripe(), fleet["karl"], on_board=20, capture=capture)
    stripe.pay(client, Surcharge.objects.get().provider_session_id)
    paid = Surcharge.objects.get()
    because = history.said("the end of the ride was reckoned again")
    with capture(execute=True), transaction.atomic():
        locked = Booking.objects.select_for_update().get(pk=booking.pk)
        grown = surcharges.bill(locked, WAITING, 2400, online=True, actor="billing", because=because)
    assert (grown.kept_cents, grown.owed_cents, grown.back_cents) == (1200, 1200, 0)
    assert list(Surcharge.objects.filter(status="pending").values_list("amount_cents", flat=True)) == [1200]
    with capture(execute=True), transaction.atomic():
        locked = Booking.objects.select_for_update().get(pk=booking.pk)
        same = surcharges.bill(locked, WAITING, 2400, online=True, actor="billing", because=because)
    assert not same.changed  # asked and paid add up to it already: nothing new
    with capture(execute=True), transaction.atomic():
        locked = Booking.objects.select_for_update().get(pk=booking.pk)
        shrunk = surcharges.bill(locked, WAITING, 600, online=True, actor="billing", because=because)
    assert (shrunk.withdrawn_cents, shrunk.owed_cents, shrunk.back_cents) == (1200, 0, 600)
    assert stripe.refunded == {paid.payment_intent_id: 600}
    assert charged_cents(booking, WAITING) == 600


def test_an_undone_no_show_tells_the_traveller_the_fee_no_longer_applies(
    fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    booking = no_show(paid_at_stripe(), fleet["karl"], capture=capture)
    assert "a no-show costs 100 % of the price" in after_ride_mails()[0].body
    undo(booking, capture)
    [correction] = corrections()
    assert (
        "The no-show recorded for this ride was taken back: the fee our e-mail spoke of no longer applies."
        in (correction.body)
    )
    assert stripe.refunded == {}  # the ride's own payment stays: the ride goes on


def raised_by_hand(booking: Booking, *, through_provider: bool, capture) -> Booking:
    """Staff raise the ride's price by hand from 74 to 116 EUR: 42 EUR asked of the traveller."""
    with capture(execute=True):
        changes.change_ride(
            booking.pk,
            pickup=booking.pickup_at,
            vehicle_class=booking.vehicle_class,
            through_provider=through_provider,
            actor="eva (staff)",
            price_by_hand=PriceByHand(Decimal("116.00"), "Agreed congress price"),
        )
    booking.refresh_from_db()
    return booking


def test_an_undone_no_show_asks_again_the_price_difference_it_withdrew(
    client, fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks
):
    """The no-show's fee was taken of the whole 116 EUR, so it withdrew the 42 EUR link of the raise; undone,
    the ride goes on at 116 EUR with 74 paid: the 42 EUR are asked again, through a new link, not lost."""
    capture = django_capture_on_commit_callbacks
    booking = paid_at_stripe(distance_km=Decimal("21.8"))
    booking = raised_by_hand(booking, through_provider=True, capture=capture)
    booking = no_show(booking, fleet["karl"], capture=capture)
    assert not Surcharge.objects.filter(reason="change", status="pending").exists()
    mail.outbox.clear()
    booking = undo(booking, capture)
    [again] = Surcharge.objects.filter(status="pending")
    assert (again.reason, again.amount_cents, again.details["price_before"]) == ("change", 4200, 7400)
    assert again.provider_session_id in stripe.open_sessions()
    [link] = [message for message in mail.outbox if again.payment_url in message.body]
    assert link.to == ["anna@example.com"] and "went from €74.00 to €116.00" in link.body
    stripe.pay(client, again.provider_session_id)
    booking.refresh_from_db()
    assert (booking.amount_cents, received_cents(booking)) == (11600, 11600)


def test_an_undone_no_show_of_a_ride_paid_by_invoice_owes_the_difference_for_staff_to_collect(
    fleet, assigned, django_capture_on_commit_callbacks, sandbox
):
    capture = django_capture_on_commit_callbacks
    booking = assigned(payment_method="invoice", payment_provider="none", distance_km=Decimal("21.8"))
    booking = raised_by_hand(booking, through_provider=True, capture=capture)
    booking = undo(no_show(booking, fleet["karl"], capture=capture), capture)
    [again] = Surcharge.objects.filter(status="pending")
    assert (again.reason, again.amount_cents, again.method) == ("change", 4200, "manual")
    assert not again.payment_url
    assert "Owed for price difference: 42.00 EUR; to be collected by staff." in payment_texts(booking)


def test_an_undone_no_show_gives_back_its_fee_paid_online(
    client, fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    booking = paid_at_stripe()
    Booking.objects.filter(pk=booking.pk).update(amount_cents=9000)  # a change not yet paid for
    booking = no_show(booking, fleet["karl"], capture=capture)
    fee = Surcharge.objects.get(reason="no_show")
    stripe.pay(client, fee.provider_session_id)
    booking = undo(booking, capture)
    assert stripe.refunded == {Surcharge.objects.get(pk=fee.pk).payment_intent_id: 1600}
    assert "The €16.00 you paid for it goes back to you the way you paid." in corrections()[0].body
    assert charged_cents(booking, Surcharge.Reason.NO_SHOW) == 0


def test_a_wait_collected_by_staff_undone_is_owed_back_by_staff_one_click_away(
    admin_client, fleet, assigned, django_capture_on_commit_callbacks, sandbox, settings
):
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"
    capture = django_capture_on_commit_callbacks
    booking = invoiced(assigned(payment_method="invoice", payment_provider="none"))
    booking = ride_with_wait(booking, fleet["karl"], on_board=20, capture=capture)
    owed = Surcharge.objects.get()
    act = f"/admin/booking/booking/{booking.pk}/do/"
    assert admin_client.post(f"{act}charge-collected/", {"surcharge": owed.pk}).status_code == 302
    booking = undo(booking, capture)
    [refund] = Refund.objects.all()
    assert (refund.surcharge_id, refund.method, refund.status) == (owed.pk, "manual", "pending")
    [alert] = [message for message in alerts() if "Refund" in message.subject]
    page = f"/admin/booking/booking/{booking.pk}/change/"
    assert "cannot be refunded automatically" in alert.body and f"https://chauffeur.test{page}" in alert.body
    assert "We will pay the €12.00 you paid for it back to you" in corrections()[0].body
    assert "/do/refund-paid-back/" in admin_client.get(page).content.decode()  # the button beside it
    with capture(execute=True):  # the one click
        assert admin_client.post(f"{act}refund-paid-back/", {"refund": refund.pk}).status_code == 302
    refund.refresh_from_db()
    assert refund.status == "succeeded" and CreditNote.objects.get().refund == refund
    assert document_balance.balance(Booking.objects.get()).adds_up


def test_a_refund_the_provider_refuses_is_told_to_staff_once_and_tried_again(
    client, fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    booking = ride_with_wait(paid_at_stripe(), fleet["karl"], on_board=20, capture=capture)
    stripe.pay(client, Surcharge.objects.get().provider_session_id)
    paid = Surcharge.objects.get()
    stripe.refusing_refunds = True
    booking = undo(booking, capture)
    [refund] = Refund.objects.all()
    assert (refund.status, refund.provider_refund_id) == ("pending", None)  # recorded: it counts already
    assert charged_cents(booking, WAITING) == 0
    assert len([message for message in alerts() if "could not be sent" in message.body]) == 1
    run_pending_jobs()  # its backoff has not passed: nothing more is said
    assert len([message for message in alerts() if "could not be sent" in message.body]) == 1
    stripe.refusing_refunds = False
    refunds.send(refund.pk)  # the queue's retry, once the provider answers again
    refund.refresh_from_db()
    assert refund.status == "succeeded" and stripe.refunded == {paid.payment_intent_id: 1200}
    refunds.send(refund.pk)  # a second run sends nothing twice
    assert stripe.refunded == {paid.payment_intent_id: 1200}


def test_a_50_percent_no_show_undone_keeps_what_went_back_and_says_so_to_staff(
    fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks
):
    CancellationPolicy.objects.update_or_create(pk=1, defaults={"no_show_fee_percent": Decimal("50")})
    capture = django_capture_on_commit_callbacks
    booking = no_show(paid_at_stripe(), fleet["karl"], capture=capture)
    booking = undo(booking, capture)
    assert "What went back after the no-show stays refunded: if the ride goes on, settle it." in (
        payment_texts(booking)
    )
    assert len(corrections()) == 1 and stripe.refunded == {own_intent(booking): 3700}


def test_an_end_of_the_ride_undone_before_its_statement_went_out_sends_no_correction(
    fleet, assigned, django_capture_on_commit_callbacks, sandbox
):
    booking = assigned()
    pickup = booking.pickup_at
    for state, minutes in [
        (RideState.ACCEPTED, -40),
        (RideState.ON_THE_WAY, -40),
        (RideState.ARRIVED, 0),
        (RideState.ON_BOARD, 31),
    ]:
        move(booking, state, pickup + timedelta(minutes=minutes), fleet["karl"])
    move(booking, RideState.COMPLETED, pickup + timedelta(minutes=60), fleet["karl"])  # its jobs wait
    ride_day.undo_last(booking.pk, actor="eva (staff)")
    run_pending_jobs()
    assert after_ride_mails() == [] and corrections() == []


def test_a_waiting_refund_made_at_the_providers_dashboard_is_the_same_refund(
    client, fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks
):
    """Stripe refused to send it, so staff refunded at Stripe's dashboard: its news is the refund recorded
    here, not a second one (which would count the money back twice)."""
    capture = django_capture_on_commit_callbacks
    booking = ride_with_wait(paid_at_stripe(), fleet["karl"], on_board=20, capture=capture)
    stripe.pay(client, Surcharge.objects.get().provider_session_id)
    intent = Surcharge.objects.get().payment_intent_id
    stripe.refusing_refunds = True
    undo(booking, capture)
    with transaction.atomic():
        refunds.apply_refund_news(
            RefundState(
                refund_id="re_dashboard",
                payment_intent_id=intent,
                amount_cents=1200,
                currency="eur",
                status="succeeded",
                reference=booking.reference,
            ),
            actor="payment provider (webhook)",
        )
    [refund] = Refund.objects.all()
    assert (refund.provider_refund_id, refund.status, refund.surcharge.payment_intent_id) == (
        "re_dashboard",
        "succeeded",
        intent,
    )
    assert charged_cents(booking, WAITING) == 0
    refunds.send(refund.pk)  # the queue's retry finds it done: nothing is sent twice
    assert stripe.refunded == {}
