"""Billing after the ride: waiting beyond what the price includes, and the no-show fee.

Worked out when the ride ends (the chauffeur's "completed" or "no-show"), in the move's own transaction,
and recorded there without calling anyone: what the traveller owes (a pending Surcharge) and, in the
history, how it was reckoned. The provider's part (a payment page, a refund) and the traveller's e-mail
follow as a job (payments/after_ride.py): a provider that fails never takes the chauffeur's move with it.
Waiting is billed at completion, not at "passenger on board": only then can the wait no longer change
(staff may still undo a too-early "on board" until the ride is completed), and the traveller hears of it
once, after the ride. One charge per cause: each end of the ride reckons what its cause is due and bills
only the difference to what is asked or paid for it already (payments/surcharges.py `bill`). Staff undoing
the move that charged withdraws what is still open and gives back what was paid (`void`), and the
traveller is told."""

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.db.models import Sum

from apikit.errors import DomainError
from booking import cancellation, history, ride
from booking import tasks as booking_tasks
from booking.models import Booking, PaymentMethod, RideState, RideStep
from dispatch import waiting
from payments import after_ride, ledger, refunds, surcharges
from payments import tasks as payment_tasks
from payments.models import Surcharge
from pricing import services as pricing
from pricing.money import from_cents, to_cents
from pricing.quote import BookingType, is_offered


@dataclass(frozen=True)
class Waiting:
    """A wait and its price: whole minutes waited, included and beyond, started quarter hours × rate."""

    waited_minutes: int
    included_minutes: int
    beyond_minutes: int
    blocks: int
    block_minutes: int
    rate: Decimal
    amount: Decimal  # gross, VAT included as in every quote
    vat: Decimal
    vat_rate: Decimal


def price_waiting(booking: Booking, waited: timedelta) -> Waiting:
    """What `waited` costs beyond the booking's included wait, at today's tariff of its class. Whole
    minutes count (a tap is never exact to the second: the seconds are the traveller's)."""
    included = int(waiting.included_waiting(booking).total_seconds() // 60)
    minutes = max(0, int(waited.total_seconds() // 60))
    beyond = max(0, minutes - included)
    quote = pricing.waiting_price(vehicle_class=booking.vehicle_class, wait_minutes=beyond)
    params = quote.lines[0].params
    return Waiting(
        waited_minutes=minutes,
        included_minutes=included,
        beyond_minutes=beyond,
        blocks=params["blocks"],
        block_minutes=params["block_minutes"],
        rate=Decimal(params["rate"]),
        amount=quote.price,
        vat=quote.vat,
        vat_rate=quote.vat_rate,
    )


def waited(booking: Booking, progress: ride.RideProgress) -> timedelta | None:
    """From when waiting counts (the pickup time, or a late chauffeur's arrival) to the passenger on board;
    None when there is nothing to bill: no such moves, or a hire priced by time from the pickup on (by the
    hour, or a tour), where a late passenger uses up their own hours, or a ride staff priced as an offer
    (its lines are the whole price)."""
    arrived, on_board = progress.at(RideState.ARRIVED), progress.at(RideState.ON_BOARD)
    if arrived is None or on_board is None:
        return None
    if booking.booking_type == BookingType.HOURLY or booking.tour_slug or is_offered(booking.quote):
        return None
    return on_board - waiting.waiting_starts(booking, arrived)


def settle(booking: Booking, *, actor: str) -> None:
    """Bill the ride that just ended (booking row-locked, inside the move's transaction): nothing unless
    its last move is "completed" or "no-show"."""
    progress = ride.progress(booking)
    step = booking.ride_steps.filter(undone_at__isnull=True).order_by("at", "pk").last()
    if not progress.finished or step is None:  # a finished ride has its last step
        return
    statement: dict | None
    keep: int | None
    if progress.state == RideState.NO_SHOW:
        statement, keep = _no_show(booking, actor=actor), cancellation.no_show_fee(booking).fee_cents
    else:
        statement, keep = _waiting(booking, progress, actor=actor), None
    if statement is not None:
        payment_tasks.settle_after_ride.enqueue(booking.pk, step.pk, statement, keep)


def void(booking: Booking, undone: RideStep, *, actor: str) -> None:
    """Staff undid `undone`: if it ended the ride, what it charged is withdrawn where still open and given
    back where paid, and the traveller hears of it (a no-show's fee always: its e-mail said it was due)."""
    if undone.state not in ride.FINAL:
        return
    given_back_before = refunds.committed_cents(booking)
    because = history.said("the end of the ride was undone")
    billed = surcharges.withdraw_ride_charges(booking, actor=actor, because=because)
    if given_back_before and undone.state == RideState.NO_SHOW:
        history.record(
            booking,
            history.Kind.PAYMENT,
            history.said("What went back after the no-show stays refunded: if the ride goes on, settle it."),
            actor=actor,
        )
    if undone.state == RideState.NO_SHOW:
        _ask_again(booking, actor=actor)
    if undone.state == RideState.NO_SHOW or any(each.changed for each in billed):
        correction = {
            "kind": "no_show" if undone.state == RideState.NO_SHOW else "waiting",
            "withdrawn": str(from_cents(sum(each.withdrawn_cents for each in billed))),
            "back": str(from_cents(sum(each.back_cents for each in billed))),
            "back_by_staff": str(from_cents(sum(each.back_by_staff_cents for each in billed))),
        }
        booking_tasks.send_charge_withdrawn.enqueue(booking.pk, undone.pk, correction)


def _ask_again(booking: Booking, *, actor: str) -> None:
    """A no-show withdrew the open price differences (its fee was taken of the whole price): once it is
    undone, the ride's price that is neither kept nor asked is asked again, as staff's change asked it
    (a payment link for a booking paid by checkout, else owed for staff to collect). What went back beyond
    the fee stays refunded (staff settle it, as the history says)."""
    if booking.payment_method == PaymentMethod.ACCOUNT:
        return  # the company's collective invoice bills the price
    beyond_the_fee = booking.refunds.filter(reason=after_ride.BEYOND_THE_FEE, status__in=refunds.COMMITTED)
    kept = (
        refunds.refundable_cents(booking)
        + (beyond_the_fee.aggregate(total=Sum("amount_cents"))["total"] or 0)
        - sum(surcharges.kept_cents(booking, reason) for reason in surcharges.RIDE_CHARGES)
    )
    open_ = booking.surcharges.filter(reason=Surcharge.Reason.CHANGE, status=Surcharge.Status.PENDING)
    missing = booking.amount_cents - kept - (open_.aggregate(total=Sum("amount_cents"))["total"] or 0)
    if missing <= 0:
        return
    before = booking.amount_cents - missing  # why, on the traveller's link and page
    if _online(booking):
        surcharges.request_payment(booking, missing, actor=actor, price_before_cents=before)
    else:
        why = {
            "price_before": before,
            "price_after": booking.amount_cents,
            "paid": ledger.received_cents(booking),
        }
        surcharges.owe(
            booking, missing, reason=Surcharge.Reason.CHANGE, online=False, actor=actor, details=why
        )


def _waiting(booking: Booking, progress: ride.RideProgress, *, actor: str) -> dict | None:
    wait = waited(booking, progress)
    if wait is None:
        return None
    try:
        priced = price_waiting(booking, wait)
    except DomainError as error:  # no tariff for the class: never lose the move for it; staff decide
        history.record(
            booking,
            history.Kind.PAYMENT,
            history.said("Waiting time could not be priced ({error}): settle it by hand.", error=str(error)),
            actor=actor,
        )
        return None
    reckoned = dict(
        waited=priced.waited_minutes, included=priced.included_minutes, beyond=priced.beyond_minutes
    )
    if not priced.amount:
        history.record(
            booking,
            history.Kind.PAYMENT,
            history.said("Waiting time {waited} min, {included} min included: nothing to pay.", **reckoned),
            actor=actor,
        )
        return None
    amount_cents = to_cents(priced.amount)
    history.record(
        booking,
        history.Kind.PAYMENT,
        history.said(
            "Waiting time {waited} min, {included} min included: {beyond} min beyond, {blocks} started "
            "× {block} min × {rate} = {amount}.",
            **reckoned,
            blocks=priced.blocks,
            block=priced.block_minutes,
            rate=history.eur(to_cents(priced.rate)),
            amount=history.eur(amount_cents),
        ),
        actor=actor,
    )
    billed = _bill(booking, Surcharge.Reason.WAITING, amount_cents, actor=actor, details=reckoned)
    if not (billed.owed_cents or billed.back_cents):
        return None  # billed already, to the cent: no second link, no second e-mail
    return {
        "kind": "waiting",
        **reckoned,
        "blocks": priced.blocks,
        "block_minutes": priced.block_minutes,
        "rate": str(priced.rate),
        "amount": str(priced.amount),
        "vat": str(priced.vat),
        "vat_percent": f"{(priced.vat_rate * 100).normalize():f}",
        "due": str(from_cents(billed.owed_cents)),
        "paid_before": str(from_cents(billed.kept_cents)),
        "back": str(from_cents(billed.back_cents)),
        "payment_method": booking.payment_method,
        "flight": booking.flight_number if ride.meets_a_flight(booking) else "",  # why an hour is included
    }


def _no_show(booking: Booking, *, actor: str) -> dict:
    fee = cancellation.no_show_fee(booking)
    surcharges.waive_open(booking, actor=actor)  # the fee is taken of the whole price: nothing else is open
    # What was paid besides a no-show fee kept from an earlier end of the ride (that one counts as billed).
    paid = refunds.refundable_cents(booking) - surcharges.kept_cents(booking, Surcharge.Reason.NO_SHOW)
    owed, back = max(0, fee.fee_cents - paid), max(0, paid - fee.fee_cents)
    history.record(
        booking,
        history.Kind.PAYMENT,
        history.said(
            "No-show fee {percent} % of {price} = {fee}; paid {paid}: {back} to give back, {owed} owed.",
            percent=f"{fee.percent.normalize():f}",
            price=history.eur(fee.price_cents),
            fee=history.eur(fee.fee_cents),
            paid=history.eur(paid),
            back=history.eur(back),
            owed=history.eur(owed),
        ),
        actor=actor,
    )
    terms = {"percent": f"{fee.percent.normalize():f}", "price": fee.price_cents, "fee": fee.fee_cents}
    owed = _bill(booking, Surcharge.Reason.NO_SHOW, owed, actor=actor, details=terms).owed_cents
    return {
        "kind": "no_show",
        "percent": f"{fee.percent.normalize():f}",
        "price": str(from_cents(fee.price_cents)),
        "fee": str(from_cents(fee.fee_cents)),
        "paid": str(from_cents(paid)),
        "back": str(from_cents(back)),
        "owed": str(from_cents(owed)),
        "due": str(from_cents(owed)),
        "payment_method": booking.payment_method,
    }


def _bill(booking: Booking, reason: str, due_cents: int, *, actor: str, details: dict) -> surcharges.Billed:
    because = history.said("the end of the ride was reckoned again")
    return surcharges.bill(
        booking, reason, due_cents, online=_online(booking), actor=actor, because=because, details=details
    )


def _online(booking: Booking) -> bool:
    """Owed money is asked for through a payment link when the booking was paid by checkout."""
    return booking.payment_method == PaymentMethod.CHECKOUT
