"""What is kept how long, and its removal: each category names what it holds, why it is kept that long, and
what is due under the retention policy (privacy/models.py): rows deleted, or a booking's personal data
removed (booking/personal_data.py) or its whole record (privacy/records.py). The worker's schedule applies
them (`remove_expired`, every JOBS_RETENTION_SECONDS); the policy's admin page previews what the next run
does; the privacy page prints the table (templatetags/retention.py)."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from axes.models import AccessAttempt, AccessLog
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django_tasks import task
from django_tasks_db.compat import TaskResultStatus

from booking import selectors
from booking.models import Booking
from dispatch import positions
from dispatch.models import JobLink
from jobqueue.models import Delivery, Job
from oauth import grants
from oauth.models import AuthorizationCode, RefreshToken, SignInCode
from privacy import records
from privacy.models import RetentionPolicy, months_on, retention_policy
from quote_requests.models import QuoteRequest
from webhooks import subscriptions


def _deleted(rows: QuerySet, now: datetime) -> int:
    return rows.delete()[1].get(rows.model._meta.label, 0)


@dataclass(frozen=True)
class Category:
    key: str
    held: Promise  # what it holds, as the privacy page names it
    reason: Promise  # why it is kept, and why that long
    period_field: str  # the policy's field with its period; "" for a rule of its own (kept_for says it)
    kept_for: Callable[[int], str]  # the period in words
    due: Callable[[datetime, int], list[QuerySet]]  # its rows due, given now and the period
    apply: Callable[[QuerySet, datetime], int] = _deleted  # done to them (given now), atomic per row or query

    def period(self, policy: RetentionPolicy) -> int:
        return getattr(policy, self.period_field) if self.period_field else 0

    def rows(self, policy: RetentionPolicy, now: datetime) -> list[QuerySet]:
        return self.due(now, self.period(policy))


def _days(past: Callable[[datetime], list[QuerySet]]) -> Callable[[datetime, int], list[QuerySet]]:
    return lambda now, days: past(now - timedelta(days=days))


def _in_days(days: int) -> str:
    return ngettext("%(count)d day", "%(count)d days", days) % {"count": days}


def _rides_past(now: datetime, months: int) -> list[QuerySet]:
    rides = records.ridden_before(months_on(timezone.localtime(now), -months))
    return [records.not_held(rides.filter(anonymised_at__isnull=True), now)]


def _locked(model, pk: int):
    """The row's key, row-locked; a return trip's way back after its way out (booking/trips.py)."""
    if model is Booking:
        return [ride.pk for ride in selectors.locked_with_way_out(pk) if ride.pk == pk]
    return model.objects.select_for_update().filter(pk=pk).values_list("pk", flat=True)


def _each_still_due(rows: QuerySet, act: Callable[[int], object]) -> int:
    """Each row locked (a booking first, as every change to it) and asked again: a hold placed or a document
    issued since the query keeps it."""
    done = 0
    for pk in list(rows.values_list("pk", flat=True)):
        with transaction.atomic():
            locked = list(_locked(rows.model, pk))
            if locked and rows.filter(pk=pk).exists():
                act(pk)
                done += 1
    return done


def _forget_consents_traveller(grant_pk: int) -> None:
    """The address leaves the consent and its tokens, and the webhook endpoints its assistant added go."""
    grants.forget_traveller(grant_pk)
    subscriptions.forget_grant(grant_pk)


def _anonymised(rows: QuerySet, now: datetime) -> int:
    return _each_still_due(rows, lambda pk: records.anonymise(pk, now))


def _records_removed(rows: QuerySet, now: datetime) -> int:
    return _each_still_due(
        rows, records.remove_booking if rows.model is Booking else records.remove_collective_invoice
    )


CATEGORIES = [
    Category(
        "sign_in_codes",
        _("Sign-in codes mailed to travellers, and assistants' authorisation codes"),
        _("Needed only until used or expired; kept a few days more to answer a question about a sign-in."),
        "sign_in_codes_days",
        _in_days,
        _days(
            lambda cutoff: [
                SignInCode.objects.filter(expires_at__lt=cutoff),
                AuthorizationCode.objects.filter(expires_at__lt=cutoff),
            ]
        ),
    ),
    Category(
        "refresh_tokens",
        _("Assistants' refresh tokens (a digest, never the token)"),
        _(
            "A token presented again after its use withdraws its assistant's access; kept past their expiry "
            "to recognise one."
        ),
        "refresh_tokens_days",
        _in_days,
        _days(lambda cutoff: [RefreshToken.objects.filter(expires_at__lt=cutoff)]),
    ),
    Category(
        "ended_consents",
        _("Assistants' consents that ended: the traveller's e-mail address on them and on their tokens"),
        _(
            "Kept a while after an assistant's access ended, to answer what it did; the consent then keeps "
            "its assistant and scopes without the address."
        ),
        "ended_consents_days",
        _in_days,
        _days(lambda cutoff: [grants.ended_before(cutoff)]),
        lambda rows, now: _each_still_due(rows, _forget_consents_traveller),
    ),
    Category(
        "job_links",
        _("Chauffeurs' job links (a digest, never the link)"),
        _("A link opens its job until after the ride; kept a while to tell a chauffeur it has expired."),
        "job_links_days",
        _in_days,
        _days(lambda cutoff: [JobLink.objects.filter(expires_at__lt=cutoff)]),
    ),
    Category(
        "chauffeur_positions",
        _("The chauffeur's position on the way to the pickup, shared with the traveller"),
        _(
            "Shown to the ride's traveller only while the chauffeur is on the way; only the latest is kept, "
            "deleted when the passenger is on board or the chauffeur stops sharing."
        ),
        "",
        lambda _days: str(
            _("until the pickup; shown at most 3 hours after the pickup time, removed by the next daily run")
        ),
        lambda now, _days: [positions.ended(now)],
    ),
    Category(
        "deliveries",
        _("Records of the e-mails and text messages sent: recipient and subject"),
        _("They keep a message from going out twice when its job runs again."),
        "deliveries_days",
        _in_days,
        _days(lambda cutoff: [Delivery.objects.filter(delivered_at__lt=cutoff)]),
    ),
    Category(
        "finished_jobs",
        _("Background jobs done, with their arguments"),
        _("Kept for staff to see what went out and when."),
        "finished_jobs_days",
        _in_days,
        _days(
            lambda cutoff: [Job.objects.filter(status=TaskResultStatus.SUCCESSFUL, finished_at__lt=cutoff)]
        ),
    ),
    Category(
        "failed_jobs",
        _("Background jobs failed, with their arguments and error"),
        _("Kept for staff to run again or look into."),
        "failed_jobs_days",
        _in_days,
        _days(lambda cutoff: [Job.objects.filter(status=TaskResultStatus.FAILED, finished_at__lt=cutoff)]),
    ),
    Category(
        "sign_ins",
        _("Staff sign-ins and failed attempts: address, browser, time"),
        _("The back office's security: who signed in, and addresses that tried passwords."),
        "sign_ins_days",
        _in_days,
        _days(
            lambda cutoff: [
                AccessLog.objects.filter(attempt_time__lt=cutoff),
                AccessAttempt.objects.filter(attempt_time__lt=cutoff),
            ]
        ),
    ),
    Category(
        "personal_data",
        _("A booking's personal data: name, e-mail, phone, addresses, flight, notes"),
        _(
            "Needed for the ride and for questions about it afterwards; a booking in dispute is kept until "
            "it is settled. The ride, its price and its payments stay, without them."
        ),
        "personal_data_months",
        lambda months: (
            ngettext("%(count)d month after the ride", "%(count)d months after the ride", months)
            % {"count": months}
        ),
        _rides_past,
        _anonymised,
    ),
    Category(
        "quote_requests",
        _("Quote requests: the trip asked for, name, e-mail, phone"),
        _(
            "Needed to answer the request and for questions about the answer; a trip booked keeps its "
            "data in its booking."
        ),
        "quote_requests_months",
        lambda months: (
            ngettext(
                "%(count)d month after the last change", "%(count)d months after the last change", months
            )
            % {"count": months}
        ),
        lambda now, months: [QuoteRequest.objects.filter(updated_at__lt=months_on(now, -months))],
    ),
    Category(
        "records",
        _("Invoices and credit notes (with the name and address they print), and the bookings' payments"),
        _(
            "The law keeps the books and their documents seven years (BAO §132); then the booking goes "
            "with them, unless it is in dispute."
        ),
        "documents_years",
        lambda years: (
            ngettext(
                "%(count)d year after the end of the year issued",
                "%(count)d years after the end of the year issued",
                years,
            )
            % {"count": years}
        ),
        lambda now, years: [
            records.removable_bookings(now, years),
            records.removable_collective_invoices(now, years),
        ],
        _records_removed,
    ),
]


@dataclass(frozen=True)
class Due:
    category: Category
    kept_for: str
    count: int


def preview(now: datetime | None = None) -> list[Due]:
    """What a run now would do, per category."""
    now, policy = now or timezone.now(), retention_policy()
    return [
        Due(
            category,
            category.kept_for(category.period(policy)),
            sum(rows.count() for rows in category.rows(policy, now)),
        )
        for category in CATEGORIES
    ]


def remove(now: datetime | None = None) -> dict[str, int]:
    """Remove every row past its time; how many of each category."""
    now, policy = now or timezone.now(), retention_policy()
    removed = {}
    for category in CATEGORIES:
        removed[category.key] = sum(category.apply(rows, now) for rows in category.rows(policy, now))
    return removed


@task()
def remove_expired() -> dict[str, int]:
    """Scheduled (settings.JOBS_SCHEDULES, JOBS_RETENTION_SECONDS): remove what the policy keeps no longer."""
    return remove()
