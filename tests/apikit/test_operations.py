"""Each operation class makes DRF's per-request helpers once (apikit/operations.py): what it uses is
what DRF would make for that class, never what another class made first."""

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.test import RequestFactory
from django.urls import get_resolver
from rest_framework.views import APIView

from apikit.operations import Operation

VIENNA = ZoneInfo("Europe/Vienna")

MADE_ONCE = {
    "get_renderers": "renderer_classes",
    "get_parsers": "parser_classes",
    "get_authenticators": "authentication_classes",
    "get_permissions": "permission_classes",
    "get_throttles": "throttle_classes",
}


def operations() -> list[type[Operation]]:
    found = {}
    for pattern in get_resolver().url_patterns:
        view = getattr(getattr(pattern, "callback", None), "view_class", None)
        if view is not None and issubclass(view, Operation):
            found[view.__name__] = view
    return list(found.values())


def test_every_operation_uses_the_helpers_drf_would_make_for_it():
    views = operations()
    assert len(views) >= 10
    assert len({tuple(view.permission_classes) for view in views}) > 1  # classes differ: a mix-up would show
    for view_class in [*views, *reversed(views)]:  # each order: the first class to ask must not decide
        view = view_class()
        for method, declared in MADE_ONCE.items():
            made = getattr(view, method)()
            assert [type(helper) for helper in made] == list(getattr(view_class, declared)), (
                view_class,
                method,
            )
            assert getattr(view_class(), method)() is made  # made once per class
        assert type(view.get_content_negotiator()) is view_class.content_negotiation_class


# What each operation that reads plainly is asked: a good read, and reads DRF refuses or its handler does.
PICKUP, BOOKED = "2026-12-21T14:30:00+01:00", "2026-12-20T10:00:00+01:00"
ROUTE = {"from": "Stephansplatz", "to": "Flughafen Wien", "pickupDatetime": PICKUP}
READS = {
    "PriceApi": [
        {"vehicleClass": "first", "distanceKm": "243.7", "inZoneA": "false", "waitMinutes": "40"},
        {
            "vehicleClass": "business-van",
            "distanceKm": "20",
            "passengers": "5",
            "extras": "child-seat:2,name-sign",
        },
        {"vehicleClass": "first", "distanceKm": "20", "passengers": "5"},
    ],
    "ExtrasApi": [{}],
    "DistanceApi": [ROUTE, {"from": "Stephansplatz", "to": "nowhere-at-all-xyz"}],
    "CalculateDistanceLegacyApi": [ROUTE, {"from": "Stephansplatz", "to": "nowhere-at-all-xyz"}],
    "PlacesApi": [{"input": "hotel sa"}],
    "PlacesAutocompleteLegacyApi": [{"input": "hotel sa"}],
    "AvailabilityApi": [{"pickupDatetime": PICKUP, "bookingDatetime": BOOKED}],
    "PageQuoteApi": [{**ROUTE, "bookingType": "hourly"}, ROUTE],
    "SessionDataLegacyApi": [{"session_id": "cs_test_unknown"}],
}
REFUSED = [{}, {"distanceKm": "-1", "vehicleClass": "tank"}, {f"p{number}": "x" for number in range(1200)}]
ACCEPTS = [None, "*/*", "application/json", "text/html", "application/json; q=0.5, */*"]


def through_drf(view_class: type[Operation]):
    """The same operation answered by DRF's own dispatch."""
    return type(f"Drf{view_class.__name__}", (view_class,), {"dispatch": APIView.dispatch}).as_view()


def plain_readers() -> list[type[Operation]]:
    return [view for view in operations() if view()._once("plain_reads", view()._checks_nothing_on_reads)]


@pytest.mark.django_db
@time_machine.travel(datetime(2026, 12, 1, 9, 0, tzinfo=VIENNA), tick=False)
def test_a_plain_read_answers_as_drfs_own_path_would():
    readers = plain_readers()
    assert {view.__name__ for view in readers} == set(READS)  # a new one needs its reads listed above
    assert "BookingListApi" not in READS  # a token-checking read keeps DRF's path
    factory, statuses = RequestFactory(), {}
    for view_class in readers:
        ours, drf = view_class.as_view(), through_drf(view_class)
        for query in [*READS[view_class.__name__], *REFUSED]:
            for accept in ACCEPTS:
                for method in ("get", "head"):
                    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
                    asked = [getattr(factory, method)("/api/v1/x", query, **headers) for _ in range(2)]
                    answers = [ours(asked[0]), drf(asked[1])]
                    for answer in answers:
                        if hasattr(answer, "render"):
                            answer.render()
                    mine, theirs = answers
                    case = (view_class.__name__, query if len(query) < 10 else "too many", accept, method)
                    assert mine.status_code == theirs.status_code, case
                    assert dict(mine.items()) == dict(theirs.items()), case
                    assert mine.content == theirs.content, case
                    statuses.setdefault(view_class.__name__, set()).add(mine.status_code)
    assert all(200 in seen for name, seen in statuses.items() if name != "SessionDataLegacyApi"), statuses
    assert all({400, 406} <= seen for seen in statuses.values()), statuses


def test_the_plain_path_is_taken_only_where_drf_would_check_nothing():
    names = {view.__name__ for view in plain_readers()}
    assert "BookingListApi" not in names and "BookingApi" not in names  # they check a token
    assert "CheckoutApi" not in names  # no GET
