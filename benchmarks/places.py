"""Prints what the offline provider costs per call (target: under 1 ms for a suggestion and for a route).
Run: DJANGO_DEBUG=true .venv/bin/python benchmarks/places.py"""

import os
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "chauffeur.settings")

import django

django.setup()

from places.providers.base import Endpoint  # noqa: E402
from places.providers.offline import OfflineProvider  # noqa: E402

SUGGESTIONS = [
    "st",
    "Flughafen",
    "vienna airp",
    "hotel sa",
    "Schönbrunn",
    "Praterstraße 1, 1020 Wien",
    "xyzzy",
]
ROUTES = [
    ("Stephansplatz", "Flughafen Wien"),
    ("Hotel Sacher", "Salzburg"),
    ("Mariahilfer Straße 1, 1060 Wien", "Bratislava Airport"),
    ("offline:wien", "offline:budapest"),
]


def per_call(function, number: int = 2000) -> float:
    return min(timeit.repeat(function, number=number, repeat=5)) / number * 1e3


def main() -> None:
    provider = OfflineProvider()
    print(f"gazetteer: {len(provider.places.places)} places")
    worst = 0.0
    for text in SUGGESTIONS:
        milliseconds = per_call(lambda text=text: provider.suggest(text, locale="en", session_token=None))
        worst = max(worst, milliseconds)
        print(f"suggest {text!r:<34} {milliseconds:7.3f} ms per call")
    for origin, destination in ROUTES:
        start = Endpoint(origin, origin if origin.startswith("offline:") else None)
        end = Endpoint(destination, destination if destination.startswith("offline:") else None)
        milliseconds = per_call(lambda start=start, end=end: provider.route(start, end, departure=None))
        worst = max(worst, milliseconds)
        print(f"route   {origin + ' → ' + destination!r:<34} {milliseconds:7.3f} ms per call")
    print(f"slowest: {worst:.3f} ms per call (target < 1 ms)")


if __name__ == "__main__":
    main()
