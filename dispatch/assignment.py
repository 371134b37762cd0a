"""Dispatch: a driver and a vehicle for a paid booking, which confirms it. The vehicle must be of the
booked class, the papers of both valid on the ride's day (dispatch/papers.py), and neither the driver nor
the vehicle may be on another ride at the same time; a ride lasts from its pickup for its stored route's
driving time (an hourly hire or a tour for its booked hours)."""

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from apikit.errors import DomainError
from booking import announcements, history, presentation, selectors, transitions
from booking.models import Booking, BookingStatus
from booking.presentation import class_name
from dispatch import job_links, papers
from dispatch import tasks as dispatch_tasks
from dispatch.windows import RideWindow, clash, ride_window, scheduled_window
from fleet.models import Driver, Vehicle
from pricing import services as pricing

ASSIGNABLE = (BookingStatus.PAID, BookingStatus.CONFIRMED)  # confirmed: a reassignment


def ensure_free(booking: Booking, window: RideWindow, driver: Driver | None, vehicle: Vehicle | None) -> None:
    for kind, found in (
        ("driver", driver and clash(window, exclude=booking, driver=driver)),
        ("vehicle", vehicle and clash(window, exclude=booking, vehicle=vehicle)),
    ):
        if found:
            other = scheduled_window(found)
            raise DomainError(
                format_lazy(
                    _("{busy} is on {other} from {start} to {end}, which overlaps this ride ({from_}–{to})."),
                    busy=driver if kind == "driver" else vehicle,
                    other=found.reference,
                    start=_clock(other.start),
                    end=_clock(other.end),
                    from_=_clock(window.start),
                    to=_clock(window.end),
                ),
                code=f"{kind}_busy",
                field=kind,
            )


def assign(pk: int, *, driver_id: int, vehicle_id: int, actor: str) -> Booking:
    """Give a paid (or confirmed) booking its driver and vehicle; a paid one becomes confirmed. The driver
    gets the job by e-mail with a link to its job page, the customer the driver's name and phone; a replaced
    driver hears it is off, and their link stops opening the job."""
    with transaction.atomic():
        driver = Driver.objects.select_for_update().get(pk=driver_id)  # one assignment per driver at a time
        vehicle = Vehicle.objects.select_for_update().select_related("vehicle_class").get(pk=vehicle_id)
        booking = selectors.locked_booking(pk)
        if booking.status not in ASSIGNABLE:
            raise DomainError(
                format_lazy(
                    _("Only a paid booking can be assigned; {reference} is {state}."),
                    reference=booking.reference,
                    state=BookingStatus(booking.status).label,
                ),
                code="not_assignable",
            )
        if not (driver.active and vehicle.active):
            raise DomainError(
                format_lazy(_("{inactive} is inactive."), inactive=driver if not driver.active else vehicle),
                code="not_assignable",
            )
        if vehicle.vehicle_class.code != booking.vehicle_class:
            raise DomainError(
                format_lazy(
                    _("{vehicle} cannot drive {reference}: the ride is booked as {booked_class}."),
                    vehicle=vehicle,
                    reference=booking.reference,
                    booked_class=class_name(booking.vehicle_class),
                ),
                code="class_mismatch",
                field="vehicle",
            )
        ensure_equipped(booking, vehicle)
        window = ride_window(booking)
        if window is None:
            raise DomainError(
                format_lazy(
                    _("{reference} has no pickup time yet: set one first."), reference=booking.reference
                ),
                code="not_assignable",
            )
        papers.ensure_valid(window, driver, vehicle)
        ensure_free(booking, window, driver, vehicle)
        replaced = booking.driver if booking.driver_id not in (None, driver.pk) else None
        unchanged = (booking.driver_id, booking.vehicle_id) == (driver.pk, vehicle.pk)
        booking.driver, booking.vehicle = driver, vehicle
        booking.save(update_fields=["driver", "vehicle", "updated_at"])
        who = {"driver": str(driver), "vehicle": str(vehicle)}
        assigned = (
            history.said("{driver} with {vehicle} (instead of {replaced})", **who, replaced=str(replaced))
            if replaced
            else history.said("{driver} with {vehicle}", **who)
        )
        history.record(booking, history.Kind.ASSIGNMENT, assigned, actor=actor)
        # what the traveller's messages say of them: the chauffeur's name, the car, its plate
        if not unchanged:
            chauffeur = {"name": driver.name, "vehicle": vehicle.model, "plate": vehicle.plate}
            announcements.announce(booking, "chauffeur.assigned", chauffeur=chauffeur)
        if booking.status == BookingStatus.PAID:
            transitions.apply(booking, BookingStatus.CONFIRMED, actor=actor)
        # The job's link goes out in its message (its key is never stored); another chauffeur's stops opening.
        link, _key = job_links.issue(booking, driver)
        dispatch_tasks.send_assignment_with_job_link.enqueue(
            booking.pk, replaced.pk if replaced else None, link.pk
        )
    return booking


def ensure_equipped(booking: Booking, vehicle: Vehicle) -> None:
    """The vehicle seats the passengers, carries the luggage and every booked extra it must carry."""
    for wanted, room, said in (
        (
            booking.passengers,
            vehicle.seats,
            _("{vehicle} seats {room} passengers; {reference} has {wanted}."),
        ),
        (
            booking.luggage,
            vehicle.luggage,
            _("{vehicle} carries {room} pieces of luggage; {reference} has {wanted}."),
        ),
    ):
        if wanted is not None and wanted > room:
            raise DomainError(
                format_lazy(said, vehicle=vehicle, room=room, reference=booking.reference, wanted=wanted),
                code="vehicle_too_small",
                field="vehicle",
            )
    for params, carried, booked in lacking(booking, vehicle)[:1]:
        raise DomainError(
            format_lazy(
                _("{vehicle} carries {carried} × {extra}; {reference} booked {quantity}."),
                vehicle=vehicle,
                carried=carried,
                extra=presentation.extra_name(params),
                reference=booking.reference,
                quantity=booked,
            ),
            code="not_equipped",
            field="vehicle",
        )


def lacking(booking: Booking, vehicle: Vehicle) -> list[tuple[dict, int, int]]:
    """The booked extras the vehicle must carry and carries too few of: (their line's params, how many it
    carries, how many were booked). Reads the vehicle's equipment (prefetch it with its extras for lists)."""
    offers = pricing.current_snapshot().extras
    carried = {item.extra.code: item.quantity for item in vehicle.equipment.all()}
    short = []
    for line in booking.quote.extra_lines:
        code, booked = line.params["code"], int(line.params["quantity"])
        offer = offers.get(code)
        if offer is not None and offer.vehicle_must_carry and carried.get(code, 0) < booked:
            short.append((dict(line.params), carried.get(code, 0), booked))
    return short


def _clock(moment: datetime) -> str:
    return timezone.localtime(moment).strftime("%d.%m. %H:%M")
