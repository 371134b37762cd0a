"""Stops on the way in the quote engine: a line each, in order, the tariff's stop fee and the wait at the waiting
rate per started quarter hour on a ride by distance, nothing on a hire by the hour or a tour; at most as many as
the class allows."""

from dataclasses import replace
from decimal import Decimal as D
from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apikit.errors import DomainError
from pricing.quote import MAX_STOP_WAIT_MINUTES, BookingType, PriceRequest, compute_quote
from tests.pricing.defaults import DECISIONS_SNAPSHOT


def snapshot(stop_fee="10.00", max_stops=5):
    tariffs = {
        code: replace(tariff, stop_fee=D(stop_fee), max_stops=max_stops)
        for code, tariff in DECISIONS_SNAPSHOT.tariffs.items()
    }
    return replace(DECISIONS_SNAPSHOT, tariffs=MappingProxyType(tariffs))


def quote(prices=None, **options):
    request = PriceRequest(vehicle_class="executive", distance_km=D("21.8"), **options)
    return compute_quote(prices or snapshot(), request)


def test_each_stop_is_a_line_of_its_fee_and_its_wait_before_the_rounding():
    plain = quote()
    stopped = quote(stop_waits=(0, 20))
    codes = [line.code for line in stopped.lines]
    assert codes == ["base_fare", "distance", "stop", "stop", "rounding"]
    first, second = (line for line in stopped.lines if line.code == "stop")
    assert (first.amount, first.label, first.params["number"]) == (D("10.00"), "Stop 1", 1)
    # 20 minutes: two started quarter hours at the executive's 12.00
    assert (second.amount, second.label) == (D("34.00"), "Stop 2, waiting 20 min")
    assert second.params == {
        "number": 2,
        "minutes": 20,
        "blocks": 2,
        "block_minutes": 15,
        "rate": "12",
        "fee": "10.00",
        "included": False,
    }
    assert stopped.price == plain.price + D("44.00")
    assert sum(line.amount for line in stopped.lines) == stopped.price


def test_a_hire_by_the_hour_includes_its_stops():
    hired = quote(booking_type=BookingType.HOURLY, duration_hours=D("3"), stop_waits=(30,))
    plain = quote(booking_type=BookingType.HOURLY, duration_hours=D("3"))
    (stop,) = (line for line in hired.lines if line.code == "stop")
    assert (stop.amount, stop.params["included"]) == (D("0.00"), True)
    assert hired.price == plain.price


def test_more_stops_than_the_class_allows_are_refused_with_its_maximum():
    with pytest.raises(DomainError) as refused:
        quote(snapshot(max_stops=2), stop_waits=(0, 0, 0))
    assert (refused.value.code, refused.value.field, refused.value.extra) == (
        "too_many_stops",
        "stops",
        {"maximumStops": 2},
    )
    assert "at most 2 times" in refused.value.detail
    with pytest.raises(DomainError) as none:
        quote(snapshot(max_stops=0), stop_waits=(0,))
    assert none.value.code == "too_many_stops" and "makes no stops" in none.value.detail


@pytest.mark.parametrize("minutes", [-1, MAX_STOP_WAIT_MINUTES + 1])
def test_a_wait_beyond_its_bounds_is_refused(minutes):
    with pytest.raises(DomainError) as refused:
        quote(stop_waits=(minutes,))
    assert refused.value.field == "stops"


@given(
    st.decimals(min_value=D("0"), max_value=D("500"), places=1),
    st.lists(st.integers(min_value=0, max_value=MAX_STOP_WAIT_MINUTES), max_size=5),
    st.sampled_from(["0.00", "7.50", "10.00"]),
)
def test_the_price_of_a_ride_with_stops_is_the_sum_of_its_lines(km, waits, fee):
    prices = snapshot(stop_fee=fee)
    result = compute_quote(prices, PriceRequest("executive", km, stop_waits=tuple(waits)))
    without = compute_quote(prices, PriceRequest("executive", km))
    assert sum(line.amount for line in result.lines) == result.price
    assert sum(line.amount for line in result.priced_lines) == result.price
    stops = [line.amount for line in result.lines if line.code == "stop"]
    assert len(stops) == len(waits)
    assert stops == [D(fee) + -(-minutes // 15) * D("12") for minutes in waits]
    assert result.price >= without.price
