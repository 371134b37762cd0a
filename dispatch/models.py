"""The ride's day: the chauffeur's job links, the policy of waiting, lateness and reminders, and the
reminders already sent."""

import datetime

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _


class JobLink(models.Model):
    """A chauffeur's link to one job (in the job message): only its hash is stored. It opens the job page
    until it expires after the ride, staff revoke it, or the job goes to another chauffeur."""

    booking = models.ForeignKey(
        "booking.Booking", on_delete=models.CASCADE, related_name="job_links", verbose_name=_("booking")
    )
    driver = models.ForeignKey(
        "fleet.Driver", on_delete=models.CASCADE, related_name="job_links", verbose_name=_("driver")
    )
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires at"))
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name, verbose_name_plural = _("job link"), _("job links")

    def __str__(self) -> str:
        return f"{self.booking} → {self.driver}"


class RideDayPolicy(models.Model):
    """The one policy of the ride's day (dispatch/ride_day.py, dispatch/reminders.py); staff edit it."""

    included_waiting_minutes = models.PositiveIntegerField(
        _("included waiting (minutes)"),
        default=15,
        validators=[MaxValueValidator(24 * 60)],
        help_text=_("Waiting after the pickup time that the price includes; also the wait before a no-show."),
    )
    included_waiting_flight_minutes = models.PositiveIntegerField(
        _("included waiting at a flight (minutes)"),
        default=60,
        validators=[MaxValueValidator(24 * 60)],
        help_text=_("The same for a pickup with a flight number (the passenger collects the luggage)."),
    )
    start_window_minutes = models.PositiveIntegerField(
        _("“on the way” from (minutes before pickup)"),
        default=90,
        validators=[MaxValueValidator(24 * 60)],
        help_text=_(
            "From then on the chauffeur's page offers “on the way” and “arrived”; earlier, “on the way” "
            "only after the chauffeur confirms the ride's day and time. At least the set-off time below."
        ),
    )
    set_off_minutes = models.PositiveIntegerField(
        _("set off at the latest (minutes before pickup)"),
        default=30,
        validators=[MaxValueValidator(24 * 60)],
        help_text=_("A chauffeur who is not on the way by then is shown late on the dispatch board."),
    )
    traveller_reminder_hours = models.PositiveIntegerField(
        _("traveller's reminder (hours before pickup)"),
        default=24,
        validators=[MaxValueValidator(7 * 24)],
        help_text=_("0: no reminder."),
    )
    driver_reminder_time = models.TimeField(
        _("chauffeurs' reminder (the evening before)"),
        default=datetime.time(18, 0),
        help_text=_("Each chauffeur gets the next day's jobs at this time."),
    )
    unassigned_alert_hours = models.PositiveIntegerField(
        _("alert staff of a ride without a chauffeur (hours before pickup)"),
        default=12,
        validators=[MaxValueValidator(7 * 24)],
        help_text=_("0: no alert."),
    )
    paper_reminder_days = models.PositiveIntegerField(
        _("remind of expiring papers (days before)"),
        default=30,
        validators=[MaxValueValidator(365)],
        help_text=_(
            "Staff, and the chauffeur for their own, are told once when a paper of a chauffeur or a car "
            "expires within this many days; the dispatch board and the lists show it from then on."
        ),
    )
    flight_buffer_schengen_minutes = models.PositiveIntegerField(
        _("after a landing from the Schengen area (minutes)"),
        default=15,
        validators=[MaxValueValidator(6 * 60)],
        help_text=_(
            "A pickup that meets a flight follows its landing: this long after it, without passport control."
        ),
    )
    flight_buffer_other_minutes = models.PositiveIntegerField(
        _("after a landing from outside the Schengen area (minutes)"),
        default=30,
        validators=[MaxValueValidator(6 * 60)],
        help_text=_("The same with passport control (also when the flight's origin is not known)."),
    )
    flight_buffer_baggage_minutes = models.PositiveIntegerField(
        _("more with luggage (minutes)"),
        default=15,
        validators=[MaxValueValidator(6 * 60)],
        help_text=_("Added when the booking has suitcases (baggage reclaim)."),
    )
    link_valid_hours = models.PositiveIntegerField(
        _("job links valid after the ride (hours)"),
        default=12,
        validators=[MaxValueValidator(7 * 24)],
    )

    class Meta:
        verbose_name = verbose_name_plural = _("ride-day policy")

    def __str__(self) -> str:
        return str(_("Ride-day policy"))

    def clean(self) -> None:
        # A chauffeur must be able to report "on the way" before the board shows them late.
        if self.start_window_minutes < self.set_off_minutes:
            said = _("At least the set-off time (%(minutes)s minutes).") % {"minutes": self.set_off_minutes}
            raise ValidationError({"start_window_minutes": said})


def ride_day_policy() -> RideDayPolicy:
    return RideDayPolicy.objects.order_by("pk").first() or RideDayPolicy()  # the one staff saved


class Reminder(models.Model):
    """A reminder sent (or being sent): its key is unique, so each goes out once whatever the workers do.
    Keys: `traveller:<booking>:<pickup>`, `driver:<driver>:<date>`, `unassigned:<booking>:<pickup>`,
    `paper:<driver|vehicle>:<paper>:<valid until>`."""

    key = models.CharField(max_length=200, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name, verbose_name_plural = _("reminder"), _("reminders")

    def __str__(self) -> str:
        return self.key


class ChangeQuote(models.Model):
    """A change of a booking asked for through the API or MCP, priced and not yet made: what it would be,
    for a few minutes, as long as the booking stays as it was (`booking_version`). Applied once."""

    public_id = models.CharField(max_length=40, unique=True, editable=False)
    booking = models.ForeignKey(
        "booking.Booking", on_delete=models.CASCADE, related_name="change_quotes", verbose_name=_("booking")
    )
    pickup_at = models.DateTimeField(_("pickup"))
    vehicle_class = models.CharField(_("vehicle class"), max_length=20)
    price_cents = models.PositiveIntegerField(_("new price (cents)"))
    # Its addresses, route and passengers as they become (dispatch/rerouting.py), routed when quoted.
    ride = models.JSONField(_("ride"), default=dict, blank=True)
    booking_version = models.CharField(max_length=200, editable=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    expires_at = models.DateTimeField(_("valid until"))
    applied_at = models.DateTimeField(_("applied at"), null=True, blank=True)

    class Meta:
        verbose_name, verbose_name_plural = _("change quote"), _("change quotes")

    def __str__(self) -> str:
        return self.public_id
