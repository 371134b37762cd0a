"""The bundled gazetteer (places/data/gazetteer.json) and how text is matched against it: case-, accent-
and punctuation-insensitive, by whole name, prefix or words; a free-text Vienna address resolves to its
district through its postal code or district name."""

import json
import re
import unicodedata
from bisect import bisect_left
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from places.geo import LatLng
from places.providers.base import OFFLINE_ID_PREFIX as ID_PREFIX

DATA_FILE = Path(__file__).parent / "data" / "gazetteer.json"

# Match quality, best first: the whole name, the start of a name, every word starting a word of a name.
EXACT, PREFIX, WORDS = 3, 2, 1
VIENNA_POSTAL_CODE = re.compile(r"(?<!\d)1(?:0[1-9]|1\d|2[0-3])0(?!\d)")
# Forms shorter than this are too ambiguous to be found inside a longer address ("VIE" in "Review …").
MIN_CONTAINED_FORM = 5
# A partial name resolves only when it matches a single place and is this long ("a" never does).
MIN_UNIQUE_QUERY = 3
VIENNA_ID = "wien"

TYPES_BY_KIND = {
    "district": ("sublocality", "political"),
    "airport": ("airport", "point_of_interest", "establishment"),
    "station": ("train_station", "transit_station", "point_of_interest", "establishment"),
    "hotel": ("lodging", "point_of_interest", "establishment"),
    "sight": ("tourist_attraction", "point_of_interest", "establishment"),
    "venue": ("point_of_interest", "establishment"),
    "city": ("locality", "political"),
    "town": ("locality", "political"),
}


def normalize(text: str) -> str:
    """'Flughafen Wien-Schwechat!' → 'flughafen wien schwechat'; 'Győr' → 'gyor'; 'Straße' → 'strasse'."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    return " ".join(re.sub(r"[\W_]+", " ", plain).split())


@dataclass(frozen=True)
class Place:
    id: str
    kind: str
    name_en: str
    name_de: str
    area_en: str
    area_de: str
    location: LatLng
    importance: int
    postal_code: str | None
    forms: tuple[str, ...]  # normalized names and aliases

    @property
    def place_id(self) -> str:
        return ID_PREFIX + self.id

    @property
    def types(self) -> tuple[str, ...]:
        return TYPES_BY_KIND[self.kind]

    def label(self, locale: str) -> str:
        name, area = (self.name_de, self.area_de) if locale == "de" else (self.name_en, self.area_en)
        return f"{name}, {area}" if area else name


class Gazetteer:
    def __init__(self, places: list[Place]):
        self.places = places
        self.by_id = {place.id: place for place in places}
        self.districts_by_postal_code = {
            place.postal_code: place for place in places if place.kind == "district" and place.postal_code
        }
        # Indexes: exact forms, and sorted forms and form words for prefix look-ups by bisection.
        self._exact: dict[str, set[int]] = {}
        forms: list[tuple[str, int]] = []
        words: list[tuple[str, int]] = []
        for index, place in enumerate(places):
            for form in place.forms:
                self._exact.setdefault(form, set()).add(index)
                forms.append((form, index))
                words.extend((word, index) for word in form.split())
        self._forms, self._words = sorted(forms), sorted(set(words))
        # Names to look for inside an address: longest first, so "wiener neustadt" wins over "wien"; short
        # forms only for cities and towns ("graz", "linz"), as other short aliases hide in ordinary words.
        self._contained = sorted(
            (
                (form, place)
                for place in places
                for form in place.forms
                if len(form) >= MIN_CONTAINED_FORM or (place.kind in ("city", "town") and len(form) >= 4)
            ),
            key=lambda item: (-len(item[0]), -item[1].importance),
        )

    def get(self, place_id: str) -> Place | None:
        return self.by_id.get(place_id.removeprefix(ID_PREFIX)) if place_id.startswith(ID_PREFIX) else None

    def search(self, text: str, limit: int = 5) -> list[Place]:
        return [place for place, _ in self._ranked(normalize(text))[:limit]]

    def resolve(self, text: str) -> Place | None:
        """The one place a free text means, or None rather than a guess: an exact name; else a name that
        matches one place only; else a known name inside the text (an address ending in "… Graz"); a
        Vienna address then narrows to its district by postal code or district name."""
        query = normalize(text)
        if not query:
            return None
        ranked = self._ranked(query)
        if ranked and (ranked[0][1] == EXACT or (len(ranked) == 1 and len(query) >= MIN_UNIQUE_QUERY)):
            return ranked[0][0]
        padded = f" {query} "
        named = next((place for form, place in self._contained if f" {form} " in padded), None)
        if named is None or named.id == VIENNA_ID:
            postal_code = VIENNA_POSTAL_CODE.search(text)
            if postal_code and postal_code.group() in self.districts_by_postal_code:
                return self.districts_by_postal_code[postal_code.group()]
        return named

    def _ranked(self, query: str) -> list[tuple[Place, int]]:
        """Matching places with their match quality, best first (then by importance)."""
        if not query:
            return []
        quality = dict.fromkeys(self._exact.get(query, ()), EXACT)
        for _, index in _starting_with(self._forms, query):
            quality.setdefault(index, PREFIX)
        candidates = None
        for word in query.split():
            having = {index for _, index in _starting_with(self._words, word)}
            candidates = having if candidates is None else candidates & having
        for index in candidates or ():
            quality.setdefault(index, WORDS)
        ranked = sorted(
            quality.items(), key=lambda item: (-item[1], -self.places[item[0]].importance, item[0])
        )
        return [(self.places[index], level) for index, level in ranked]


def _starting_with(entries: list[tuple[str, int]], prefix: str):
    position = bisect_left(entries, (prefix, -1))
    while position < len(entries) and entries[position][0].startswith(prefix):
        yield entries[position]
        position += 1


@cache
def load() -> Gazetteer:
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    places = []
    for entry in data["places"]:
        names = [entry["nameEn"], entry["nameDe"], *entry.get("aliases", [])]
        if entry.get("postalCode") and entry["kind"] == "district":
            names.append(entry["postalCode"])
        forms = tuple(dict.fromkeys(normalize(name) for name in names if normalize(name)))
        places.append(
            Place(
                id=entry["id"],
                kind=entry["kind"],
                name_en=entry["nameEn"],
                name_de=entry["nameDe"],
                area_en=entry.get("areaEn", ""),
                area_de=entry.get("areaDe", ""),
                location=LatLng(entry["lat"], entry["lon"]),
                importance=entry.get("importance", 1),
                postal_code=entry.get("postalCode"),
                forms=forms,
            )
        )
    return Gazetteer(places)
