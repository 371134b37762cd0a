"""The operator's drivers and vehicles, which dispatch assigns to bookings (dispatch/assignment.py)."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class Driver(models.Model):
    name = models.CharField(_("name"), max_length=100)
    phone = models.CharField(_("phone"), max_length=50, help_text=_("Given to the customer once assigned."))
    email = models.EmailField(_("e-mail"), blank=True, help_text=_("Where job e-mails go."))
    languages = models.CharField(
        _("languages"), max_length=100, blank=True, help_text=_("Spoken languages, e.g. “de, en, ru”.")
    )
    active = models.BooleanField(
        _("active"), default=True, help_text=_("Inactive drivers cannot be assigned.")
    )

    class Meta:
        ordering = ["name"]
        verbose_name, verbose_name_plural = _("driver"), _("drivers")

    def __str__(self) -> str:
        return self.name

    @property
    def language_codes(self) -> list[str]:
        return [code.strip().lower() for code in self.languages.replace(";", ",").split(",") if code.strip()]

    @property
    def locale(self) -> str:
        """The language of what the chauffeur reads from us (job mails, the job page, reminders): German
        when it is the first they speak, else English."""
        return "de" if self.language_codes[:1] == ["de"] else "en"


class Vehicle(models.Model):
    plate = models.CharField(_("plate"), max_length=20, unique=True, help_text=_("e.g. W-12345A"))
    vehicle_class = models.ForeignKey(
        "pricing.VehicleClass",
        on_delete=models.PROTECT,
        related_name="vehicles",
        verbose_name=_("class"),
        help_text=_("A booking of this class only can be assigned this vehicle."),
    )
    model = models.CharField(
        _("make and model"), max_length=100, blank=True, help_text=_("e.g. Mercedes E-Class")
    )
    seats = models.PositiveSmallIntegerField(_("passenger seats"))
    luggage = models.PositiveSmallIntegerField(_("pieces of luggage"))
    active = models.BooleanField(
        _("active"), default=True, help_text=_("Inactive vehicles cannot be assigned.")
    )

    class Meta:
        ordering = ["vehicle_class__order", "plate"]
        verbose_name, verbose_name_plural = _("vehicle"), _("vehicles")

    def __str__(self) -> str:
        return f"{self.plate} ({self.model or self.vehicle_class})"
