"""The operator's drivers and vehicles, which dispatch assigns to bookings (dispatch/assignment.py), and
their papers (dispatch/papers.py): a chauffeur may drive and a car be driven only while they are valid."""

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


class DriverPaperKind(models.TextChoices):
    TAXI_LICENCE = "taxi_licence", _("taxi driver's licence (Taxilenkerausweis)")
    DRIVING_LICENCE = "driving_licence", _("driving licence")


class VehiclePaperKind(models.TextChoices):
    CONCESSION = "concession", _("operating licence (Konzession)")
    REGISTRATION = "registration", _("registration certificate")
    INSPECTION = "inspection", _("inspection (§57a)")
    INSURANCE = "insurance", _("insurance")


class Paper(models.Model):
    """A paper a chauffeur or a car needs to drive for hire. A renewal is a new paper of the same kind; the
    expired one stays as the record. The scan is kept in the database and shown only to staff who may see
    its chauffeur or car: there is no public file storage to leak it from."""

    number = models.CharField(_("number"), max_length=50, blank=True)
    expires_on = models.DateField(
        _("valid until"),
        null=True,
        blank=True,
        help_text=_("Its last valid day; empty when it never expires."),
    )
    scan = models.BinaryField(null=True, blank=True, editable=False)
    scan_name = models.CharField(max_length=200, blank=True, editable=False)
    scan_type = models.CharField(max_length=50, blank=True, editable=False)  # its media type
    created_at = models.DateTimeField(_("added at"), auto_now_add=True)

    class Meta:
        abstract = True
        ordering = ["kind", "-expires_on"]

    def __str__(self) -> str:
        described = self.get_kind_display()  # type: ignore[attr-defined]
        return f"{described} {self.number}".strip()


class DriverPaper(Paper):
    driver = models.ForeignKey(
        Driver, on_delete=models.CASCADE, related_name="papers", verbose_name=_("driver")
    )
    kind = models.CharField(_("paper"), max_length=20, choices=DriverPaperKind.choices)

    class Meta(Paper.Meta):
        verbose_name, verbose_name_plural = _("driver's paper"), _("drivers' papers")


class VehiclePaper(Paper):
    vehicle = models.ForeignKey(
        Vehicle, on_delete=models.CASCADE, related_name="papers", verbose_name=_("vehicle")
    )
    kind = models.CharField(_("paper"), max_length=20, choices=VehiclePaperKind.choices)

    class Meta(Paper.Meta):
        verbose_name, verbose_name_plural = _("vehicle's paper"), _("vehicles' papers")


class VehicleEquipment(models.Model):
    """What a vehicle carries of the extras a ride may book (child seats): a ride with more of one than its
    vehicle carries cannot be assigned that vehicle."""

    vehicle = models.ForeignKey(
        Vehicle, on_delete=models.CASCADE, related_name="equipment", verbose_name=_("vehicle")
    )
    extra = models.ForeignKey(
        "pricing.Extra",
        on_delete=models.PROTECT,
        related_name="+",
        limit_choices_to={"vehicle_must_carry": True},
        verbose_name=_("extra"),
    )
    quantity = models.PositiveSmallIntegerField(_("pieces"), default=1)

    class Meta:
        verbose_name, verbose_name_plural = _("equipment"), _("equipment")
        constraints = [models.UniqueConstraint(fields=["vehicle", "extra"], name="one_row_per_vehicle_extra")]

    def __str__(self) -> str:
        return f"{self.extra} × {self.quantity}"
