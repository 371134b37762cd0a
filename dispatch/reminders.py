"""The reminders of the ride's day, found by the worker's schedule (dispatch/tasks.py send_reminders, every
JOBS_REMINDERS_SECONDS) at the times of the ride-day policy: the traveller before the pickup, each chauffeur
the evening before with the next day's jobs, staff when a paid ride close ahead has no chauffeur, and staff
and chauffeurs of papers that expire soon (dispatch/papers.py).

Each goes out once: its Reminder row (a unique key) is written in the transaction that enqueues its job, so
two runs, or two workers, never both send it; a changed pickup time is a new key, so a new reminder."""

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext
from django_tasks import task
from django_tasks.base import Task

from booking import notifications, ride_messages
from booking import tasks as booking_tasks
from booking.models import Booking, BookingStatus
from dispatch import papers
from dispatch.models import Reminder, RideDayPolicy, ride_day_policy
from dispatch.planning import midnight
from fleet.models import Driver
from sitekit import l10n

PAID_RIDES = (BookingStatus.PAID, BookingStatus.CONFIRMED)


@dataclass(frozen=True)
class Enqueued:
    travellers: int
    drivers: int
    unassigned: int
    papers: int


def send_due(now: datetime | None = None) -> Enqueued:
    """Enqueue every reminder whose time has come and that has not gone out."""
    now = now or timezone.now()
    policy = ride_day_policy()
    return Enqueued(
        travellers=remind_travellers(now, policy),
        drivers=remind_drivers(now, policy),
        unassigned=alert_unassigned(now, policy),
        papers=remind_of_papers(now, policy),
    )


def remind_travellers(now: datetime, policy: RideDayPolicy) -> int:
    """`traveller_reminder_hours` before the pickup, for paid or confirmed rides booked before then (one
    booked later has just had its confirmation)."""
    if not policy.traveller_reminder_hours:
        return 0
    ahead = timedelta(hours=policy.traveller_reminder_hours)
    enqueued = 0
    for booking in Booking.objects.filter(
        status__in=ride_messages.REMINDED, pickup_at__gt=now, pickup_at__lte=now + ahead
    ).order_by("pickup_at"):
        if (
            booking.pickup_at is None or booking.created_at > booking.pickup_at - ahead
        ):  # None: never, filtered
            continue
        pickup = ride_messages.pickup_key(booking)
        enqueued += _once(
            _traveller_key(booking, pickup), booking_tasks.send_traveller_reminder, booking.pk, pickup
        )
    return enqueued


def remind_drivers(now: datetime, policy: RideDayPolicy) -> int:
    """From `driver_reminder_time` (Vienna) until midnight: each chauffeur with confirmed rides tomorrow."""
    local = timezone.localtime(now)
    if local.time() < policy.driver_reminder_time:
        return 0
    tomorrow = local.date() + timedelta(days=1)
    drivers = (
        Driver.objects.filter(pk__in=next_day_rides(tomorrow).values("driver_id"))
        .exclude(email="")
        .order_by("pk")
    )
    return sum(
        _once(
            f"driver:{driver.pk}:{tomorrow.isoformat()}",
            send_driver_reminder,
            driver.pk,
            tomorrow.isoformat(),
        )
        for driver in drivers
    )


def alert_unassigned(now: datetime, policy: RideDayPolicy) -> int:
    """A paid ride picked up within `unassigned_alert_hours` with no chauffeur: the operator's alert."""
    if not policy.unassigned_alert_hours or not settings.OPERATOR_EMAIL:
        return 0
    hours = policy.unassigned_alert_hours
    enqueued = 0
    end = now + timedelta(hours=hours)
    for booking in Booking.objects.filter(
        status__in=PAID_RIDES, driver__isnull=True, pickup_at__gt=now, pickup_at__lte=end
    ).order_by("pickup_at"):
        reason = (
            f"no chauffeur is assigned to the ride at {timezone.localtime(booking.pickup_at):%d.%m.%Y %H:%M} "
            f"(Vienna), within the next {hours} hours, from {notifications.unlinked(booking.origin)}"
        )
        enqueued += _once(
            f"unassigned:{booking.pk}:{ride_messages.pickup_key(booking)}",
            booking_tasks.alert_operator,
            booking.pk,
            reason,
            "Assignment",
        )
    return enqueued


def remind_of_papers(now: datetime, policy: RideDayPolicy) -> int:
    """Each paper that counts and expires within `paper_reminder_days` (or has expired), once; a renewed
    paper, or a corrected date, is a new key, so it is reminded of anew when its time comes."""
    if not policy.paper_reminder_days:
        return 0
    return sum(
        _once(
            f"paper:{shown.owner}:{shown.paper.pk}:{shown.expires_on.isoformat()}",
            papers.send_paper_reminder,
            shown.owner,
            shown.paper.pk,
        )
        for shown in papers.expiring(timezone.localtime(now).date(), policy.paper_reminder_days)
    )


def next_day_rides(day: date):
    """A chauffeur's confirmed rides of a Vienna day."""
    return Booking.objects.filter(
        status=BookingStatus.CONFIRMED,
        driver__isnull=False,
        pickup_at__gte=midnight(day),
        pickup_at__lt=midnight(day + timedelta(days=1)),
    ).order_by("pickup_at")


@task()
def send_driver_reminder(driver_id: int, day_iso: str) -> bool:
    """One mail listing the chauffeur's rides of `day_iso` as they are when it is sent, in their language
    (German when it is the first they speak); none when no ride is left. Whether it went out."""
    driver = Driver.objects.get(pk=driver_id)
    day = date.fromisoformat(day_iso)
    rides = list(next_day_rides(day).filter(driver=driver).select_related("vehicle"))
    if not rides or not driver.email:
        return False
    locale = driver.locale
    with translation.override(locale):
        subject = gettext("Your jobs on {day}").format(day=l10n.day(day))
    return notifications.mail_to(
        "emails/driver_reminder",
        subject,
        driver.email,
        locale,
        driver=driver,
        day=day,
        rides=[notifications.AsMailed(ride) for ride in rides],
    )


def carry_over(booking: Booking, before: datetime) -> None:
    """The pickup moved from `before` (by its flight) and the traveller is told of it: a reminder already
    sent for the old time stands for the new one too, not sent again. Inside the move's transaction."""
    if Reminder.objects.filter(key=_traveller_key(booking, ride_messages.key_of(before))).exists():
        Reminder.objects.get_or_create(key=_traveller_key(booking, ride_messages.pickup_key(booking)))


def _traveller_key(booking: Booking, pickup: str) -> str:
    return f"traveller:{booking.pk}:{pickup}"


def _once(key: str, task: Task, *args) -> int:
    """Write the reminder's row and enqueue its job together; 0 when the key exists (sent, or being sent)."""
    if Reminder.objects.filter(key=key).exists():
        return 0
    try:
        with transaction.atomic():
            Reminder.objects.create(key=key)
            task.enqueue(*args)
    except IntegrityError:  # another worker's run wrote it first
        return 0
    return 1
