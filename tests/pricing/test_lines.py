"""Priced lines (pricing/lines.py): every line a quote has becomes a priced line of its kind, at the quote's VAT
rate, in the engine's order and amount, so the lines still sum to the price; a code no kind is known for is
refused rather than guessed."""

from decimal import Decimal as D

import pytest
from hypothesis import given
from hypothesis import strategies as st

from booking import presentation
from pricing.lines import LineKind, PricedLine
from pricing.quote import (
    LINE_KINDS,
    BookingType,
    PriceByHand,
    PriceRequest,
    Quote,
    compute_quote,
    with_price_by_hand,
)
from tests.pricing.defaults import DECISIONS_SNAPSHOT


def quote(**options) -> Quote:
    values = {"vehicle_class": "executive", "distance_km": D("3"), **options}
    return compute_quote(DECISIONS_SNAPSHOT, PriceRequest(**values))


def kinds(result: Quote) -> list[tuple[str, LineKind]]:
    return [(line.code, line.kind) for line in result.priced_lines]


def test_a_ride_by_distance_outside_zone_a_with_waiting():
    result = quote(in_zone_a=False, wait_minutes=20)  # 3 km: the minimum fare tops it up
    assert kinds(result) == [
        ("base_fare", LineKind.FARE),
        ("distance", LineKind.FARE),
        ("minimum_fare", LineKind.FARE),
        ("outside_zone_a", LineKind.EXTRA),
        ("waiting", LineKind.WAITING),
        ("rounding", LineKind.FARE),
    ]
    assert {line.vat_rate for line in result.priced_lines} == {result.vat_rate}


def test_an_hourly_hire_a_tour_and_a_price_by_hand():
    hourly = quote(booking_type=BookingType.HOURLY, duration_hours=D("2"), distance_km=D("400"))
    assert kinds(hourly)[:2] == [("hourly", LineKind.FARE), ("distance_minimum", LineKind.FARE)]
    assert kinds(quote(tour_slug="vienna-city-tour"))[0] == ("tour", LineKind.FARE)
    by_hand = with_price_by_hand(quote(), PriceByHand(D("90.00"), "Agreed"))
    last = by_hand.priced_lines[-1]  # 90.00 set, the tariff's 59.00 for 3 km
    assert (last.kind, last.code, last.amount_cents, last.params["reason"]) == (
        LineKind.ADJUSTMENT,
        "price_by_hand",
        3100,
        "Agreed",
    )


def test_the_lines_carry_the_engines_words_and_numbers_unchanged():
    result = quote(wait_minutes=20)
    assert [(line.code, line.label, line.amount, line.params) for line in result.priced_lines] == [
        (line.code, line.label, line.amount, line.params) for line in result.lines
    ]


def test_a_line_of_no_known_kind_is_refused():
    stored = Quote.from_record(
        {**quote().as_record(), "lines": [{"code": "teleport", "label": "Beam", "amount": "5.00"}]}
    )
    with pytest.raises(KeyError):
        stored.priced_lines  # noqa: B018


def test_an_amount_in_cents_is_exact_or_refused():
    assert PricedLine(LineKind.FARE, "base_fare", D("30.00"), D("0.1")).amount_cents == 3000
    with pytest.raises(ValueError):
        PricedLine(LineKind.FARE, "hourly", D("112.525"), D("0.1")).amount_cents  # noqa: B018


@given(
    st.decimals(min_value=D("0"), max_value=D("2000"), places=1),
    st.integers(min_value=0, max_value=600),
    st.booleans(),
)
def test_the_priced_lines_sum_to_the_price(km, wait, in_zone_a):
    result = quote(distance_km=km, wait_minutes=wait, in_zone_a=in_zone_a)
    assert sum(line.amount for line in result.priced_lines) == result.price
    assert {line.vat_rate for line in result.priced_lines} == {result.vat_rate}


def test_every_line_the_pages_word_has_a_kind():
    """The pages word every code the engine writes (booking/presentation.py): each is of a known kind."""
    assert set(LINE_KINDS) == set(presentation.LINE_LABELS)
