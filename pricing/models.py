"""Tariff tables staff edit in the admin (docs/decisions.md §4). All amounts are gross EUR including VAT."""

from decimal import Decimal

from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.utils.formats import number_format
from django.utils.text import format_lazy
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from pricing.quote import MAX_STOPS, MIN_HOURLY_HOURS
from pricing.snapshot import DEFAULT_MAX_STOPS
from sitekit import l10n

NOT_NEGATIVE = [MinValueValidator(Decimal("0"))]


def money(verbose_name, **kwargs) -> models.DecimalField:
    return models.DecimalField(
        verbose_name, max_digits=9, decimal_places=2, validators=NOT_NEGATIVE, **kwargs
    )


class VehicleClass(models.Model):
    class Code(models.TextChoices):
        EXECUTIVE = "executive", "Executive"
        FIRST = "first", "First"
        BUSINESS_VAN = "business-van", "Business van"

    code = models.SlugField(_("code"), unique=True, choices=Code.choices)
    display_name = models.CharField(_("name shown"), max_length=100)
    passengers = models.PositiveSmallIntegerField(_("passengers"))
    luggage = models.PositiveSmallIntegerField(_("luggage"), help_text=_("Pieces of luggage"))
    order = models.PositiveSmallIntegerField(_("order"), default=0)
    active = models.BooleanField(
        _("active"), default=True, help_text=_("Inactive classes cannot be quoted or booked.")
    )

    class Meta:
        ordering = ["order", "code"]
        verbose_name, verbose_name_plural = _("vehicle class"), _("vehicle classes")

    def __str__(self) -> str:
        return self.display_name


class Tariff(models.Model):
    vehicle_class = models.OneToOneField(
        VehicleClass, on_delete=models.CASCADE, related_name="tariff", verbose_name=_("vehicle class")
    )
    base_fare = money(_("base fare"))
    minimum_fare = money(_("minimum fare"), help_text=_("Floor of base fare + distance charge."))
    outside_zone_a_surcharge = money(
        _("outside Zone A surcharge"), help_text=_("When neither end is in Zone A.")
    )
    waiting_rate = money(_("waiting rate"), help_text=_("Per started 15 minutes of waiting."))
    stop_fee = money(
        _("stop fee"),
        default=Decimal("0.00"),
        help_text=_("Per stop on the way of a ride by distance, besides its waiting at the waiting rate."),
    )
    max_stops = models.PositiveSmallIntegerField(
        _("most stops"),
        default=DEFAULT_MAX_STOPS,
        validators=[MaxValueValidator(MAX_STOPS)],
        help_text=format_lazy(
            _("Stops on the way a ride may have: 0 to {most} (0: none in this class)."), most=MAX_STOPS
        ),
    )
    hourly_rate = money(_("hourly rate"), help_text=_("Per hour; billed per started half hour."))
    minimum_hours = models.DecimalField(
        _("minimum hours"),
        max_digits=4,
        decimal_places=1,
        default=MIN_HOURLY_HOURS,
        validators=[MinValueValidator(MIN_HOURLY_HOURS)],
        help_text=format_lazy(
            _("Least hours of an hourly booking: {hours} or more (the API contract's minimum is {hours})."),
            hours=MIN_HOURLY_HOURS,
        ),
    )
    rounding_step = models.DecimalField(
        _("rounding step"),
        max_digits=6,
        decimal_places=2,
        default=Decimal("1.00"),
        validators=[MinValueValidator(Decimal("0.01"))],
        help_text=_("The gross price is rounded up to a multiple of this."),
    )
    vat_rate = models.DecimalField(
        _("VAT rate"),
        max_digits=4,
        decimal_places=3,
        default=Decimal("0.100"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("1"))],
        help_text=_("0.100 = 10 % (Austrian passenger transport)."),
    )
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name, verbose_name_plural = _("tariff"), _("tariffs")

    def __str__(self) -> str:
        return f"{_('Tariff')} {self.vehicle_class}"


class DistanceBand(models.Model):
    tariff = models.ForeignKey(
        Tariff, on_delete=models.CASCADE, related_name="bands", verbose_name=_("tariff")
    )
    from_km = models.DecimalField(_("from km"), max_digits=7, decimal_places=1, validators=NOT_NEGATIVE)
    to_km = models.DecimalField(
        _("to km"), max_digits=7, decimal_places=1, null=True, blank=True, help_text=_("Empty: no upper end.")
    )
    rate_per_km = money(_("EUR per km"))

    class Meta:
        ordering = ["from_km"]
        verbose_name, verbose_name_plural = _("distance band"), _("distance bands")

    def __str__(self) -> str:
        upper = "∞" if self.to_km is None else number_format(self.to_km, use_l10n=True)
        return f"{number_format(self.from_km, use_l10n=True)}–{upper} km: {l10n.money(self.rate_per_km)}/km"


class Tour(models.Model):
    slug = models.SlugField(_("short name (URL)"), unique=True)
    name_de = models.CharField(_("name (German)"), max_length=200)
    name_en = models.CharField(_("name (English)"), max_length=200)
    included_hours = models.DecimalField(
        _("included hours"), max_digits=4, decimal_places=1, validators=NOT_NEGATIVE
    )
    # What the booking form shows when the tour is chosen.
    description_de = models.TextField(_("description (German)"), blank=True, max_length=1000)
    description_en = models.TextField(_("description (English)"), blank=True, max_length=1000)
    area_radius_km = models.DecimalField(
        _("area (km from Vienna's centre)"),
        max_digits=5,
        decimal_places=1,
        default=Decimal("25.0"),
        validators=[MinValueValidator(Decimal("1"))],
        help_text=_("Pickup and drop-off of the tour must both lie within this distance of Stephansplatz."),
    )
    austria_share = models.DecimalField(
        _("share of the route in Austria"),
        max_digits=4,
        decimal_places=3,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("1"))],
        help_text=_(
            "For a tour that crosses the border: 0.6 for 60 % of its distance in Austria; empty: all."
        ),
    )
    active = models.BooleanField(_("active"), default=True)
    order = models.PositiveSmallIntegerField(_("order"), default=0)

    class Meta:
        ordering = ["order", "slug"]
        verbose_name, verbose_name_plural = _("tour"), _("tours")

    def __str__(self) -> str:
        return self.name_de if get_language() == "de" else self.name_en


class TourPrice(models.Model):
    tour = models.ForeignKey(Tour, on_delete=models.CASCADE, related_name="prices", verbose_name=_("tour"))
    vehicle_class = models.ForeignKey(
        VehicleClass, on_delete=models.CASCADE, related_name="tour_prices", verbose_name=_("vehicle class")
    )
    price = money(_("price"))

    class Meta:
        verbose_name, verbose_name_plural = _("tour price"), _("tour prices")
        constraints = [
            models.UniqueConstraint(fields=["tour", "vehicle_class"], name="one_price_per_tour_class")
        ]

    def __str__(self) -> str:
        return f"{self.tour} / {self.vehicle_class}: {self.price}"


class ChildSeat(models.TextChoices):
    """Austria requires a child restraint for children under 14 and shorter than 135 cm, fitted to their
    weight (the UN R44 groups; R129 names them by height)."""

    INFANT_CARRIER = "infant_carrier", _("infant carrier (up to 13 kg, about 0–15 months)")
    CHILD_SEAT = "child_seat", _("child seat (9–18 kg, about 1–4 years)")
    BOOSTER = "booster", _("booster seat (15–36 kg, about 4–12 years)")


class Extra(models.Model):
    """Something a traveller may add to a ride (a child seat, a name sign at arrivals, extra luggage), at
    a gross price taxed as the ride is: an extra serves the ride, so it shares the ride's VAT rate."""

    code = models.SlugField(
        _("code"),
        unique=True,
        validators=[RegexValidator(r"^[a-z0-9][a-z0-9_-]*\Z", _("Small letters, digits, - and _ only."))],
        help_text=_("How the API and the tools name it, e.g. child-seat."),
    )
    name_de = models.CharField(_("name (German)"), max_length=100)
    name_en = models.CharField(_("name (English)"), max_length=100)
    price = money(_("price"), help_text=_("Gross, VAT included (at the ride's rate)."))
    per_piece = models.BooleanField(
        _("per piece"),
        default=True,
        help_text=_("Ticked: the price is per piece. Unticked: once per booking (at most one)."),
    )
    maximum = models.PositiveSmallIntegerField(
        _("most per ride"),
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(9)],
        help_text=_("In any class, unless a class below sets its own."),
    )
    child_seat = models.CharField(
        _("child seat"),
        max_length=20,
        choices=ChildSeat.choices,
        blank=True,
        help_text=_("The age group of a child seat; a ride has no more child seats than passengers."),
    )
    vehicle_must_carry = models.BooleanField(
        _("the vehicle must carry it"),
        default=False,
        help_text=_("Only a vehicle that carries it (vehicles' equipment) can be assigned the ride."),
    )
    active = models.BooleanField(_("active"), default=True)
    order = models.PositiveSmallIntegerField(_("order"), default=0)

    class Meta:
        ordering = ["order", "code"]
        verbose_name, verbose_name_plural = _("extra"), _("extras")

    def __str__(self) -> str:
        return self.name_de if get_language() == "de" else self.name_en


class ExtraLimit(models.Model):
    """A class's own maximum of an extra: 0 where the class does not offer it."""

    extra = models.ForeignKey(Extra, on_delete=models.CASCADE, related_name="limits", verbose_name=_("extra"))
    vehicle_class = models.ForeignKey(
        VehicleClass, on_delete=models.CASCADE, related_name="+", verbose_name=_("vehicle class")
    )
    maximum = models.PositiveSmallIntegerField(
        _("most per ride"), validators=[MaxValueValidator(9)], help_text=_("0: not offered in this class.")
    )

    class Meta:
        verbose_name, verbose_name_plural = _("maximum in a class"), _("maxima in classes")
        constraints = [
            models.UniqueConstraint(fields=["extra", "vehicle_class"], name="one_limit_per_extra_class")
        ]

    def __str__(self) -> str:
        return f"{self.extra} / {self.vehicle_class}: {self.maximum}"
