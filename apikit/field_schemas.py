"""Every rule a text or date-time input is checked by, stated in its JSON Schema: /openapi.json
and the MCP tools' inputSchema are both drawn by this mapping from the same declarations. Only inputs
("request") change; answers keep drf-spectacular's plain mapping."""

import re

from django.core.validators import RegexValidator
from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers

from apikit.deprecation import DeprecatedView
from apikit.fields import (
    EARLIEST_YEAR,
    LATEST_YEAR,
    MAX_DATE_TIME_LENGTH,
    LocalDateTimeField,
    TextField,
)

# Exactly the characters str.strip() removes (str.isspace()), written as \u escapes that ECMA-262 and
# Python read alike; JSON Schema's \s differs between engines (U+001C–U+001F, U+0085, U+FEFF).
WHITESPACE = r"\u0009-\u000d\u001c-\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
SPACE = f"[{WHITESPACE}]"
VISIBLE = rf"[^\u0000{WHITESPACE}]"  # neither whitespace nor NUL (refused by every text field)
ANY = r"[^\u0000]"
# A list whose items may hold commas (addresses): one query value, its items separated by "|".
PIPE_DELIMITED = "x-pipe-delimited"


def text_pattern(*, min_length: int | None, allow_blank: bool, refused: str = "") -> str:
    """What a TextField checks beside its lengths, as one pattern: surrounding whitespace is trimmed, blank
    (empty after trimming) is refused unless allowed, at least `min_length` characters stay after trimming,
    and NUL is refused anywhere, as are the `refused` characters (a character class's inside) between the
    trimmed ends. Its maxLength counts the characters as sent (TextField), so no length bounds it here."""
    shortest = max(min_length or 1, 1)
    visible, anything = (
        (VISIBLE, ANY) if not refused else (VISIBLE[:-1] + refused + "]", ANY[:-1] + refused + "]")
    )
    if shortest == 1:
        text = f"{visible}(?:{anything}*{visible})?"
    else:
        between = "*" if shortest == 2 else f"{{{shortest - 2},}}"
        text = f"{visible}{anything}{between}{visible}"
    return f"^{SPACE}*{f'(?:{text})?' if allow_blank else text}{SPACE}*$"


def _is_trimmed_text(field) -> bool:
    # e-mail, URL and other CharField subclasses state their format instead
    return type(field) in (serializers.CharField, TextField) and field.trim_whitespace


def _text_pattern_of(field) -> str:
    return text_pattern(
        min_length=field.min_length,
        allow_blank=field.allow_blank,
        refused="".join(_refused_characters(field)),
    )


def _refused_characters(field):
    """The insides of the character classes a field's validators refuse (RegexValidator(r"[…]",
    inverse_match=True)), written in the regex dialect JSON Schema and Python share."""
    for validator in field.validators:
        if isinstance(validator, RegexValidator) and validator.inverse_match:
            found = re.fullmatch(r"\[([^\]]+)\]", validator.regex.pattern)
            if found is None:
                raise ValueError(f"{validator.regex.pattern!r} is not one character class")
            yield found[1]


class InputRulesSchema(AutoSchema):
    """The project's DEFAULT_SCHEMA_CLASS. A text input states its lengths as minLength and maxLength
    (TextField counts the characters as sent) and the rest of its rules as a pattern. An operation's
    description is the one its declaration writes for the API's readers, never a docstring, which is
    written for the code's."""

    def get_description(self) -> str:  # type: ignore[override]  # drf-spectacular's signature, not DRF's
        return ""

    def is_deprecated(self) -> bool:
        # A view that sends the deprecation headers is declared deprecated too (apikit/schema.py adds them).
        return isinstance(self.view, DeprecatedView) or super().is_deprecated()

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if direction == "request" and _is_trimmed_text(field):
            schema["pattern"] = _text_pattern_of(field)
        elif direction == "request" and isinstance(field, LocalDateTimeField):
            schema.update(pattern=DATE_TIME_PATTERN, maxLength=MAX_DATE_TIME_LENGTH)
            schema["description"] = " ".join([schema.get("description", ""), DATE_TIME_NOTE]).strip()
        if direction == "request" and schema.get("default") == "" and not getattr(field, "allow_blank", True):
            # absent means "none given", but "" itself is refused: no value a client could send
            del schema["default"]
        if direction == "request" and getattr(field, "query_delimiter", ",") == "|":
            schema[PIPE_DELIMITED] = True  # apikit/schema.py states it as the query parameter's style
        return schema

    def _insert_field_validators(self, field, schema):
        super()._insert_field_validators(field, schema)
        if not _is_trimmed_text(field):
            return
        pattern = _text_pattern_of(field)
        # drf-spectacular offers "" beside a blank-allowing field's pattern; this pattern has it already
        inner = next(
            (choice for choice in schema.get("oneOf", []) if choice.get("pattern") == pattern), schema
        )
        if inner.get("pattern") != pattern:
            return
        if inner is not schema:
            del schema["oneOf"]
            schema.update(inner)
        if field.allow_blank:  # "" and whitespace alone are taken: a blank text has no least length
            schema.pop("minLength", None)


DAY = (
    "(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"  # 31-day months
    "|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    "|02-(?:0[1-9]|1[0-9]|2[0-8]))"
)
# RFC 3339 date-times of the years 2000–2100 (EARLIEST_YEAR, LATEST_YEAR; a test holds them together), with
# 29 February of their leap years (2100 is none).
DATE_TIME_NOTE = (
    f"RFC 3339 with offset, years {EARLIEST_YEAR}–{LATEST_YEAR}. (Also read: without offset, as Vienna local "
    "time, refused when the clocks skip or repeat it.)"
)
DATE_TIME_PATTERN = (
    rf"^(?:20[0-9]{{2}}-{DAY}|2100-{DAY}|20(?:[02468][048]|[13579][26])-02-29)"
    r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?"
    r"(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$"
)
