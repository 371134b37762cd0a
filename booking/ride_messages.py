"""The traveller's messages of the ride's day, by e-mail and, when they chose it, by text message, each in
the booking's language: "on the way" (the chauffeur's name, phone and vehicle) and "arrived" (where the
chauffeur waits), sent when the chauffeur moves the ride on (dispatch/ride_day.py); the reminder before
the pickup (dispatch/reminders.py). Run as jobs (booking/tasks.py), once each."""

from datetime import UTC, datetime

from django.utils import translation
from django.utils.translation import gettext

from booking import notifications, ride, text_messages
from booking.models import Booking, BookingStatus, RideState
from operator_profile.services import operator_branding
from sitekit import l10n

ON_THE_WAY = notifications.Mail(
    {"en": "Your chauffeur is on the way ({reference})", "de": "Ihr Chauffeur ist unterwegs ({reference})"},
    "emails/ride_on_the_way",
    operator_copy=False,
)
ARRIVED = notifications.Mail(
    {"en": "Your chauffeur has arrived ({reference})", "de": "Ihr Chauffeur ist da ({reference})"},
    "emails/ride_arrived",
    operator_copy=False,
)
REMINDER = notifications.Mail(
    {
        "en": "Reminder of your chauffeur ride {reference}",
        "de": "Erinnerung an Ihre Chauffeur-Fahrt {reference}",
    },
    "emails/ride_reminder",
    operator_copy=False,
)
PICKUP_FOLLOWS_FLIGHT = notifications.Mail(
    {
        "en": "Your flight moved your pickup ({reference})",
        "de": "Ihr Flug verschiebt Ihre Abholung ({reference})",
        notifications.OPERATOR: "Pickup moved by its flight ({reference})",
    },
    "emails/pickup_follows_flight",
    operator_copy=False,
)
NEWS: dict[str, notifications.Mail] = {RideState.ON_THE_WAY: ON_THE_WAY, RideState.ARRIVED: ARRIVED}
# Who is reminded: rides paid for or confirmed (not cancelled, not done).
REMINDED = (BookingStatus.PAID, BookingStatus.CONFIRMED)


def send_ride_news(booking_id: int, state: str) -> bool:
    """The message of `state`, while the ride is in it: a move undone, or already overtaken by the next
    one when the job runs, is old news and not sent. Whether it was sent."""
    booking = Booking.objects.select_related("driver", "vehicle__vehicle_class").get(pk=booking_id)
    if state not in NEWS or booking.driver is None or ride.progress(booking).state != state:
        return False
    notifications.send(
        NEWS[state], booking, vehicle_shown=vehicle_shown(booking), at_arrivals=ride.meets_a_flight(booking)
    )
    text_messages.send_text(booking, news_text(booking, state), topic=state)
    return True


def send_traveller_reminder(booking_id: int, pickup_iso: str) -> bool:
    """The reminder of the pickup at `pickup_iso`; none for a ride cancelled since, or moved (the new time
    has a reminder of its own). Whether it was sent."""
    booking = Booking.objects.select_related("driver", "vehicle__vehicle_class").get(pk=booking_id)
    if booking.status not in REMINDED or booking.pickup_at != datetime.fromisoformat(pickup_iso):
        return False
    notifications.send(REMINDER, booking, vehicle_shown=vehicle_shown(booking))
    text_messages.send_text(booking, reminder_text(booking), topic="reminder")
    return True


def send_pickup_moved(
    booking_id: int, pickup_iso: str, previous_iso: str, landing_iso: str, landed: bool
) -> bool:
    """The pickup its flight moved to `pickup_iso`, to the traveller (e-mail, and a text when they chose
    texts) and to the chauffeur (their updated job); none when the pickup moved again since (that move
    tells) or the ride was cancelled. Whether it was sent."""
    booking = Booking.objects.select_related("driver", "vehicle__vehicle_class").get(pk=booking_id)
    if booking.status not in REMINDED or booking.pickup_at != datetime.fromisoformat(pickup_iso):
        return False
    previous, landing = datetime.fromisoformat(previous_iso), datetime.fromisoformat(landing_iso)
    notifications.send(PICKUP_FOLLOWS_FLIGHT, booking, previous=previous, landing=landing, landed=landed)
    with translation.override(notifications.customer_locale(booking)):
        text = gettext(
            "{operator}: flight {flight} lands at {landing}; your chauffeur now meets you at {pickup} "
            "(was {previous}). Booking {reference}."
        ).format(
            operator=operator_branding().name,
            flight=notifications.unlinked(booking.flight_number),
            landing=l10n.time_of_day(landing),
            pickup=l10n.day_time(booking.pickup_at),
            previous=l10n.time_of_day(previous),
            reference=booking.reference,
        )
    text_messages.send_text(booking, text, topic="pickup_moved")
    if booking.driver is not None:
        notifications.to_driver(notifications.DRIVER_JOB, booking, booking.driver)
    return True


def vehicle_shown(booking: Booking) -> str:
    """Make and model (or the class when staff left it out) and the plate: what the traveller looks for."""
    vehicle = booking.vehicle
    if vehicle is None:
        return ""
    return f"{vehicle.model or vehicle.vehicle_class}, {vehicle.plate}"


def news_text(booking: Booking, state: str) -> str:
    driver, vehicle = booking.driver, booking.vehicle
    assert driver is not None  # noqa: S101  (send_ride_news sends no news without a chauffeur)
    with translation.override(notifications.customer_locale(booking)):
        values = {
            "operator": operator_branding().name,
            "reference": booking.reference,
            "driver": driver.name,
            "phone": driver.phone,
            "place": notifications.unlinked(booking.origin),
            "flight": notifications.unlinked(booking.flight_number),
        }
        if state == RideState.ON_THE_WAY:
            values["vehicle"] = f"{vehicle.model or vehicle.vehicle_class}" if vehicle else "-"
            values["plate"] = vehicle.plate if vehicle else "-"
            return gettext(
                "{operator}: your chauffeur {driver} is on the way. Vehicle: {vehicle}, plate {plate}. "
                "Phone: {phone}. Booking {reference}."
            ).format(**values)
        if ride.meets_a_flight(booking):
            return gettext(
                "{operator}: your chauffeur {driver} has arrived and is waiting for you at arrivals "
                "(flight {flight}), {place}. Phone: {phone}. Booking {reference}."
            ).format(**values)
        return gettext(
            "{operator}: your chauffeur {driver} has arrived and is waiting for you at {place}. "
            "Phone: {phone}. Booking {reference}."
        ).format(**values)


def reminder_text(booking: Booking) -> str:
    assert booking.pickup_at is not None  # noqa: S101  (a reminder is of a pickup time)
    with translation.override(notifications.customer_locale(booking)):
        values = {
            "operator": operator_branding().name,
            "reference": booking.reference,
            "when": l10n.day_time(booking.pickup_at),
            "place": notifications.unlinked(booking.origin),
        }
        text = gettext("{operator}: reminder of your ride {reference}, {when}, from {place}.")
        text = text.format(**values)
        if booking.driver is not None:
            chauffeur = gettext("Your chauffeur: {driver}, {phone}.")
            text += " " + chauffeur.format(driver=booking.driver.name, phone=booking.driver.phone)
        return text


def pickup_key(booking: Booking) -> str:
    """The pickup time as reminders know it (a changed time is a new reminder), in UTC."""
    assert booking.pickup_at is not None  # noqa: S101  (reminders look for rides by their pickup time)
    return key_of(booking.pickup_at)


def key_of(pickup: datetime) -> str:
    """A pickup time as reminders know it (pickup_key), of a time the booking no longer has."""
    return pickup.astimezone(UTC).isoformat()
