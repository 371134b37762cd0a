"""Staff change a ride: its pickup time (the lead time is checked again unless staff move it at short
notice, a pickup that has passed only as a past ride recorded; an assigned driver's and vehicle's other
rides, and their papers on the new day) and, while no vehicle is assigned, its class. The ride is priced
again with today's tariffs, or at a price staff set by hand with its reason (kept through later changes
until staff with the permission change or remove it); a difference is refunded or charged through the
payment provider, or settled by staff outside it and recorded as such."""

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import announcements, history, ride_stops, selectors, trips
from booking import tasks as booking_tasks
from booking.models import Booking, BookingStatus, PaymentMethod
from dispatch import assignment, job_links, papers, rerouting, staff_pickups, windows
from fleet.models import Driver
from invoicing import collective_invoices, invoices
from payments import ledger, refunds, surcharges
from payments.models import PRICE_CHANGE_REFUND, Refund
from pricing import services as pricing
from pricing.money import CURRENCY, from_cents, to_cents
from pricing.quote import (
    PriceByHand,
    Quote,
    is_offered,
    price_by_hand_of,
    with_price_by_hand,
    without_price_by_hand,
)

CHANGEABLE = (BookingStatus.PENDING_PAYMENT, BookingStatus.PAID, BookingStatus.CONFIRMED)


@dataclass(frozen=True)
class Change:
    booking: Booking
    summary: history.Said  # what changed, in words
    difference_cents: int  # the new price minus the old: positive means the customer owes more
    settlement: history.Said | None  # how the difference was settled, in words (None when there was none)


def change_ride(
    pk: int,
    *,
    pickup: datetime,
    vehicle_class: str,
    through_provider: bool,
    actor: str,
    user=None,
    short_notice: bool = False,
    past_ride: bool = False,
    price_by_hand: PriceByHand | None = None,
    tariff_price: bool = False,
    ride: rerouting.Ride | None = None,
    seen: str | None = None,
) -> Change:
    """`price_by_hand` sets the price staff agreed (with its reason); `tariff_price` removes one set before;
    neither keeps the booking's price set by hand, if it has one, on the new ride. `ride`: its addresses,
    route and passengers as they become (rerouting.wanted); None keeps them. `seen`: the booking's version
    the change was asked against (a page read before another change is refused)."""
    with transaction.atomic():
        booking = locked_for_change(pk)
        if seen is not None and seen != version(booking):
            raise DomainError(
                format_lazy(
                    _("{reference} changed meanwhile: look again and retry."), reference=booking.reference
                ),
                code="not_changeable",
            )
        ensure_changeable(booking, pickup, vehicle_class, ride)
        ensure_new_pickup(booking, pickup, short_notice=short_notice, past_ride=past_ride)
        kept = price_by_hand_of(booking.quote)
        ride = ride or rerouting.as_booked(booking)
        quote = repriced(
            booking, vehicle_class, price_by_hand=price_by_hand, tariff_price=tariff_price, ride=ride
        )
        ensure_fits_vehicle(booking, ride, quote)
        difference = to_cents(quote.price) - booking.amount_cents
        ensure_no_page_at_the_old_price(booking, difference)
        summary = _describe(booking, pickup, vehicle_class, quote.price, ride)
        summary = _with_staff_choices(summary, booking, pickup, quote, kept, short_notice, past_ride)
        before = _announced(booking)
        booking.pickup_at, booking.vehicle_class = pickup, vehicle_class
        rerouting.apply(booking, ride, pickup)
        booking.quote_record, booking.amount_cents = quote.as_record(), to_cents(quote.price)
        booking.save()
        history.record(booking, history.Kind.CHANGE, summary, actor=actor)
        _announce(booking, before)  # before its settlement's news (a refund)
        settlement = _settle(booking, difference, through_provider=through_provider, actor=actor, user=user)
        job_links.follow_change(booking)  # the job's link lasts until after the moved ride
        booking_tasks.send_change.enqueue(booking.pk)
    return Change(booking, summary, difference, settlement)


def version(booking: Booking) -> str:
    """What a change is asked against (an agent's quote, staff's page): a booking changed, paid, moved on its
    day or repriced since is another."""
    return "|".join(
        str(part)
        for part in (
            booking.status,
            booking.amount_cents,
            booking.pickup_at.isoformat() if booking.pickup_at else "",
            booking.vehicle_class,
            booking.updated_at.isoformat(),
            booking.ride_steps.filter(undone_at__isnull=True).count(),
            surcharges.open_cents(booking),
            refunds.refundable_cents(booking),
        )
    )


def _announced(booking: Booking) -> dict:
    """What booking.changed tells of a ride: its pickup, addresses, stops, party, extras, class and price
    (as the API writes them)."""
    return {
        "pickupDatetime": timezone.localtime(booking.pickup_at).isoformat() if booking.pickup_at else None,
        "from": booking.origin,
        "to": booking.destination,
        "stops": [
            {"address": stop.address, "waitMinutes": stop.wait_minutes} for stop in ride_stops.of(booking)
        ],
        "passengers": booking.passengers,
        "luggage": booking.luggage,
        "extras": [{"code": extra.code, "quantity": extra.quantity} for extra in booking.quote.extras],
        "vehicleClass": booking.vehicle_class,
        "price": str(from_cents(booking.amount_cents)),
    }


def _announce(booking: Booking, before: dict) -> None:
    after = _announced(booking)
    changed = {
        name: {"before": before[name], "after": after[name]} for name in after if before[name] != after[name]
    }
    if not changed:  # a price set by hand to what it was, say: nothing a receiver could act on
        return
    announcements.announce(booking, "booking.changed", changes=changed, currency=CURRENCY)
    if "pickupDatetime" in changed:
        announcements.announce(
            booking, "booking.pickup_moved", previousPickupDatetime=before["pickupDatetime"]
        )


def locked_for_change(pk: int) -> Booking:
    """The booking row-locked for a change (inside the caller's transaction), its driver's row first, in
    the order assignments lock them."""
    driver_id = Booking.objects.filter(pk=pk).values_list("driver_id", flat=True).first()
    if driver_id:
        Driver.objects.select_for_update().get(pk=driver_id)
    booking = selectors.locked_booking(pk)
    if booking.driver_id != driver_id:
        raise DomainError(
            format_lazy(
                _("{reference} was reassigned meanwhile: look again and retry."), reference=booking.reference
            )
        )
    return booking


def ensure_new_pickup(booking: Booking, pickup: datetime, *, short_notice: bool, past_ride: bool) -> None:
    """A moved pickup keeps the lead time (and a company account's rules) unless staff chose otherwise."""
    if pickup != booking.pickup_at:
        on_account = booking.company_account if booking.payment_method == PaymentMethod.ACCOUNT else None
        staff_pickups.ensure_pickup(
            pickup, short_notice=short_notice, past_ride=past_ride, account=on_account
        )


def repriced(
    booking: Booking,
    vehicle_class: str,
    *,
    price_by_hand: PriceByHand | None = None,
    tariff_price: bool = False,
    ride: rerouting.Ride | None = None,
) -> Quote:
    """The ride's new price in `vehicle_class`: the tariff's of today, or staff's offer's (its class kept),
    with the price set by hand it keeps (`price_by_hand`: a new one; `tariff_price`: none). `ride`: its
    route and passengers as they become (None: as booked)."""
    chosen = price_by_hand or (None if tariff_price else price_by_hand_of(booking.quote))
    if is_offered(booking.quote):  # staff's offer priced it, not the tariff: the price stays
        if vehicle_class != booking.vehicle_class:
            raise DomainError(
                _("The offer the traveller accepted priced this ride in its class: keep the class."),
                field="vehicle_class",
            )
        quote = without_price_by_hand(booking.quote)
    else:
        quote = _tariff_quote(booking, vehicle_class, ride or rerouting.as_booked(booking))
    return with_price_by_hand(quote, chosen) if chosen is not None else quote


def ensure_fits_vehicle(booking: Booking, ride: rerouting.Ride, quote: Quote) -> None:
    """The car assigned seats the party and carries the extras of a ride whose party or extras change. A car
    that no longer fits a ride changed otherwise (its equipment or seats edited since) is staff's to
    replace: it does not hold up a new pickup time."""
    if booking.vehicle is None or (ride.passengers, ride.luggage, ride.extras) == (
        booking.passengers,
        booking.luggage,
        booking.quote.extras,
    ):
        return
    changed = rerouting.as_ride(booking, ride)
    changed.quote_record = quote.as_record()
    try:
        assignment.ensure_equipped(changed, booking.vehicle)
    except DomainError as refused:  # the car's words, on no field the change names
        raise DomainError(refused.words, code="not_changeable") from refused


def ensure_no_page_at_the_old_price(booking: Booking, difference: int) -> None:
    if difference and booking.status == BookingStatus.PENDING_PAYMENT and ledger.checkout_session(booking):
        raise DomainError(
            format_lazy(
                _(
                    "The customer's payment page for {reference} is open at the old price: wait for the "
                    "payment, or cancel the booking and book it anew."
                ),
                reference=booking.reference,
            ),
            code="not_changeable",
        )


def _tariff_quote(booking: Booking, vehicle_class: str, ride: rerouting.Ride) -> Quote:
    """The ride's price from the tariff of the class: its route, stops, passengers and extras as `ride` has
    them (an extra withdrawn from the catalogue since stays, at its booked price)."""
    assert ride.distance_km is not None  # noqa: S101  (ensure_changeable refused a ride without one)
    return pricing.quote_price(
        vehicle_class=vehicle_class,
        distance_km=ride.distance_km,
        booking_type=booking.booking_type,
        in_zone_a=ride.in_zone_a is not False,
        duration_hours=booking.duration_hours,
        tour_slug=booking.tour_slug or None,
        passengers=ride.passengers,
        luggage=ride.luggage,
        extras=ride.extras,  # at today's prices
        stop_waits=ride_stops.waits(ride.stops),
        booked=booking.quote,
    )


def ensure_state(booking: Booking) -> None:
    """The booking's state and its company's invoice allow a change at all."""
    if billed := collective_invoices.billed_refusal(booking):  # the issued invoice would bill the old ride
        raise DomainError(billed, code="not_changeable")
    if booking.status not in CHANGEABLE:
        raise DomainError(
            format_lazy(_("A {state} booking cannot be changed."), state=BookingStatus(booking.status).label),
            code="not_changeable",
        )


def ensure_changeable(
    booking: Booking, pickup: datetime, vehicle_class: str, ride: rerouting.Ride | None = None
) -> None:
    """`ride`: its route as it becomes (the chauffeur's and the car's time it takes); None: as booked."""
    ensure_state(booking)
    if booking.distance_km is None:
        raise DomainError(
            format_lazy(_("{reference} has no stored route to price again."), reference=booking.reference),
            code="not_changeable",
        )
    trips.ensure_in_order(rerouting.moved(booking, ride, pickup) if ride else booking, pickup)
    if booking.vehicle_id and vehicle_class != booking.vehicle_class:
        raise DomainError(
            format_lazy(
                _("{reference} has {vehicle} assigned: its class cannot change while a vehicle is assigned."),
                reference=booking.reference,
                vehicle=booking.vehicle,
            ),
            code="class_mismatch",
            field="vehicle_class",
        )
    if booking.driver_id or booking.vehicle_id:
        moved = windows.window_at(rerouting.as_ride(booking, ride) if ride else booking, pickup)
        papers.ensure_valid(moved, booking.driver, booking.vehicle)
        assignment.ensure_free(booking, moved, booking.driver, booking.vehicle)


def _describe(
    booking: Booking, pickup: datetime, vehicle_class: str, price, ride: rerouting.Ride
) -> history.Said:
    parts = []
    if ride.origin != booking.origin:
        parts.append(
            history.said("pickup address {before} → {after}", before=booking.origin, after=ride.origin)
        )
    if ride.destination != booking.destination:
        parts.append(
            history.said("destination {before} → {after}", before=booking.destination, after=ride.destination)
        )
    if ride.stops != ride_stops.of(booking):
        parts.append(
            history.said(
                "stops {before} → {after}",
                before=_stops_written(ride_stops.of(booking)),
                after=_stops_written(ride.stops),
            )
        )
    if ride.passengers != booking.passengers:
        had = "—" if booking.passengers is None else booking.passengers
        parts.append(history.said("passengers {before} → {after}", before=had, after=ride.passengers))
    if ride.luggage != booking.luggage:
        had = "—" if booking.luggage is None else booking.luggage
        parts.append(history.said("luggage {before} → {after}", before=had, after=ride.luggage))
    if ride.extras != booking.quote.extras:
        parts.append(
            history.said(
                "extras {before} → {after}",
                before=_extras_written(booking.quote.extras),
                after=_extras_written(ride.extras),
            )
        )
    if pickup != booking.pickup_at:
        before, after = history.moment(booking.pickup_at), history.moment(pickup)
        parts.append(history.said("pickup {before} → {after}", before=before, after=after))
    if vehicle_class != booking.vehicle_class:
        parts.append(
            history.said(
                "class {before} → {after}",
                before=history.vehicle_class(booking.vehicle_class),
                after=history.vehicle_class(vehicle_class),
            )
        )
    before, after = history.eur(to_cents(booking.quote.price)), history.eur(to_cents(price))
    parts.append(history.said("price {before} → {after}", before=before, after=after))
    return history.said("Changed: {changes}", changes=parts)


def _stops_written(stops: tuple[ride_stops.Stop, ...]) -> str:
    """Stops as the history keeps them: "Hotel Sacher (15 min); Stephansplatz", or "—" for none."""
    return (
        "; ".join(
            f"{stop.address} ({stop.wait_minutes} min)" if stop.wait_minutes else stop.address
            for stop in stops
        )
        or "—"
    )


def _extras_written(extras) -> str:
    """Extras by their codes, as staff name them in the admin: "child-seat × 2, name-sign", or "—"."""
    return (
        ", ".join(
            f"{extra.code} × {extra.quantity}" if extra.quantity > 1 else extra.code for extra in extras
        )
        or "—"
    )


def _with_staff_choices(
    summary: history.Said,
    booking: Booking,
    pickup: datetime,
    quote: Quote,
    kept: PriceByHand | None,
    short_notice: bool,
    past_ride: bool,
) -> history.Said:
    """The change's words with what staff chose beyond the rules: a pickup moved at short notice or into the
    past, a price set by hand (old → new, and why) or removed."""
    parts = [*summary.params["changes"]]
    moved = pickup != booking.pickup_at
    if moved and past_ride:
        parts.append(history.said("recorded as a past ride (its pickup had passed)"))
    elif moved and short_notice:
        parts.append(history.said("at short notice (the lead time was not applied)"))
    chosen = price_by_hand_of(quote)
    if chosen != kept and chosen is not None:
        parts.append(history.said("price set by hand, reason: {reason}", reason=chosen.reason))
    elif chosen != kept:
        parts.append(history.said("the price set by hand is removed: the tariff's price applies"))
    return history.said(summary.message, changes=parts)


def settlement_of(booking: Booking, difference: int) -> tuple[str, int]:
    """What `_settle` will do with a difference, nothing moved yet: ("none" | "invoiced" | "refund" |
    "pay", cents); links still open count as owed anew with it."""
    if not booking.money_received or difference == 0:
        return "none", 0
    if booking.payment_method == PaymentMethod.ACCOUNT:
        return "invoiced", 0
    balance = difference + surcharges.open_cents(booking)
    if balance < 0:
        amount = min(-balance, refunds.refundable_cents(booking))
        return ("refund", amount) if amount else ("none", 0)
    return ("pay", balance) if balance else ("none", 0)


def _settle(
    booking: Booking, difference: int, *, through_provider: bool, actor: str, user
) -> history.Said | None:
    """Settle a price difference. Links still open from an earlier change are withdrawn and what they
    asked for is owed anew with the difference, so a change back never refunds money only asked for."""
    if not booking.money_received or difference == 0:
        return None
    if booking.payment_method == PaymentMethod.ACCOUNT:
        return None  # the company's collective invoice bills the new price: nothing asked of the traveller
    balance = difference + surcharges.waive_open(booking, actor=actor)  # > 0: the customer owes more
    if balance < 0:
        amount = min(-balance, refunds.refundable_cents(booking))
        if not amount:
            return None
        made = refunds.refund(
            booking,
            amount,
            reason=PRICE_CHANGE_REFUND,
            actor=actor,
            requested_by=user,
            manual=not through_provider,
            details=invoices.reason_by_hand(booking),
        )
        if all(refund.method == Refund.Method.PROVIDER for refund in made):
            return history.said("{amount} refunded through the payment provider", amount=history.eur(amount))
        return history.said("{amount} refunded by staff", amount=history.eur(amount))
    if balance == 0:
        return history.said("the open payment link is withdrawn: nothing more to pay or refund")
    if through_provider:
        surcharges.request_payment(
            booking, balance, actor=actor, user=user, price_before_cents=booking.amount_cents - difference
        )
        return history.said(
            "a payment link for {amount} e-mailed to the customer", amount=history.eur(balance)
        )
    surcharges.record_paid(booking, balance, actor=actor, user=user)
    return history.said("{amount} collected by staff", amount=history.eur(balance))
