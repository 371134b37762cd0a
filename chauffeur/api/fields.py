"""Input/output fields shared by every door (DECISIONS §1)."""

from datetime import UTC, datetime

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

# Far outside any bookable time, and keeps date arithmetic clear of datetime's own limits.
EARLIEST_YEAR, LATEST_YEAR = 2000, 2100


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
    }

    def to_internal_value(self, data: object) -> datetime:
        text = data.strip() if isinstance(data, str) else ""
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
        return value.isoformat(timespec="seconds")
