"""Every rule a text or date-time input is checked by, stated in its JSON Schema: /openapi.json
and the MCP tools' inputSchema are both drawn by this mapping from the same declarations. Only inputs
("request") change; answers keep drf-spectacular's plain mapping."""

import re

from django.core.validators import RegexValidator
from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers

from apikit.fields import EARLIEST_YEAR, LATEST_YEAR, LocalDateTimeField

# Exactly the characters str.strip() removes (str.isspace()), written as \u escapes that ECMA-262 and
# Python read alike; JSON Schema's \s differs between engines (U+001C–U+001F, U+0085, U+FEFF).
WHITESPACE = r"\u0009-\u000d\u001c-\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
SPACE = f"[{WHITESPACE}]"
VISIBLE = rf"[^\u0000{WHITESPACE}]"  # neither whitespace nor NUL (refused by every text field)
ANY = r"[^\u0000]"
# A list whose items may hold commas (addresses): one query value, its items separated by "|".
PIPE_DELIMITED = "x-pipe-delimited"


def text_pattern(
    *, min_length: int | None, max_length: int | None, allow_blank: bool, refused: str = ""
) -> str:
    """A DRF CharField's own checks as one pattern: surrounding whitespace is trimmed before the length
    counts, blank (empty after trimming) is refused unless allowed, and NUL is refused anywhere, as are the
    `refused` characters (a character class's inside) between the trimmed ends."""
    shortest, longest = max(min_length or 1, 1), max_length
    visible, anything = (
        (VISIBLE, ANY) if not refused else (VISIBLE[:-1] + refused + "]", ANY[:-1] + refused + "]")
    )
    middle = f"{{{max(shortest - 2, 0)},{'' if longest is None else longest - 2}}}"
    if longest == 1:
        text = visible
    elif shortest == 1:
        text = f"{visible}(?:{anything}{middle}{visible})?"
    else:
        text = f"{visible}{anything}{middle}{visible}"
    return f"^{SPACE}*{f'(?:{text})?' if allow_blank else text}{SPACE}*$"


def _is_trimmed_text(field) -> bool:
    # e-mail, URL and other CharField subclasses state their format instead
    return type(field) is serializers.CharField and field.trim_whitespace


def _text_pattern_of(field) -> str:
    return text_pattern(
        min_length=field.min_length,
        max_length=field.max_length,
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
    """The project's DEFAULT_SCHEMA_CLASS. A plain text input's rules are its pattern: minLength and
    maxLength would count the whitespace the server trims before it counts the length."""

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if direction == "request" and _is_trimmed_text(field):
            schema.pop("minLength", None)
            schema.pop("maxLength", None)
            schema["pattern"] = _text_pattern_of(field)
        elif direction == "request" and isinstance(field, LocalDateTimeField):
            schema["pattern"] = DATE_TIME_PATTERN
            schema["description"] = " ".join([schema.get("description", ""), DATE_TIME_NOTE]).strip()
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
        schema.pop("minLength", None)
        schema.pop("maxLength", None)


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
