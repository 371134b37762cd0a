"""JSON as the API writes it: Decimal amounts keep their places (`70.00`, not `70.0`);
docs/decisions.md §1."""

import simplejson
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

_drf_types = JSONEncoder()  # dates, lazy strings, UUIDs … as DRF would write them


def dumps(data: object) -> str:
    return simplejson.dumps(
        data, use_decimal=True, ensure_ascii=False, separators=(",", ":"), default=_drf_types.default
    )


class DecimalJSONRenderer(JSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        return b"" if data is None else dumps(data).encode()
