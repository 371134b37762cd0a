"""Whether a place, as a traveller, an agent or staff wrote it, is an airport. A pickup there meets a flight:
the chauffeur waits at arrivals, and the price includes the longer wait (booking/ride.py). Addresses are
free text (a suggestion's label, or whatever was typed), so the rule reads the text:

1. a text with the word "hotel" is never an airport (an airport hotel is met at its door);
2. a text the gazetteer resolves to one of its places is an airport when that place is one ("Flughafen
   Wien-Schwechat (VIE), Schwechat", "Terminal 3, Vienna Airport"; not "Wien Mitte, City Airport Train");
3. otherwise (nothing known, or only a city, town or district that holds the address) when it has an
   airport word of the region's languages ("Flughafen", "Airport", "Letisko" …), or a known airport's
   IATA code as a word of its own in capitals ("VIE T3")."""

import re
from functools import cache

from places import gazetteer

AIRPORT_WORDS = frozenset(
    {
        "airport",
        "flughafen",
        "flugplatz",
        "aeroport",
        "aeroporto",
        "aeropuerto",
        "luchthaven",
        "lufthavn",
        "flygplats",
        "letisko",
        "letiste",
        "repuloter",
        "lotnisko",
        "aerodrom",
        "zracna",
        "letalisce",
    }
)
NEVER_AN_AIRPORT = frozenset({"hotel"})
# Places that hold an airport as well as everything else around it: they decide nothing.
AREAS = ("city", "town", "district")
CODE = re.compile(r"(?<![A-Za-z])[A-Z]{3}(?![A-Za-z])")
WORDS_NOT_CODES = frozenset({"INN"})  # "HOLIDAY INN" in capitals is no pickup at Innsbruck's airport


def is_airport(text: str) -> bool:
    words = set(gazetteer.normalize(text).split())
    if not words or words & NEVER_AN_AIRPORT:
        return False
    place = gazetteer.load().resolve(text)
    if place is not None and place.kind not in AREAS:
        return place.kind == "airport"
    return bool(words & AIRPORT_WORDS) or any(code in airport_codes() for code in CODE.findall(text))


@cache
def airport_codes() -> frozenset[str]:
    """The IATA codes of the gazetteer's airports (their three-letter aliases)."""
    return (
        frozenset(
            form.upper()
            for place in gazetteer.load().places
            if place.kind == "airport"
            for form in place.forms
            if len(form) == 3 and form.isalpha()
        )
        - WORDS_NOT_CODES
    )


def code_of(text: str) -> str | None:
    """The IATA code of the airport `text` names, when it names a known one ("VIE" for "Flughafen Wien")."""
    place = gazetteer.load().resolve(text)
    if place is not None and place.kind == "airport":
        codes = sorted(form.upper() for form in place.forms if len(form) == 3 and form.isalpha())
        return codes[0] if codes else None
    return next((code for code in CODE.findall(text) if code in airport_codes()), None)
