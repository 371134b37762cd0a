"""How long the service keeps what it no longer needs (privacy/retention.py applies it): one record that staff
edit, its defaults the ones the docs give with their reasons; and the holds that keep a booking past it."""

from datetime import date

from django.conf import settings
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
    personal_data_months = models.PositiveIntegerField(
        _("travellers' personal data in bookings (months after the ride)"),
        default=12,
        validators=[MinValueValidator(1), MaxValueValidator(120)],
        help_text=_(
            "Name, e-mail, phone, addresses, flight and notes; the ride, its price and its money stay. "
            "A hold keeps a booking longer."
        ),
    )
    documents_years = models.PositiveIntegerField(
        _("invoices, credit notes and the bookings' money (years after the end of their year)"),
        default=7,
        validators=[MinValueValidator(7), MaxValueValidator(30)],
        help_text=_("At least seven years (BAO §132); then the booking goes with them."),
    )

    class Meta:
        verbose_name = verbose_name_plural = _("retention policy")

    def __str__(self) -> str:
        return str(_("Retention policy"))

    def clean(self) -> None:
        if self.failed_jobs_days > self.deliveries_days:
            said = _("At most the records of messages sent (%(days)s days).") % {"days": self.deliveries_days}
            raise ValidationError({"failed_jobs_days": said})


class Hold(models.Model):
    """A booking kept past its time (a dispute, a claim, an authority's request): while a hold stands, neither
    the booking's personal data nor its documents are removed."""

    booking = models.ForeignKey(
        "booking.Booking", on_delete=models.PROTECT, related_name="holds", verbose_name=_("booking")
    )
    reason = models.CharField(_("reason"), max_length=300)
    until = models.DateField(
        _("until"), null=True, blank=True, help_text=_("Its last day. Empty: until staff lift it.")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
        verbose_name=_("placed by"),
    )
    created_at = models.DateTimeField(_("placed at"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name, verbose_name_plural = _("hold"), _("holds")

    def __str__(self) -> str:
        return f"{self.booking}: {self.reason}"

    @staticmethod
    def standing(today: date) -> models.Q:
        return models.Q(until__isnull=True) | models.Q(until__gte=today)

    def stands_on(self, today: date) -> bool:
        return self.until is None or self.until >= today


def retention_policy() -> RetentionPolicy:
    return RetentionPolicy.objects.order_by("pk").first() or RetentionPolicy()  # the one staff saved
