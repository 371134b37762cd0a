"""The papers of chauffeurs and cars in dispatch (which count: fleet/papers.py). A chauffeur or a car whose
paper of some kind is no longer valid on the ride's day is refused for it wherever a ride gets or keeps them:
assigning, and moving an assigned ride. A kind never recorded refuses nothing (the lists show it missing).
Staff, and the chauffeur for their own papers, are reminded once before one expires (dispatch/reminders.py
enqueues it); the dispatch board and the driver and vehicle lists show what expires soon."""

from dataclasses import dataclass
from datetime import date, timedelta

from django.conf import settings
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.text import capfirst, format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django_tasks import task

from apikit.errors import DomainError
from booking import notifications
from booking.models import Booking, BookingStatus
from dispatch.planning import midnight
from dispatch.windows import RideWindow
from fleet.models import Driver, DriverPaper, Paper, Vehicle, VehiclePaper
from fleet.papers import counting, lapsed
from sitekit import l10n

Holder = Driver | Vehicle


@dataclass(frozen=True)
class Expiring:
    """A paper that counts for its holder and is expired, or expires within the reminder's days."""

    holder: Holder
    paper: Paper

    @property
    def expires_on(self) -> date:
        assert self.paper.expires_on is not None  # noqa: S101  (papers without an end never expire)
        return self.paper.expires_on

    @property
    def owner(self) -> str:
        """ "driver" or "vehicle": the holder's field on a booking, and its admin's name."""
        return self.holder._meta.model_name or ""

    @property
    def admin_url(self) -> str:
        return reverse(f"admin:fleet_{self.owner}_change", args=[self.holder.pk])


def ensure_valid(window: RideWindow, driver: Driver | None, vehicle: Vehicle | None) -> None:
    """Refuse a chauffeur or a car whose paper is no longer valid on the ride's last day."""
    day = timezone.localtime(window.end).date()
    for field, holder in (("driver", driver), ("vehicle", vehicle)):
        if holder is None:
            continue
        for paper, until in lapsed(holder, day):
            refusal = (
                _(
                    "{holder}: the {paper} is valid until {until}, and this ride is on {day}. Add the "
                    "renewed paper on the driver's page first."
                )
                if field == "driver"
                else _(
                    "{holder}: the {paper} is valid until {until}, and this ride is on {day}. Add the "
                    "renewed paper on the vehicle's page first."
                )
            )
            raise DomainError(
                format_lazy(refusal, holder=holder, paper=paper, until=l10n.day(until), day=l10n.day(day)),
                code="papers_expired",
                field=field,
            )


def expiring(today: date, within_days: int) -> list[Expiring]:
    """The papers that count of active chauffeurs and cars that are expired or expire within `within_days`
    of `today`, soonest first."""
    horizon = today + timedelta(days=within_days)
    found = []
    for holders in (
        Driver.objects.filter(active=True).prefetch_related("papers"),
        Vehicle.objects.filter(active=True).prefetch_related("papers"),
    ):
        for holder in holders:
            found += [
                Expiring(holder, paper)
                for paper in counting(holder.papers.all()).values()
                if paper.expires_on is not None and paper.expires_on <= horizon
            ]
    return sorted(found, key=lambda shown: (shown.expires_on, str(shown.holder)))


def rides_after(shown: Expiring) -> list[Booking]:
    """The holder's confirmed rides picked up after the paper's last valid day: they need another chauffeur
    or car unless the renewed paper is added."""
    rides = Booking.objects.filter(
        status=BookingStatus.CONFIRMED,
        pickup_at__gte=midnight(shown.expires_on + timedelta(days=1)),
        **{shown.owner: shown.holder},
    )
    return list(rides.order_by("pickup_at"))


@task()
def send_paper_reminder(owner: str, paper_id: int) -> int:
    """The operator's mail (with the rides that need the paper) and, for a chauffeur's paper, the
    chauffeur's in their language. How many went out; none once the paper is renewed or the holder left."""
    paper = (DriverPaper if owner == "driver" else VehiclePaper).objects.filter(pk=paper_id).first()
    if paper is None:
        return 0
    holder = paper.driver if isinstance(paper, DriverPaper) else paper.vehicle
    if not holder.active or counting(holder.papers.all()).get(paper.kind) != paper:
        return 0
    shown = Expiring(holder, paper)
    sent = 0
    if settings.OPERATOR_EMAIL:
        sent += _mail(shown, settings.OPERATOR_EMAIL, settings.LANGUAGE_CODE, for_chauffeur=False)
    if isinstance(holder, Driver) and holder.email:
        sent += _mail(shown, holder.email, holder.locale, for_chauffeur=True)
    return sent


def _mail(shown: Expiring, address: str, locale: str, *, for_chauffeur: bool) -> bool:
    with translation.override(locale):
        subject = gettext("{paper} of {holder} valid until {until}").format(
            paper=capfirst(shown.paper.get_kind_display()),  # type: ignore[attr-defined]
            holder=shown.holder,
            until=f"{shown.expires_on:%d.%m.%Y}",
        )
    return notifications.mail_to(
        "emails/paper_expiring",
        subject,
        address,
        locale,
        holder=shown.holder,
        paper=shown.paper,
        for_chauffeur=for_chauffeur,
        expired=shown.expires_on < timezone.localdate(),
        rides=[] if for_chauffeur else [notifications.AsMailed(ride) for ride in rides_after(shown)],
        admin_url=f"{settings.PUBLIC_BASE_URL}{shown.admin_url}",
    )
