"""The quote engine against docs/decisions.md §4: the worked example, the edge of every band and minimum, and
the invariants every price must keep (hypothesis)."""

from decimal import Decimal as D

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apikit.errors import DomainError
from pricing.quote import BookingType, PriceRequest, Quote, compute_quote
from tests.pricing.defaults import DECISIONS_SNAPSHOT


def quote(vehicle_class="executive", distance_km="20", **options):
    return compute_quote(
        DECISIONS_SNAPSHOT, PriceRequest(vehicle_class=vehicle_class, distance_km=D(distance_km), **options)
    )


def lines(result) -> dict[str, D]:
    return {line.code: line.amount for line in result.lines}


def test_the_decisions_example_executive_20_km_in_zone_a_is_70_eur():
    result = quote()
    assert result.price == D("70.00")
    assert lines(result) == {"base_fare": D("30"), "distance": D("40.00"), "rounding": D("0.00")}
    assert (result.net, result.vat, result.vat_rate) == (D("63.64"), D("6.36"), D("0.100"))
    assert (result.currency, result.vehicle_class, result.booking_type) == ("EUR", "executive", "distance")


@pytest.mark.parametrize(
    ("vehicle_class", "km", "price"),
    [
        # Minimum fare: executive 30 + km × 2.00 reaches 59 at 14.5 km.
        ("executive", "0", "59.00"),
        ("executive", "14.4", "59.00"),
        ("executive", "14.5", "59.00"),
        ("executive", "14.6", "60.00"),  # 59.20 rounded up
        # First band ends at 50 km, the second at 200 km.
        ("executive", "50", "130.00"),
        ("executive", "50.1", "131.00"),  # 130.16
        ("executive", "200", "370.00"),
        ("executive", "200.1", "371.00"),  # 370.14
        ("executive", "250", "440.00"),
        ("first", "0", "99.00"),
        ("first", "16.3", "99.00"),  # 50 + 48.90 = 98.90 → minimum
        ("first", "16.4", "100.00"),  # 99.20
        ("first", "50", "200.00"),
        ("first", "200", "560.00"),
        ("first", "250", "665.00"),
        ("business-van", "0", "79.00"),
        ("business-van", "16.2", "79.00"),  # 40 + 38.88 = 78.88 → minimum
        ("business-van", "16.3", "80.00"),  # 79.12
        ("business-van", "50", "160.00"),
        ("business-van", "200", "445.00"),
        ("business-van", "250", "530.00"),
    ],
)
def test_distance_price_at_the_edge_of_every_band_and_minimum(vehicle_class, km, price):
    assert quote(vehicle_class, km).price == D(price)


def test_minimum_fare_line_fills_the_gap_and_is_absent_at_the_minimum():
    assert lines(quote(distance_km="14.4"))["minimum_fare"] == D("0.20")
    assert "minimum_fare" not in lines(quote(distance_km="14.5"))


def test_distance_is_charged_per_band_and_rounded_to_a_tenth_of_a_km():
    result = quote(distance_km="250")
    assert lines(result)["distance"] == D("410.00")  # 50 × 2.00 + 150 × 1.60 + 50 × 1.40
    assert "50.0 km × 1.40" in next(line.label for line in result.lines if line.code == "distance")
    assert quote(distance_km="20.04").price == quote(distance_km="20.0").price
    assert lines(quote(distance_km="20.05"))["distance"] == D("40.20")


@pytest.mark.parametrize(
    ("vehicle_class", "surcharge"), [("executive", "40"), ("first", "60"), ("business-van", "50")]
)
def test_outside_zone_a_adds_the_surcharge(vehicle_class, surcharge):
    inside, outside = quote(vehicle_class, "20"), quote(vehicle_class, "20", in_zone_a=False)
    assert outside.price - inside.price == D(surcharge)
    assert lines(outside)["outside_zone_a"] == D(surcharge)


@pytest.mark.parametrize(("minutes", "blocks"), [(1, 1), (15, 1), (16, 2), (30, 2), (31, 3), (0, 0)])
def test_waiting_is_billed_per_started_quarter_hour(minutes, blocks):
    result = quote(wait_minutes=minutes)
    assert result.price == D("70.00") + blocks * D("12.00")
    assert ("waiting" in lines(result)) == (blocks > 0)


@pytest.mark.parametrize(
    ("hours", "price"),
    [("2", "130.00"), ("2.5", "162.50"), ("2.1", "162.50"), ("3", "195.00"), ("8", "520.00")],
)
def test_hourly_is_rate_times_started_half_hours(hours, price):
    result = quote(distance_km="0", booking_type=BookingType.HOURLY, duration_hours=D(hours))
    assert lines(result)["hourly"] == D(price)
    assert result.booking_type == "hourly"
    assert result.price == D(price).quantize(D("1"), rounding="ROUND_CEILING")


@pytest.mark.parametrize("hours", [None, "1.9", "0"])
def test_hourly_needs_at_least_the_minimum_hours(hours):
    with pytest.raises(DomainError) as error:
        quote(booking_type=BookingType.HOURLY, duration_hours=None if hours is None else D(hours))
    assert (error.value.code, error.value.field) == ("invalid_request", "duration_hours")


@pytest.mark.parametrize(
    ("slug", "vehicle_class", "price"),
    [
        ("vienna-city-tour", "executive", "249.00"),
        ("vienna-city-tour", "first", "349.00"),
        ("vienna-city-tour", "business-van", "299.00"),
        ("wachau-valley", "executive", "690.00"),
        ("wachau-valley", "first", "990.00"),
        ("wachau-valley", "business-van", "790.00"),
    ],
)
def test_tour_price_replaces_the_distance_charge(slug, vehicle_class, price):
    result = quote(vehicle_class, "120", tour_slug=slug, in_zone_a=False)
    assert result.price == D(price)
    assert set(lines(result)) == {"tour", "rounding"}


def test_waiting_is_added_to_a_tour():
    assert quote(tour_slug="vienna-city-tour", wait_minutes=30).price == D("273.00")


def test_unknown_tour_is_refused_with_its_own_code():
    with pytest.raises(DomainError) as error:
        quote(tour_slug="moon-landing")
    assert (error.value.code, error.value.field) == ("unknown_tour", "tour_slug")
    assert "vienna-city-tour" in error.value.detail


def test_a_tour_cannot_be_hired_by_the_hour():
    with pytest.raises(DomainError) as error:
        quote(tour_slug="vienna-city-tour", booking_type=BookingType.HOURLY, duration_hours=D("3"))
    assert error.value.field == "tour_slug"


def test_unknown_vehicle_class_is_refused():
    with pytest.raises(DomainError) as error:
        quote("limousine")
    assert error.value.field == "vehicle_class"


def test_rounding_follows_the_tariff_step():
    from dataclasses import replace
    from types import MappingProxyType

    tariff = replace(DECISIONS_SNAPSHOT.tariffs["executive"], rounding_step=D("5.00"))
    snapshot = replace(DECISIONS_SNAPSHOT, tariffs=MappingProxyType({"executive": tariff}))
    result = compute_quote(snapshot, PriceRequest(vehicle_class="executive", distance_km=D("20.6")))
    assert result.price == D("75.00")  # 71.20 up to the next 5
    assert lines(result)["rounding"] == D("3.80")


# --- invariants ---------------------------------------------------------------------------------------

classes = st.sampled_from(sorted(DECISIONS_SNAPSHOT.tariffs))
distances = st.decimals(min_value=0, max_value=10000, places=2)
waits = st.integers(min_value=0, max_value=1440)
hours = st.decimals(min_value=2, max_value=24, places=2)
requests = st.one_of(
    st.builds(
        PriceRequest,
        vehicle_class=classes,
        distance_km=distances,
        in_zone_a=st.booleans(),
        wait_minutes=waits,
        tour_slug=st.sampled_from([None, "vienna-city-tour", "wachau-valley"]),
    ),
    st.builds(
        PriceRequest,
        vehicle_class=classes,
        distance_km=distances,
        booking_type=st.just(BookingType.HOURLY),
        wait_minutes=waits,
        duration_hours=hours,
    ),
)


@given(vehicle_class=classes, first=distances, second=distances, in_zone_a=st.booleans(), wait=waits)
def test_price_never_decreases_with_distance(vehicle_class, first, second, in_zone_a, wait):
    near, far = sorted([first, second])
    options = {"in_zone_a": in_zone_a, "wait_minutes": wait}
    assert quote(vehicle_class, str(near), **options).price <= quote(vehicle_class, str(far), **options).price


@given(requests)
def test_lines_sum_to_the_gross_and_gross_is_net_plus_vat(quote_request):
    result = compute_quote(DECISIONS_SNAPSHOT, quote_request)
    assert sum(line.amount for line in result.lines) == result.price
    assert result.net == (result.price / (1 + result.vat_rate)).quantize(D("0.01"), rounding="ROUND_HALF_UP")
    assert result.vat == result.price - result.net
    assert result.price % D("1.00") == 0
    rounding = lines(result)["rounding"]
    assert D("0") <= rounding < D("1.00")
    assert all(line.amount >= 0 and line.amount == line.amount.quantize(D("0.01")) for line in result.lines)


@pytest.mark.parametrize(
    "request_",
    [
        PriceRequest(vehicle_class="first", distance_km=D("212.35"), in_zone_a=False, wait_minutes=20),
        PriceRequest(
            vehicle_class="business-van",
            distance_km=D("0"),
            booking_type=BookingType.HOURLY,
            duration_hours=D("3.2"),
        ),
    ],
)
def test_a_quote_survives_its_stored_record_exactly(request_):
    quote = compute_quote(DECISIONS_SNAPSHOT, request_)
    record = quote.as_record()
    assert Quote.from_record(record) == quote
    assert all(
        isinstance(record[key], str) for key in ("price", "net", "vat", "vat_rate")
    )  # exact, not float


def test_an_hourly_hire_costs_at_least_the_same_ride_by_distance():
    hourly = quote(
        "executive", "426.6", booking_type=BookingType.HOURLY, duration_hours=D("5"), in_zone_a=False
    )
    by_distance = quote("executive", "426.6", in_zone_a=False)
    assert hourly.price == by_distance.price
    assert [line.code for line in hourly.lines] == ["hourly", "distance_minimum", "rounding"]
    short = quote("executive", "20", booking_type=BookingType.HOURLY, duration_hours=D("3"))
    assert [line.code for line in short.lines] == ["hourly", "rounding"]  # the hours cost more: no minimum
