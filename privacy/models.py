"""How long the service keeps what it no longer needs (privacy/retention.py applies it): one record that staff
edit, its defaults the ones the docs give with their reasons."""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

DAYS = [MinValueValidator(1), MaxValueValidator(3650)]


class RetentionPolicy(models.Model):
    sign_in_codes_days = models.PositiveIntegerField(
        _("sign-in and authorisation codes (days after they expire)"), default=7, validators=DAYS
    )
    refresh_tokens_days = models.PositiveIntegerField(
        _("assistants' refresh tokens (days after they expire)"), default=30, validators=DAYS
    )
    job_links_days = models.PositiveIntegerField(
        _("chauffeurs' job links (days after they expire)"), default=30, validators=DAYS
    )
    deliveries_days = models.PositiveIntegerField(
        _("records of mails and text messages sent (days)"),
        default=90,
        validators=DAYS,
        help_text=_("Who got which message: they keep a job run again from sending it twice."),
    )
    finished_jobs_days = models.PositiveIntegerField(
        _("jobs done (days after they finished)"), default=30, validators=DAYS
    )
    failed_jobs_days = models.PositiveIntegerField(
        _("jobs failed (days after they failed)"),
        default=90,
        validators=DAYS,
        help_text=_(
            "At most as long as the records of messages sent: a failed job run again sends only what "
            "had not gone out while those records are kept."
        ),
    )
    sign_ins_days = models.PositiveIntegerField(
        _("staff sign-ins and failed attempts (days)"),
        default=90,
        validators=DAYS,
        help_text=_("Address, browser and time of each sign-in to the back office."),
    )

    class Meta:
        verbose_name = verbose_name_plural = _("retention policy")

    def __str__(self) -> str:
        return str(_("Retention policy"))

    def clean(self) -> None:
        if self.failed_jobs_days > self.deliveries_days:
            said = _("At most the records of messages sent (%(days)s days).") % {"days": self.deliveries_days}
            raise ValidationError({"failed_jobs_days": said})


def retention_policy() -> RetentionPolicy:
    return RetentionPolicy.objects.order_by("pk").first() or RetentionPolicy()  # the one staff saved
