"""What is kept how long, and its removal: each category names what it holds, why it is kept that long, and
the rows past their time under the retention policy (privacy/models.py). The worker's schedule removes them
(`remove_expired`, every JOBS_RETENTION_SECONDS); the policy's admin page previews what the next run removes;
the privacy page prints the table (templatetags/retention.py)."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from axes.models import AccessAttempt, AccessLog
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django_tasks import task
from django_tasks_db.compat import TaskResultStatus

from dispatch.models import JobLink
from jobqueue.models import Delivery, Job
from oauth.models import AuthorizationCode, RefreshToken, SignInCode
from privacy.models import RetentionPolicy, retention_policy


@dataclass(frozen=True)
class Category:
    key: str
    held: Promise  # what it holds, as the privacy page names it
    reason: Promise  # why it is kept, and why that long
    days_field: str  # the policy's field with its days
    past: Callable[[datetime], list[QuerySet]]  # its rows past their time, given the day's cut-off

    def days(self, policy: RetentionPolicy) -> int:
        return getattr(policy, self.days_field)

    def rows(self, policy: RetentionPolicy, now: datetime) -> list[QuerySet]:
        return self.past(now - timedelta(days=self.days(policy)))


CATEGORIES = [
    Category(
        "sign_in_codes",
        _("Sign-in codes mailed to travellers, and assistants' authorisation codes"),
        _("Needed only until used or expired; kept a few days more to answer a question about a sign-in."),
        "sign_in_codes_days",
        lambda cutoff: [
            SignInCode.objects.filter(expires_at__lt=cutoff),
            AuthorizationCode.objects.filter(expires_at__lt=cutoff),
        ],
    ),
    Category(
        "refresh_tokens",
        _("Assistants' refresh tokens (a digest, never the token)"),
        _(
            "A token presented again after its use withdraws its assistant's access; kept past their expiry "
            "to recognise one."
        ),
        "refresh_tokens_days",
        lambda cutoff: [RefreshToken.objects.filter(expires_at__lt=cutoff)],
    ),
    Category(
        "job_links",
        _("Chauffeurs' job links (a digest, never the link)"),
        _("A link opens its job until after the ride; kept a while to tell a chauffeur it has expired."),
        "job_links_days",
        lambda cutoff: [JobLink.objects.filter(expires_at__lt=cutoff)],
    ),
    Category(
        "deliveries",
        _("Records of the e-mails and text messages sent: recipient and subject"),
        _("They keep a message from going out twice when its job runs again."),
        "deliveries_days",
        lambda cutoff: [Delivery.objects.filter(delivered_at__lt=cutoff)],
    ),
    Category(
        "finished_jobs",
        _("Background jobs done, with their arguments"),
        _("Kept for staff to see what went out and when."),
        "finished_jobs_days",
        lambda cutoff: [Job.objects.filter(status=TaskResultStatus.SUCCESSFUL, finished_at__lt=cutoff)],
    ),
    Category(
        "failed_jobs",
        _("Background jobs failed, with their arguments and error"),
        _("Kept for staff to run again or look into."),
        "failed_jobs_days",
        lambda cutoff: [Job.objects.filter(status=TaskResultStatus.FAILED, finished_at__lt=cutoff)],
    ),
    Category(
        "sign_ins",
        _("Staff sign-ins and failed attempts: address, browser, time"),
        _("The back office's security: who signed in, and addresses that tried passwords."),
        "sign_ins_days",
        lambda cutoff: [
            AccessLog.objects.filter(attempt_time__lt=cutoff),
            AccessAttempt.objects.filter(attempt_time__lt=cutoff),
        ],
    ),
]


@dataclass(frozen=True)
class Due:
    category: Category
    days: int
    count: int


def preview(now: datetime | None = None) -> list[Due]:
    """What a run now would remove, per category."""
    now, policy = now or timezone.now(), retention_policy()
    return [
        Due(category, category.days(policy), sum(rows.count() for rows in category.rows(policy, now)))
        for category in CATEGORIES
    ]


def remove(now: datetime | None = None) -> dict[str, int]:
    """Remove every row past its time; how many of each category."""
    now, policy = now or timezone.now(), retention_policy()
    removed = {}
    for category in CATEGORIES:
        with transaction.atomic():
            removed[category.key] = sum(
                rows.delete()[1].get(rows.model._meta.label, 0) for rows in category.rows(policy, now)
            )
    return removed


@task()
def remove_expired() -> dict[str, int]:
    """Scheduled (settings.JOBS_SCHEDULES, JOBS_RETENTION_SECONDS): remove what the policy keeps no longer."""
    return remove()
