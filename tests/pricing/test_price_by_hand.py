"""A price set by hand (pricing/quote.py): the tariff's lines and one line with the difference, so the lines
sum to the new price; net + VAT is the price at the tariff's rate; removing it gives the tariff's quote back;
a price out of range or without a reason is refused."""

from decimal import Decimal as D

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apikit.errors import DomainError
from pricing.quote import (
    PriceByHand,
    PriceRequest,
    compute_quote,
    price_by_hand_of,
    with_price_by_hand,
    without_price_by_hand,
)
from tests.pricing.defaults import DECISIONS_SNAPSHOT

TARIFF = compute_quote(DECISIONS_SNAPSHOT, PriceRequest(vehicle_class="executive", distance_km=D("21.8")))
prices = st.decimals(min_value=D("1.00"), max_value=D("99999.99"), places=2)


@given(prices, prices)
def test_the_lines_sum_to_the_price_set_and_removing_it_restores_the_tariff(first, second):
    once = with_price_by_hand(TARIFF, PriceByHand(first, "Agreed"))
    again = with_price_by_hand(once, PriceByHand(second, "Corrected"))  # set again: one line, not two
    assert sum(line.amount for line in again.lines) == again.price == second
    assert again.net + again.vat == second and again.vat_rate == TARIFF.vat_rate
    assert [line.code for line in again.lines].count("price_by_hand") == 1
    assert price_by_hand_of(again) == PriceByHand(second, "Corrected")
    assert without_price_by_hand(again) == TARIFF and price_by_hand_of(TARIFF) is None


def test_the_line_keeps_the_tariffs_price_and_the_reason():
    quote = with_price_by_hand(TARIFF, PriceByHand(D("90.00"), "  Agreed   congress price "))
    line = quote.lines[-1]
    assert (line.amount, line.params) == (D("16.00"), {"reason": "Agreed congress price", "tariff": "74.00"})
    assert type(quote).from_record(quote.as_record()) == quote
    assert with_price_by_hand(TARIFF, PriceByHand(D("90"), "x")).as_record()["price"] == "90.00"


@pytest.mark.parametrize(
    ("amount", "reason", "field"),
    [
        (D("0.99"), "x", "price"),
        (D("100000"), "x", "price"),
        (D("90.001"), "x", "price"),
        (D("90"), "  ", "price_reason"),
        (D("90"), "x" * 151, "price_reason"),
    ],
)
def test_a_price_out_of_range_or_without_a_reason_is_refused(amount, reason, field):
    with pytest.raises(DomainError) as refused:
        with_price_by_hand(TARIFF, PriceByHand(amount, reason))
    assert refused.value.field == field
