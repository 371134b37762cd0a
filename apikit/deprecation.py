"""Deprecated operations (versioning rule 3 of the interface document): `Deprecation` (RFC 9745),
`Sunset` (RFC 8594, at least 90 days later) and `Link: <…>; rel="deprecation"` on every response."""

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from email.utils import format_datetime

MIN_NOTICE = timedelta(days=90)


@dataclass(frozen=True)
class Deprecation:
    since: date
    sunset: date
    link: str  # where the replacement is documented

    def __post_init__(self):
        if self.sunset - self.since < MIN_NOTICE:
            raise ValueError("A deprecated operation stays available for at least 90 days.")

    def headers(self) -> dict[str, str]:
        since = datetime(self.since.year, self.since.month, self.since.day, tzinfo=UTC)
        sunset = datetime(self.sunset.year, self.sunset.month, self.sunset.day, tzinfo=UTC)
        return {
            "Deprecation": f"@{int(since.timestamp())}",
            "Sunset": format_datetime(sunset, usegmt=True),
            "Link": f'<{self.link}>; rel="deprecation"',
        }


class DeprecatedView:
    """A DRF view mixin: set `deprecation` and every response, errors included, carries the headers."""

    deprecation: Deprecation

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        for name, value in self.deprecation.headers().items():
            response[name] = value
        return response
