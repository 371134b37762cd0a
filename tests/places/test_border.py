"""The share of a route in Austria (places/border.py): Austria's outline from Natural Earth, the
route as the provider's polyline or the straight line, sampled every 500 m."""

import itertools
import json
from decimal import Decimal

import pytest
import responses

from places import border
from places.geo import LatLng, great_circle_km
from places.providers.base import PlacesError
from places.services import estimate_route

pytestmark = pytest.mark.django_db

STEPHANSPLATZ = LatLng(48.2085, 16.3721)
BTS = LatLng(48.1702, 17.2127)  # Bratislava airport, the gazetteer's point
ROUTES = "https://routes.test/directions/v2:computeRoutes"
# Vienna → Bratislava airport by road as the maps draw it: A4 east, A6 at Bruckneudorf, the border at Kittsee
# (the last point in Austria) and Jarovce (the first in Slovakia), then the D4 north to the airport.
ROAD = [
    (48.2085, 16.3721),
    (48.1910, 16.4130),
    (48.1380, 16.4890),
    (48.1110, 16.6140),
    (48.0630, 16.7340),
    (48.0100, 16.8350),
    (48.0420, 16.9500),
    (48.0800, 17.0400),  # Kittsee
    (48.0660, 17.1080),  # Jarovce
    (48.1100, 17.1900),
    (48.1702, 17.2127),
]
LAST_IN_AUSTRIA = 7
ALL = Decimal("1.000")  # a share all in Austria, to three places


def encode(points) -> str:
    """Google's polyline algorithm, written from its published description (the test's own encoder)."""
    out, previous = [], (0, 0)
    for lat, lng in points:
        current = (round(lat * 1e5), round(lng * 1e5))
        for value in (current[0] - previous[0], current[1] - previous[1]):
            value = ~(value << 1) if value < 0 else value << 1
            while value >= 0x20:
                out.append(chr((0x20 | (value & 0x1F)) + 63))
                value >>= 5
            out.append(chr(value + 63))
        previous = current
    return "".join(out)


def legs(length) -> list[float]:
    return [great_circle_km(LatLng(*a), LatLng(*b)) for a, b in itertools.pairwise(ROAD)][:length]


@pytest.mark.parametrize(
    ("place", "lat", "lng", "inside"),
    [
        ("Stephansplatz", 48.2085, 16.3721, True),
        ("Vienna airport", 48.1103, 16.5697, True),
        ("Hainburg", 48.1466, 16.9420, True),
        ("Kittsee", 48.0916, 17.0697, True),
        ("Graz", 47.0707, 15.4395, True),
        ("Innsbruck", 47.2692, 11.4041, True),
        ("Bratislava old town", 48.1436, 17.1077, False),
        ("Bratislava airport", 48.1702, 17.2127, False),
        ("Győr", 47.6875, 17.6504, False),
        ("Brno", 49.1951, 16.6068, False),
        ("Munich", 48.1372, 11.5756, False),
        ("Ljubljana", 46.0569, 14.5058, False),
    ],
)
def test_hand_checked_places_lie_where_the_map_has_them(place, lat, lng, inside):
    assert border.in_austria(LatLng(lat, lng)) is inside, place


def test_the_straight_line_from_vienna_to_bratislava_airport_is_about_seven_tenths_in_austria():
    # Checked by hand: the line runs at about 48.18° N where it meets the March (Morava), which is the
    # border there between 16.95° and 17.00° E; the line spans 16.372° to 17.213° E, so between
    # (16.95 − 16.372) / 0.841 = 0.687 and (17.00 − 16.372) / 0.841 = 0.747 of it lies in Austria.
    share = border.austria_share([STEPHANSPLATZ, BTS], distance_km=Decimal("73.8"))
    assert Decimal("0.687") <= share.share <= Decimal("0.747")
    assert share.share == share.share.quantize(Decimal("0.001")) and share.share < ALL
    assert share.km_total == Decimal("73.8")
    assert share.km_in_austria == (Decimal("73.8") * share.share).quantize(Decimal("0.1"))


def test_the_offline_provider_routes_vienna_to_bratislava_airport_as_the_straight_line(settings):
    settings.GOOGLE_MAPS_API_KEY = ""
    route = estimate_route(origin="Stephansplatz", destination="BTS")
    assert route.path == ()  # no shape: the straight line stands in
    share = route.austria_share()
    assert Decimal("0.687") <= share.share <= Decimal("0.747")
    assert share.km_total == route.distance_km


def test_vienna_to_its_airport_lies_all_in_austria(settings):
    settings.GOOGLE_MAPS_API_KEY = ""
    share = estimate_route(origin="Stephansplatz", destination="Flughafen Wien").austria_share()
    assert share.share == ALL


def test_a_point_exactly_on_the_border_counts_as_austria():
    outline = json.loads(border.OUTLINE.read_text(encoding="utf-8"))["geometry"]["coordinates"][0][0]
    # The outline's vertex nearest to Kittsee, on the Slovak border, and the middle of its next edge.
    vertex = min(outline, key=lambda p: great_circle_km(LatLng(p[1], p[0]), LatLng(48.09, 17.07)))
    following = outline[outline.index(vertex) + 1]
    middle = LatLng((vertex[1] + following[1]) / 2, (vertex[0] + following[0]) / 2)
    assert great_circle_km(LatLng(vertex[1], vertex[0]), LatLng(48.09, 17.07)) < 5
    assert border.in_austria(LatLng(vertex[1], vertex[0])) and border.in_austria(middle)
    assert not border.in_austria(LatLng(vertex[1], vertex[0] + 0.01))  # 750 m east: Slovakia
    # A ride from the border line to Stephansplatz lies all in Austria.
    assert border.austria_share([middle, STEPHANSPLATZ], distance_km=Decimal("65")).share == ALL


def test_a_ride_abroad_only_has_no_share_in_austria():
    bratislava, airport = LatLng(48.1436, 17.1077), BTS
    assert border.austria_share([bratislava, airport], distance_km=Decimal("12")).share == Decimal("0.000")
    assert border.austria_share([bratislava, bratislava], distance_km=Decimal("0")).share == Decimal("0.000")
    assert border.austria_share([STEPHANSPLATZ], distance_km=Decimal("0")).share == ALL


# --- Google's polyline --------------------------------------------------------------------------------


@pytest.fixture
def google(settings):
    settings.GOOGLE_MAPS_API_KEY = "test-key"
    settings.GOOGLE_ROUTES_URL = "https://routes.test"
    with responses.RequestsMock() as mock:
        yield mock


def road_answer(polyline: str) -> dict:
    return {
        "routes": [
            {
                "distanceMeters": 71_400,
                "duration": "3480s",
                "legs": [
                    {
                        "startLocation": {"latLng": {"latitude": ROAD[0][0], "longitude": ROAD[0][1]}},
                        "endLocation": {"latLng": {"latitude": ROAD[-1][0], "longitude": ROAD[-1][1]}},
                    }
                ],
                "polyline": {"encodedPolyline": polyline},
            }
        ]
    }


def test_the_road_from_google_is_measured_along_its_polyline(google):
    google.post(ROUTES, json=road_answer(encode(ROAD)))
    route = estimate_route(origin="Stephansplatz", destination="Bratislava Airport")
    assert [(p.lat, p.lng) for p in route.path] == ROAD
    # Bounds from the polyline's own legs: all legs up to Kittsee are Austrian, the Kittsee–Jarovce leg
    # crosses the border somewhere, the rest is Slovak.
    total = sum(legs(len(ROAD)))
    low, high = sum(legs(LAST_IN_AUSTRIA)) / total, sum(legs(LAST_IN_AUSTRIA + 1)) / total
    share = route.austria_share()
    assert Decimal(low).quantize(Decimal("0.001")) <= share.share <= Decimal(high).quantize(Decimal("0.001"))
    assert Decimal("0.75") < share.share < Decimal("0.85")  # the road stays longer in Austria than the line
    assert share.km_total == Decimal("71.4")


def test_googles_documented_polyline_example_decodes():
    from places.providers.google import _polyline

    assert [(p.lat, p.lng) for p in _polyline("_p~iF~ps|U_ulLnnqC_mqNvxq`@")] == [
        (38.5, -120.2),
        (40.7, -120.95),
        (43.252, -126.453),
    ]
    assert _polyline("") == ()


def test_a_cut_off_polyline_is_a_malformed_answer(google):
    google.post(ROUTES, json=road_answer(encode(ROAD)[:-1] + "_"))
    with pytest.raises(PlacesError) as refused:
        estimate_route(origin="Stephansplatz", destination="Bratislava Airport")
    assert refused.value.code == "upstream_unavailable"


def test_an_answer_without_a_polyline_falls_back_to_the_straight_line(google):
    answer = road_answer("")
    del answer["routes"][0]["polyline"]
    google.post(ROUTES, json=answer)
    route = estimate_route(origin="Stephansplatz", destination="Bratislava Airport")
    assert route.path == ()
    assert Decimal("0.687") <= route.austria_share().share <= Decimal("0.747")
