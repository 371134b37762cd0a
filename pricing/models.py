"""Tariff tables staff edit in the admin (docs/decisions.md §4). All amounts are gross EUR including VAT."""

from decimal import Decimal

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from pricing.quote import MIN_HOURLY_HOURS

NOT_NEGATIVE = [MinValueValidator(Decimal("0"))]


def money(verbose_name: str, **kwargs) -> models.DecimalField:
    return models.DecimalField(
        verbose_name, max_digits=9, decimal_places=2, validators=NOT_NEGATIVE, **kwargs
    )


class VehicleClass(models.Model):
    class Code(models.TextChoices):
        EXECUTIVE = "executive", "Executive"
        FIRST = "first", "First"
        BUSINESS_VAN = "business-van", "Business van"

    code = models.SlugField(unique=True, choices=Code.choices)
    display_name = models.CharField(max_length=100)
    passengers = models.PositiveSmallIntegerField()
    luggage = models.PositiveSmallIntegerField(help_text="Pieces of luggage")
    order = models.PositiveSmallIntegerField(default=0)
    active = models.BooleanField(default=True, help_text="Inactive classes cannot be quoted or booked.")

    class Meta:
        ordering = ["order", "code"]
        verbose_name_plural = "vehicle classes"

    def __str__(self) -> str:
        return self.display_name


class Tariff(models.Model):
    vehicle_class = models.OneToOneField(VehicleClass, on_delete=models.CASCADE, related_name="tariff")
    base_fare = money("base fare")
    minimum_fare = money("minimum fare", help_text="Floor of base fare + distance charge.")
    outside_zone_a_surcharge = money("outside Zone A surcharge", help_text="When neither end is in Zone A.")
    waiting_rate = money("waiting rate", help_text="Per started 15 minutes of waiting.")
    hourly_rate = money("hourly rate", help_text="Per hour; billed per started half hour.")
    minimum_hours = models.DecimalField(
        max_digits=4,
        decimal_places=1,
        default=MIN_HOURLY_HOURS,
        validators=[MinValueValidator(MIN_HOURLY_HOURS)],
        help_text=(
            f"Least hours of an hourly booking: {MIN_HOURLY_HOURS} or more "
            f"(the API contract's minimum is {MIN_HOURLY_HOURS})."
        ),
    )
    rounding_step = models.DecimalField(
        max_digits=6,
        decimal_places=2,
        default=Decimal("1.00"),
        validators=[MinValueValidator(Decimal("0.01"))],
        help_text="The gross price is rounded up to a multiple of this.",
    )
    vat_rate = models.DecimalField(
        "VAT rate",
        max_digits=4,
        decimal_places=3,
        default=Decimal("0.100"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("1"))],
        help_text="0.100 = 10 % (Austrian passenger transport).",
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Tariff {self.vehicle_class}"


class DistanceBand(models.Model):
    tariff = models.ForeignKey(Tariff, on_delete=models.CASCADE, related_name="bands")
    from_km = models.DecimalField("from km", max_digits=7, decimal_places=1, validators=NOT_NEGATIVE)
    to_km = models.DecimalField(
        "to km", max_digits=7, decimal_places=1, null=True, blank=True, help_text="Empty: no upper end."
    )
    rate_per_km = money("EUR per km")

    class Meta:
        ordering = ["from_km"]

    def __str__(self) -> str:
        return f"{self.from_km}–{self.to_km or '∞'} km: {self.rate_per_km} EUR/km"


class Tour(models.Model):
    slug = models.SlugField(unique=True)
    name_de = models.CharField("name (German)", max_length=200)
    name_en = models.CharField("name (English)", max_length=200)
    included_hours = models.DecimalField(max_digits=4, decimal_places=1, validators=NOT_NEGATIVE)
    # What the booking form shows when the tour is chosen (issue 19).
    description_de = models.TextField("description (German)", blank=True, max_length=1000)
    description_en = models.TextField("description (English)", blank=True, max_length=1000)
    area_radius_km = models.DecimalField(
        "area (km from Vienna's centre)",
        max_digits=5,
        decimal_places=1,
        default=Decimal("25.0"),
        validators=[MinValueValidator(Decimal("1"))],
        help_text="Pickup and drop-off of the tour must both lie within this distance of Stephansplatz.",
    )
    active = models.BooleanField(default=True)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "slug"]

    def __str__(self) -> str:
        return self.name_en


class TourPrice(models.Model):
    tour = models.ForeignKey(Tour, on_delete=models.CASCADE, related_name="prices")
    vehicle_class = models.ForeignKey(VehicleClass, on_delete=models.CASCADE, related_name="tour_prices")
    price = money("price")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tour", "vehicle_class"], name="one_price_per_tour_class")
        ]

    def __str__(self) -> str:
        return f"{self.tour} / {self.vehicle_class}: {self.price}"
