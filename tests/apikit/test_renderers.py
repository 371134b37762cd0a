"""The API's JSON (apikit/renderers.py): DRF's JSON, with Decimal amounts written with their places."""

import uuid
from datetime import date, datetime, time
from decimal import Decimal
from typing import NamedTuple
from zoneinfo import ZoneInfo

from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer

from apikit.renderers import Answer, Written, dumps


class Pair(NamedTuple):
    first: int
    second: str


def test_what_drf_writes_is_written_alike():
    data = {
        "pair": Pair(1, "two"),
        "tuple": (1, 2),
        "date": date(2026, 12, 24),
        "moment": datetime(2026, 12, 24, 18, 30, tzinfo=ZoneInfo("Europe/Vienna")),
        "time": time(18, 30),
        "id": uuid.UUID(int=7),
        "lazy": gettext_lazy("Vienna"),
        "text": "Wien – Flughafen ✈",
        "numbers": [1, 2.5, None, True],
    }
    assert dumps(data) == JSONRenderer().render(data).decode()


def test_amounts_keep_their_places():
    assert (
        dumps({"priceEur": Decimal("70.00"), "lines": [Decimal("0.50")]})
        == '{"priceEur":70.00,"lines":[0.50]}'
    )


def test_an_answer_is_the_json_with_its_type_and_an_empty_one_has_none():
    answer = Answer({"priceEur": Decimal("70.00")}, status=201, headers={"Location": "/x"})
    assert (answer.status_code, answer.content, answer["Content-Type"]) == (
        201,
        b'{"priceEur":70.00}',
        "application/json",
    )
    assert answer["Location"] == "/x" and answer.data == {"priceEur": Decimal("70.00")}
    empty = Answer(None, status=204)
    assert empty.content == b"" and "Content-Type" not in empty


def test_a_written_value_is_copied_as_the_value_would_be_written():
    value = {"priceEur": Decimal("70.00"), "label": "Wien – Flughafen ✈", "moment": date(2026, 12, 24)}
    written = Written(value)
    assert written.value is value and written.encoded_json == dumps(value)
    assert dumps({"result": {"text": written.encoded_json, "structured": written}}) == dumps(
        {"result": {"text": dumps(value), "structured": value}}
    )
