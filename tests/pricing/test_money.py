"""pricing/money.py: a percentage of cents, rounded half up to the cent (the cancellation and no-show fees)."""

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pricing.money import percent_of


@pytest.mark.parametrize(
    ("cents", "percent", "expected"),
    [
        (5, Decimal("50"), 3),  # 2.5: half goes up (half-even would give 2)
        (4985, Decimal("10"), 499),  # 498.5: up again (half-even: 498)
        (249, Decimal("1"), 2),  # 2.49: below half goes down
        (7400, Decimal("12.5"), 925),  # exact
        (333, Decimal("33.33"), 111),  # 110.9889
        (7400, Decimal("100"), 7400),
        (7400, Decimal("0"), 0),
    ],
)
def test_percent_of_rounds_half_up_to_the_cent(cents, percent, expected):
    assert percent_of(cents, percent) == expected


@given(
    cents=st.integers(0, 10_000_000),
    percent=st.decimals(min_value=0, max_value=100, places=2, allow_nan=False, allow_infinity=False),
)
def test_percent_of_is_the_exact_share_rounded_half_up(cents, percent):
    exact = Fraction(cents) * Fraction(percent) / 100
    assert percent_of(cents, percent) == math.floor(exact + Fraction(1, 2))
