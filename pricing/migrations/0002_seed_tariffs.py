"""Seed the default tariffs of docs/decisions.md §4 (gross EUR incl. 10 % VAT)."""

from decimal import Decimal as D

from django.db import migrations

CLASSES = [
    # code, display name, passengers, luggage, order
    ("executive", "Executive Class", 3, 3, 1),
    ("first", "First Class", 3, 2, 2),
    ("business-van", "Business Van", 7, 7, 3),
]
TARIFFS = {
    # base, minimum, outside Zone A, waiting per 15 min, hourly, bands [(from, to, rate)]
    "executive": (
        D("30.00"),
        D("59.00"),
        D("40.00"),
        D("12.00"),
        D("65.00"),
        [(D("0"), D("50"), D("2.00")), (D("50"), D("200"), D("1.60")), (D("200"), None, D("1.40"))],
    ),
    "first": (
        D("50.00"),
        D("99.00"),
        D("60.00"),
        D("18.00"),
        D("95.00"),
        [(D("0"), D("50"), D("3.00")), (D("50"), D("200"), D("2.40")), (D("200"), None, D("2.10"))],
    ),
    "business-van": (
        D("40.00"),
        D("79.00"),
        D("50.00"),
        D("15.00"),
        D("80.00"),
        [(D("0"), D("50"), D("2.40")), (D("50"), D("200"), D("1.90")), (D("200"), None, D("1.70"))],
    ),
}
TOURS = [
    # slug, English, German, hours, prices by class, order
    (
        "vienna-city-tour",
        "Vienna City Tour",
        "Wiener Stadtrundfahrt",
        D("3"),
        {"executive": D("249.00"), "first": D("349.00"), "business-van": D("299.00")},
        1,
    ),
    (
        "wachau-valley",
        "Wachau Valley",
        "Wachau",
        D("8"),
        {"executive": D("690.00"), "first": D("990.00"), "business-van": D("790.00")},
        2,
    ),
]


def seed(apps, schema_editor):
    VehicleClass = apps.get_model("pricing", "VehicleClass")
    Tariff = apps.get_model("pricing", "Tariff")
    DistanceBand = apps.get_model("pricing", "DistanceBand")
    Tour = apps.get_model("pricing", "Tour")
    TourPrice = apps.get_model("pricing", "TourPrice")
    classes = {}
    for code, name, passengers, luggage, order in CLASSES:
        classes[code] = VehicleClass.objects.create(
            code=code, display_name=name, passengers=passengers, luggage=luggage, order=order
        )
        base, minimum, outside, waiting, hourly, bands = TARIFFS[code]
        tariff = Tariff.objects.create(
            vehicle_class=classes[code],
            base_fare=base,
            minimum_fare=minimum,
            outside_zone_a_surcharge=outside,
            waiting_rate=waiting,
            hourly_rate=hourly,
            minimum_hours=D("2"),
            rounding_step=D("1.00"),
            vat_rate=D("0.100"),
        )
        for start, end, rate in bands:
            DistanceBand.objects.create(tariff=tariff, from_km=start, to_km=end, rate_per_km=rate)
    for slug, name_en, name_de, hours, prices, order in TOURS:
        tour = Tour.objects.create(
            slug=slug, name_en=name_en, name_de=name_de, included_hours=hours, order=order
        )
        for code, price in prices.items():
            TourPrice.objects.create(tour=tour, vehicle_class=classes[code], price=price)


def unseed(apps, schema_editor):
    apps.get_model("pricing", "Tour").objects.filter(slug__in=[tour[0] for tour in TOURS]).delete()
    apps.get_model("pricing", "VehicleClass").objects.filter(code__in=TARIFFS).delete()


class Migration(migrations.Migration):
    dependencies = [("pricing", "0001_initial")]
    operations = [migrations.RunPython(seed, unseed)]
