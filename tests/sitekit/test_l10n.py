"""The one formatting rule for money and dates (sitekit/l10n.py), in both languages."""

from datetime import date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.template import Context, Template
from django.utils import translation

from sitekit import l10n

NBSP = "\u00a0"
# 28 November 2026 was a Saturday; 09:00 UTC is 10:00 in Vienna.
MOMENT = datetime(2026, 11, 28, 9, 0, tzinfo=ZoneInfo("UTC"))


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "de",
            {
                "money": f"74,00{NBSP}€",
                "big": f"1.234,50{NBSP}€",
                "day": "Sa., 28.11.2026",
                "day_time": "Sa., 28.11.2026, 10:00",
                "short": "28.11.2026 10:00",
            },
        ),
        (
            "en",
            {
                "money": "€74.00",
                "big": "€1,234.50",
                "day": "Sat 28.11.2026",
                "day_time": "Sat 28.11.2026, 10:00",
                "short": "28.11.2026 10:00",
            },
        ),
    ],
)
def test_money_and_dates_in_each_language(language, expected):
    with translation.override(language):
        assert l10n.money(Decimal("74")) == expected["money"]
        assert l10n.money("1234.5") == expected["big"]
        assert l10n.day(MOMENT) == expected["day"]
        assert l10n.day(date(2026, 11, 28)) == expected["day"]
        assert l10n.day_time(MOMENT) == expected["day_time"]
        assert l10n.short(MOMENT) == expected["short"]


def test_a_moment_is_read_in_vienna_even_across_midnight():
    late = datetime(2026, 11, 27, 23, 30, tzinfo=ZoneInfo("UTC"))  # 00:30 on Saturday in Vienna
    with translation.override("de"):
        assert l10n.day_time(late) == "Sa., 28.11.2026, 00:30"


def test_other_currencies_keep_their_code():
    with translation.override("de"):
        assert l10n.money("5", "usd") == f"5,00{NBSP}USD"
    with translation.override("en"):
        assert l10n.money("5", "usd") == "USD5.00"


def test_the_template_filters_follow_the_same_rule():
    template = Template("{% load l10n_extras %}{{ price|money }} · {{ at|day_time }} · {{ none|day }}")
    with translation.override("de"):
        text = template.render(Context({"price": Decimal("74.00"), "at": MOMENT, "none": None}))
    assert text == f"74,00{NBSP}€ · Sa., 28.11.2026, 10:00 · "
