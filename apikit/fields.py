"""Input/output fields shared by every door (docs/decisions.md §1)."""

import json
import re
import sys
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

# Far outside any bookable time, and keeps date arithmetic clear of datetime's own limits.
EARLIEST_YEAR, LATEST_YEAR = 2000, 2100
# Characters of a date-time as sent: seconds to the nanosecond with an offset take 35.
MAX_DATE_TIME_LENGTH = 40
# Python's own parsers also take "20_0", "２０" (non-ASCII digits) and "inf"; an API should not. A JSON
# number's exponent is taken: a query's "number" is written so by JSON and OpenAPI clients (2.5e-05).
PLAIN_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")
PLAIN_INTEGER = re.compile(r"-?[0-9]+")
# An unencoded "+01:00" in a query string arrives as " 01:00".
LOST_PLUS = re.compile(r"(T[0-9:.]+) ([0-9]{2}:?[0-9]{2})$")


class FixedDecimalField(serializers.DecimalField):
    """DRF's DecimalField with its rounding step and context made once, not for every value (DRF copies
    the thread's context and raises 0.1 to the places each time: a tenth of writing a price's answer)."""

    def __init__(self, *, max_digits: int, decimal_places: int, **kwargs):
        super().__init__(max_digits=max_digits, decimal_places=decimal_places, **kwargs)
        self._step = Decimal(1).scaleb(-decimal_places)
        self._context = Context(prec=max_digits)

    def quantize(self, value: Decimal) -> Decimal:
        return value.quantize(self._step, rounding=self.rounding, context=self._context)


class PlainDecimalField(serializers.DecimalField):
    """A decimal number written plainly (`12.5`), or a JSON number; rounded to `places` decimals so that
    float noise from a client cannot reach the arithmetic."""

    default_error_messages = {"invalid": "Expected a plain decimal number, e.g. 12.5."}

    def __init__(self, *, places: int = 6, **kwargs):
        self.places = Decimal(1).scaleb(-places)
        super().__init__(max_digits=None, decimal_places=None, **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool):
            self.fail("invalid")
        if isinstance(data, int | float):
            try:
                number = Decimal(repr(data))
            except InvalidOperation:
                self.fail("invalid")
        elif isinstance(data, str) and PLAIN_DECIMAL.fullmatch(data.strip()):
            number = Decimal(data.strip())
        else:
            self.fail("invalid")
        if not number.is_finite():
            self.fail("invalid")
        # The bounds hold for the number as sent (the schema's minimum and maximum), before any rounding.
        if self.max_value is not None and number > self.max_value:
            self.fail("max_value", max_value=self.max_value)
        if self.min_value is not None and number < self.min_value:
            self.fail("min_value", min_value=self.min_value)
        if number.adjusted() < 15:  # larger values meet the field's max_value, not the rounding
            number = number.quantize(self.places, ROUND_HALF_UP)
        return super().to_internal_value(number)


class JsonIntegerField(serializers.IntegerField):
    """A JSON integer and nothing else (no "7400", 7400.5 or true): for money, exactness beats leniency.
    7400.0 is the integer 7400 to JSON Schema, so it is taken as that."""

    default_error_messages = {"invalid": "Expected a whole number (a JSON integer), e.g. 7400."}

    def to_internal_value(self, data):
        if isinstance(data, float) and data.is_integer():
            data = int(data)
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class PlainIntegerField(serializers.IntegerField):
    default_error_messages = {"invalid": "Expected a whole number, e.g. 30."}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not (
            (isinstance(data, int)) or (isinstance(data, str) and PLAIN_INTEGER.fullmatch(data.strip()))
        ):
            self.fail("invalid")
        return super().to_internal_value(data)


class TextField(serializers.CharField):
    """Text trimmed of surrounding whitespace, whose `max_length` counts the characters as sent, that
    whitespace included: what a JSON Schema `maxLength` (and every client checking it) counts. Blank and
    `min_length` are judged after trimming, as DRF does."""

    def run_validation(self, data=serializers.empty):
        if isinstance(data, str) and self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().run_validation(data)


class JsonBooleanField(serializers.BooleanField):
    """JSON true or false and nothing else ("yes", 1 or "true" are refused), as the schema states it."""

    default_error_messages = {"invalid": "Expected true or false."}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


@extend_schema_field({"type": "boolean", "enum": [True]})
class AcceptanceField(serializers.BooleanField):
    """A box the caller must tick: JSON true and nothing else ("yes", 1 or false are refused), as the
    schema states it."""

    default_error_messages = {"not_accepted": "Must be true."}

    def to_internal_value(self, data):
        if data is not True:
            self.fail("not_accepted")
        return True


def localize(naive: datetime) -> datetime:
    """A wall-clock time in the operator's zone; refuses times a DST change skips or repeats."""
    zone = timezone.get_default_timezone()
    aware = naive.replace(tzinfo=zone)
    if aware.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != naive:
        raise serializers.ValidationError(
            f"{naive.isoformat()} does not exist in {zone.key} (clocks go forward); add a UTC offset."
        )
    if naive.replace(fold=1, tzinfo=zone).utcoffset() != aware.utcoffset():
        raise serializers.ValidationError(
            f"{naive.isoformat()} happens twice in {zone.key} (clocks go back); add a UTC offset."
        )
    return aware


@extend_schema_field(OpenApiTypes.DATETIME)
class LocalDateTimeField(serializers.Field):
    """ISO 8601 date-time. Without an offset it is the operator's local time (Europe/Vienna); output is
    always ISO 8601 with offset, to the second."""

    default_error_messages = {
        "invalid": "Expected an ISO 8601 date-time, e.g. 2026-11-21T14:30:00+01:00.",
        "out_of_range": f"Expected a date-time between the years {EARLIEST_YEAR} and {LATEST_YEAR}.",
        "too_long": f"Expected an ISO 8601 date-time of at most {MAX_DATE_TIME_LENGTH} characters.",
    }

    def to_internal_value(self, data: object) -> datetime:
        if isinstance(data, str) and len(data) > MAX_DATE_TIME_LENGTH:
            self.fail("too_long")
        text = LOST_PLUS.sub(r"\1+\2", data.strip()) if isinstance(data, str) else ""
        if len(text) <= len("2026-11-21"):  # a date alone names no time of day
            self.fail("invalid")
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            self.fail("invalid")
        if not EARLIEST_YEAR <= parsed.year <= LATEST_YEAR:
            self.fail("out_of_range")
        return localize(parsed) if parsed.tzinfo is None else parsed

    def to_representation(self, value: datetime) -> str:
        return timezone.localtime(value).isoformat(
            timespec="seconds"
        )  # stored in UTC, answered in Vienna time


def json_size(value: object) -> int:
    """Bytes of a value as compact UTF-8 JSON: what storing it costs. Limits on what callers may have us
    store count these, since 200 characters or values can still be megabytes. Nesting too deep to write
    counts as endless."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except RecursionError:
        return sys.maxsize
    return len(text.encode(errors="surrogatepass"))


def too_large(max_bytes: int | str) -> str:
    return f"Larger than {max_bytes} bytes as JSON (UTF-8)."


class QueryListField(serializers.ListField):
    """A list a query string gives as one value, its items separated by `query_delimiter` (`a,b`; `a|b` where
    the items hold commas: OpenAPI `pipeDelimited`); a JSON body gives a list. Optional; an empty query
    value is no items."""

    query_delimiter = ","

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, str):
            data = data.split(self.query_delimiter) if data else []
        return super().to_internal_value(data)


class JsonObjectField(serializers.DictField):
    """A free-form JSON object, kept small and storable: bounded in bytes, depth and values, no NUL
    characters (PostgreSQL's jsonb refuses them; lone surrogates never get past the JSON parser)."""

    default_error_messages = {
        "too_deep": "Nested deeper than {max_depth} levels.",
        "too_large": "Larger than {max_items} values in all.",
        "too_many_bytes": too_large("{max_bytes}"),
        "bad_text": "Contains characters that cannot be stored (NUL).",
    }

    def __init__(self, *, max_bytes: int, max_depth: int = 5, max_items: int = 200, **kwargs):
        self.max_bytes, self.max_depth, self.max_items = max_bytes, max_depth, max_items
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if json_size(data) > self.max_bytes:  # before DRF copies it value by value
            self.fail("too_many_bytes", max_bytes=self.max_bytes)
        value = super().to_internal_value(data)
        if self._count(value, depth=1) > self.max_items:
            self.fail("too_large", max_items=self.max_items)
        return value

    def _count(self, value, depth: int) -> int:
        if depth > self.max_depth:
            self.fail("too_deep", max_depth=self.max_depth)
        if isinstance(value, dict):
            return sum(self._count(key, depth) + self._count(item, depth + 1) for key, item in value.items())
        if isinstance(value, list):
            return sum(self._count(item, depth + 1) for item in value)
        if isinstance(value, str) and "\x00" in value:
            self.fail("bad_text")
        return 1


# Adds the text field `from`: a Python keyword, so a serializer cannot declare it as a class attribute. Its
# options are a plain dict, since DRF would collect a Field attribute as a field of its own name. (A comment,
# not a docstring: drf-spectacular would publish a docstring as the description of a declaration using it.)
class FromFieldMixin:
    from_options: dict = {}

    def get_fields(self):
        return {"from": TextField(**self.from_options), **super().get_fields()}
