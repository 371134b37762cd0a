"""A flight number as travellers write it: the airline's IATA code (two characters, at most one a digit) or
ICAO code (three letters), then one to four digits and maybe an operational suffix letter: "OS 123",
"os123", "LH-1234", "AUA123", "U2 5821", "BA2490A"."""

import re
from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _

MAX_LENGTH = 20
_FORM = re.compile(
    r"(?:(?P<iata>[A-Z][A-Z0-9]|[0-9][A-Z])|(?P<icao>[A-Z]{3}))[ -]?(?P<digits>[0-9]{1,4})(?P<suffix>[A-Z]?)"
)
MALFORMED = _(
    "Not a flight number: write the airline's code and the number, as on the ticket (e.g. OS 123 or AUA123), "
    "or a private aircraft's registration (e.g. OE-GLS)."
)


@dataclass(frozen=True)
class FlightNumber:
    airline: str
    digits: str  # without leading zeros: "OS 0123" is "OS 123"
    suffix: str = ""

    def __str__(self) -> str:
        """The form providers take: "OS123"."""
        return f"{self.airline}{self.digits}{self.suffix}"


# An aircraft's registration (a private or charter flight: "OE-GLS", "D-ABCD", "9H-ABC", "N123AB"): taken as
# written, and followed by nobody (flight-data providers know flights by number).
_REGISTRATION = re.compile(r"[A-Z0-9]{1,2}-[A-Z0-9]{2,5}|N[1-9][0-9A-Z]{0,4}")


def is_registration(text: str) -> bool:
    return len(text) <= MAX_LENGTH and _REGISTRATION.fullmatch(text.strip().upper()) is not None


def parse(text: str) -> FlightNumber | None:
    """The flight number `text` writes, or None when it writes none."""
    match = _FORM.fullmatch(text.strip().upper()) if len(text) <= MAX_LENGTH else None
    if match is None:
        return None
    return FlightNumber(
        airline=match["iata"] or match["icao"],
        digits=str(int(match["digits"])),
        suffix=match["suffix"],
    )
