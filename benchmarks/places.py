"""Prints what the offline provider costs per call (target: under 1 ms for a suggestion and for a route).
Run: DJANGO_DEBUG=true .venv/bin/python benchmarks/places.py"""

from common import seconds_per_call

from places.providers.base import Endpoint
from places.providers.offline import OfflineProvider

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


def main() -> None:
    provider = OfflineProvider()
    print(f"gazetteer: {len(provider.places.places)} places")
    worst = 0.0
    for text in SUGGESTIONS:
        milliseconds = 1e3 * seconds_per_call(
            lambda text=text: provider.suggest(text, locale="en", session_token=None), number=2000
        )
        worst = max(worst, milliseconds)
        print(f"suggest {text!r:<34} {milliseconds:7.3f} ms per call")
    for origin, destination in ROUTES:
        start = Endpoint(origin, origin if origin.startswith("offline:") else None)
        end = Endpoint(destination, destination if destination.startswith("offline:") else None)
        milliseconds = 1e3 * seconds_per_call(
            lambda start=start, end=end: provider.route(start, end, departure=None), number=2000
        )
        worst = max(worst, milliseconds)
        print(f"route   {origin + ' → ' + destination!r:<34} {milliseconds:7.3f} ms per call")
    print(f"slowest: {worst:.3f} ms per call (target < 1 ms)")


if __name__ == "__main__":
    main()
