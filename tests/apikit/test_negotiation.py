"""The negotiation shortcut (apikit/negotiation.py) answers exactly as DRF's own negotiation would."""

import pytest
from django.test import RequestFactory
from drf_spectacular.renderers import OpenApiJsonRenderer
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer, TemplateHTMLRenderer
from rest_framework.request import Request

from apikit.negotiation import ContentNegotiation
from apikit.renderers import DecimalJSONRenderer

RENDERER_LISTS = [
    [DecimalJSONRenderer()],
    [TemplateHTMLRenderer(), JSONRenderer()],
    [OpenApiJsonRenderer(), JSONRenderer()],
    [BrowsableAPIRenderer(), DecimalJSONRenderer()],
]


@pytest.mark.parametrize("renderers", RENDERER_LISTS, ids=lambda renderers: type(renderers[0]).__name__)
@pytest.mark.parametrize(
    "accept", [None, "*/*", "application/json", "text/html", "application/*", "text/html, */*;q=0.1"]
)
def test_the_shortcut_picks_what_drf_picks(renderers, accept):
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    request = Request(RequestFactory().get("/api/v1/price", **headers))
    assert outcome(ContentNegotiation(), request, renderers) == outcome(
        DefaultContentNegotiation(), request, renderers
    )


def outcome(negotiation, request, renderers) -> tuple:
    try:
        renderer, media_type = negotiation.select_renderer(request, renderers)
    except NotAcceptable:
        return ("406",)
    return renderer, media_type
