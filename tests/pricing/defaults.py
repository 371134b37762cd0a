"""docs/decisions.md §4 written out by hand: the reference the seeded tables and the engine are checked against."""

from decimal import Decimal as D
from types import MappingProxyType

from pricing.snapshot import Band, ExtraOffer, PricingSnapshot, TariffRates, TourOffer


def _tariff(code, name, base, minimum, outside, waiting, hourly, rates, seats, luggage):
    bands = (
        Band(D("0"), D("50"), rates[0]),
        Band(D("50"), D("200"), rates[1]),
        Band(D("200"), None, rates[2]),
    )
    return TariffRates(
        vehicle_class=code,
        display_name=name,
        active=True,
        base_fare=base,
        minimum_fare=minimum,
        outside_zone_a_surcharge=outside,
        waiting_rate=waiting,
        hourly_rate=hourly,
        minimum_hours=D("2"),
        rounding_step=D("1.00"),
        vat_rate=D("0.100"),
        bands=bands,
        passengers=seats,
        luggage=luggage,
    )


def _extra(code, name_en, name_de, price, per_piece, maximum, child_seat="", must_carry=False, van=None):
    maxima = MappingProxyType({} if van is None else {"business-van": van})
    return ExtraOffer(code, name_en, name_de, D(price), per_piece, maximum, maxima, child_seat, must_carry)


DECISIONS_SNAPSHOT = PricingSnapshot(
    tariffs=MappingProxyType(
        {
            "executive": _tariff(
                "executive",
                "Executive Class",
                D("30"),
                D("59"),
                D("40"),
                D("12"),
                D("65"),
                (D("2.00"), D("1.60"), D("1.40")),
                3,
                3,
            ),
            "first": _tariff(
                "first",
                "First Class",
                D("50"),
                D("99"),
                D("60"),
                D("18"),
                D("95"),
                (D("3.00"), D("2.40"), D("2.10")),
                3,
                2,
            ),
            "business-van": _tariff(
                "business-van",
                "Business Van",
                D("40"),
                D("79"),
                D("50"),
                D("15"),
                D("80"),
                (D("2.40"), D("1.90"), D("1.70")),
                7,
                7,
            ),
        }
    ),
    tours=MappingProxyType(
        {
            "vienna-city-tour": TourOffer(
                "vienna-city-tour",
                "Vienna City Tour",
                "Wiener Stadtrundfahrt",
                D("3"),
                D("25.0"),
                True,
                MappingProxyType({"executive": D("249"), "first": D("349"), "business-van": D("299")}),
                "Three hours through Vienna with your chauffeur: the Ringstrasse, Schönbrunn Palace, the "
                "Belvedere and the Prater, with stops where you like.",
                "Drei Stunden mit Ihrem Chauffeur durch Wien: Ringstraße, Schloss Schönbrunn, Belvedere und "
                "Prater, mit Halt, wo Sie möchten.",
            ),
            "wachau-valley": TourOffer(
                "wachau-valley",
                "Wachau Valley",
                "Wachau",
                D("8"),
                D("100.0"),
                True,
                MappingProxyType({"executive": D("690"), "first": D("990"), "business-van": D("790")}),
                "A day in the Wachau valley: Melk Abbey, Dürnstein and the vineyards along the Danube, back "
                "in Vienna in the evening.",
                "Ein Tag in der Wachau: Stift Melk, Dürnstein und die Weingärten an der Donau, am Abend "
                "zurück in Wien.",
            ),
        }
    ),
    extras=MappingProxyType(
        {
            extra.code: extra
            for extra in (
                _extra(
                    "infant-carrier", "Infant carrier", "Babyschale", "10.00", True, 2, "infant_carrier", True
                ),
                _extra("child-seat", "Child seat", "Kindersitz", "10.00", True, 2, "child_seat", True, van=3),
                _extra(
                    "booster-seat", "Booster seat", "Sitzerhöhung", "5.00", True, 2, "booster", True, van=3
                ),
                _extra(
                    "name-sign", "Name sign at arrivals", "Namensschild bei der Ankunft", "15.00", False, 1
                ),
                _extra(
                    "bulky-luggage",
                    "Bulky luggage (skis, golf bag, bicycle)",
                    "Sperrgepäck (Ski, Golfbag, Fahrrad)",
                    "10.00",
                    True,
                    1,
                    van=3,
                ),
            )
        }
    ),
)
