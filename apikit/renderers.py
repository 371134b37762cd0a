"""JSON as the API writes it: Decimal amounts keep their places (`70.00`, not `70.0`);
docs/decisions.md §1."""

import simplejson
from django.http import HttpResponse
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

_drf_types = JSONEncoder()  # dates, lazy strings, UUIDs … as DRF would write them
# Made once (simplejson.dumps builds an encoder per call for any non-default option). A named tuple is an
# array, as DRF writes it; simplejson's default, an object, made it probe every Decimal for `_asdict`, which
# doubled the time to write a price.
_encoder = simplejson.JSONEncoder(
    use_decimal=True,
    namedtuple_as_object=False,
    ensure_ascii=False,
    separators=(",", ":"),
    default=_drf_types.default,
)


def dumps(data: object) -> str:
    return _encoder.encode(data)


class Written(simplejson.RawJSON):
    """A value with its JSON, encoded once: `dumps` copies the text where the value appears again (an MCP
    tool result carries its structured content twice, as text and as JSON)."""

    def __init__(self, value: object):
        super().__init__(dumps(value))
        self.value = value


class DecimalJSONRenderer(JSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        return b"" if data is None else dumps(data).encode()


_renderer = DecimalJSONRenderer()


class Answer(HttpResponse):
    """An operation's answer: what DRF's `Response` becomes once this renderer has run (the only one an
    operation offers, so content negotiation never picks another), written at once. A `Response` is a
    template response rendered after the view returns, which cost about a twentieth of a warm request
    (docs/benchmarks.md). `data` stays readable, as on a `Response`."""

    def __init__(self, data: object, status: int = 200, headers: dict[str, str] | None = None):
        body = _renderer.render(data)
        super().__init__(body, status=status, headers=headers, content_type=_renderer.media_type)
        if not body:  # as DRF's Response: an empty body has no type
            del self["Content-Type"]
        self.data = data
