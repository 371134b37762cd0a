"""JSON as the API reads it: numbers must be finite (`1e400` would become Infinity, which neither our JSON
output nor PostgreSQL's jsonb can hold), NaN/Infinity are not JSON, strings must be valid Unicode (a lone
surrogate such as "\ud800" cannot be stored, nor even echoed in an error), and absurd nesting is refused."""

import codecs
import json
import math
import re

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

# Where a lone surrogate can come from: an escape, or bytes decoded as json.loads decodes them
# ("surrogatepass"). Documents without either are not walked.
MAY_HOLD_SURROGATE = re.compile("\\\\u[dD][89a-fA-F]|[\ud800-\udfff]")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"the number {text[:20]}… is too large")
    return number


def _no_constants(name: str):
    raise ValueError(f"{name} is not JSON")


def loads(text: str | bytes) -> object:
    """Strict JSON; ValueError or RecursionError for anything else."""
    if isinstance(text, bytes):
        text = text.decode(json.detect_encoding(text), "surrogatepass")  # what json.loads does with bytes
    document = json.loads(text, parse_constant=_no_constants, parse_float=_finite)
    if MAY_HOLD_SURROGATE.search(text):
        _ensure_unicode(document)
    return document


def _ensure_unicode(value: object) -> None:
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            raise ValueError("a string holds a lone surrogate (invalid Unicode)") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _ensure_unicode(key)
            _ensure_unicode(item)
    elif isinstance(value, list):
        for item in value:
            _ensure_unicode(item)


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            return loads(codecs.getreader(encoding)(stream).read())
        except RecursionError as exc:
            raise ParseError("JSON parse error - nested too deeply.") from exc
        except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            raise ParseError(f"JSON parse error - {exc}") from exc
