"""How long the service keeps what it no longer needs (privacy/retention.py applies it): one record that staff
edit, its defaults the ones the docs give with their reasons; and the holds that keep a booking past it."""

from calendar import monthrange
from datetime import date, datetime
from typing import TypeVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

DAYS = [MinValueValidator(1), MaxValueValidator(3650)]
Moment = TypeVar("Moment", date, datetime)


def months_on(moment: Moment, months: int) -> Moment:
    """The same day `months` calendar months later (earlier when negative), the month's last day when it is
    shorter; a time of day stays."""
    year, month = divmod(moment.year * 12 + moment.month - 1 + months, 12)
    return moment.replace(year=year, month=month + 1, day=min(moment.day, monthrange(year, month + 1)[1]))


class RetentionPolicy(models.Model):
    sign_in_codes_days = models.PositiveIntegerField(
        _("sign-in and authorisation codes (days after they expire)"), default=7, validators=DAYS
    )
    refresh_tokens_days = models.PositiveIntegerField(
        _("assistants' refresh tokens (days after they expire)"), default=30, validators=DAYS
    )
    ended_consents_days = models.PositiveIntegerField(
        _("travellers' e-mail address on assistants' ended consents (days after they end)"),
        default=90,
        validators=DAYS,
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
    quote_requests_months = models.PositiveIntegerField(
        _("quote requests (months after they last changed)"),
        default=12,
        validators=[MinValueValidator(1), MaxValueValidator(120)],
        help_text=_("The trip asked for, with the name, e-mail and phone of who asked."),
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


class DataRequest(models.Model):
    """A traveller's request for their data (GDPR Art. 15, 20) or its erasure (Art. 17): made on the my-data
    page and answered there at once, or received by staff (a letter, a call) and answered from the admin.
    Answered within a month of receipt (Art. 12(3))."""

    class Kind(models.TextChoices):
        ACCESS = "access", _("a copy of their data")
        ERASURE = "erasure", _("erasure")

    class Channel(models.TextChoices):
        TRAVELLER = "traveller", _("the traveller, signed in with a mailed code")
        STAFF = "staff", _("staff, for a request received otherwise")

    email = models.EmailField(_("e-mail"))
    kind = models.CharField(_("request"), max_length=10, choices=Kind.choices)
    channel = models.CharField(
        _("made by"), max_length=10, choices=Channel.choices, default=Channel.STAFF, editable=False
    )
    received_at = models.DateTimeField(_("received at"), default=timezone.now)
    note = models.TextField(_("note"), blank=True, help_text=_("How it came in, what was checked."))
    answered_at = models.DateTimeField(_("answered at"), null=True, blank=True, editable=False)
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
        verbose_name=_("answered by"),
    )
    outcome = models.TextField(_("outcome"), blank=True, editable=False)

    class Meta:
        ordering = [models.F("answered_at").desc(nulls_first=True), "received_at"]  # open ones first
        verbose_name, verbose_name_plural = _("data request"), _("data requests")

    def __str__(self) -> str:
        return f"{self.email}: {self.get_kind_display()}"

    @property
    def due_on(self) -> date:
        """A month after receipt (the same day, or the month's last), Vienna time."""
        return months_on(timezone.localdate(self.received_at), 1)


def retention_policy() -> RetentionPolicy:
    return RetentionPolicy.objects.order_by("pk").first() or RetentionPolicy()  # the one staff saved
