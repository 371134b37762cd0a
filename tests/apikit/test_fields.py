"""Text inputs (apikit/fields.py TextField) as the OpenAPI document states them (apikit/field_schemas.py): a
value passes the stated pattern, minLength and maxLength exactly when the server takes it."""

import re

import pytest
from django.core.validators import RegexValidator
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from apikit.field_schemas import text_pattern
from apikit.fields import LocalDateTimeField, TextField
from booking.serializers import StopInput, no_separator
from sitekit.validators import one_line
from tests.apikit.test_declarations import every_declaration

# What the rules tell apart: whitespace str.strip() removes (and some it keeps), NUL, a refused character
# and ordinary ones.
CHARACTERS = st.sampled_from([" ", "\t", "\n", "\u3000", "\u200b", "\x00", "|", "a", "ß", "€"])
FIELDS = [
    TextField(max_length=5),
    TextField(max_length=5, min_length=2),
    TextField(max_length=5, min_length=3),
    TextField(max_length=5, allow_blank=True),
    TextField(max_length=5, validators=[one_line, no_separator]),
]


def stated(field: TextField) -> tuple[re.Pattern, int, int]:
    """The field as the document states it: its pattern, minLength and maxLength."""
    classes = [
        re.fullmatch(r"\[([^\]]+)\]", re.compile(validator.regex).pattern)
        for validator in field.validators
        if isinstance(validator, RegexValidator) and validator.inverse_match
    ]
    refused = "".join(found[1] for found in classes if found is not None)
    pattern = text_pattern(min_length=field.min_length, allow_blank=field.allow_blank, refused=refused)
    least = 0 if field.allow_blank else max(field.min_length or 1, 1)
    assert field.max_length is not None  # every field above has one
    return re.compile(pattern), least, field.max_length


def taken(field: TextField, text: str) -> bool:
    try:
        field.run_validation(text)
    except serializers.ValidationError:
        return False
    return True


@pytest.mark.parametrize("field", FIELDS, ids=lambda field: repr(field))
@settings(max_examples=400, deadline=None)
@given(text=st.text(CHARACTERS, max_size=9))
@example(text="  ab  ")  # within the length once trimmed, but 6 characters as sent
@example(text="      ")  # blank and too long
@example(text=" abcd")
def test_the_stated_rules_take_exactly_what_the_server_takes(field, text):
    pattern, least, most = stated(field)
    assert (pattern.fullmatch(text) is not None and least <= len(text) <= most) == taken(field, text)


def test_the_length_counts_the_characters_as_sent_and_the_value_is_trimmed():
    field = TextField(max_length=5)
    assert field.run_validation(" abc ") == "abc"
    with pytest.raises(serializers.ValidationError, match="no more than 5 characters"):
        field.run_validation("abc   ")


def test_every_trimmed_text_input_counts_its_length_as_sent():
    """A plain CharField trims before it counts: its maxLength in the document would refuse what it takes."""
    plain = [
        f"{declaration.__qualname__}.{name}"
        for declaration in every_declaration()
        for name, field in declaration().fields.items()
        for field in [getattr(field, "child", None) or field]
        if type(field) is serializers.CharField
        and field.trim_whitespace
        and not field.read_only
        and field.max_length is not None
    ]
    assert plain == []
    assert isinstance(StopInput().fields["address"], TextField)


def test_a_date_time_longer_than_stated_is_refused():
    field = LocalDateTimeField()
    assert field.run_validation("2026-11-21T14:30:00.123456789+01:00").isoformat().startswith("2026-11-21")
    with pytest.raises(serializers.ValidationError, match="at most 40 characters"):
        field.run_validation("2026-11-21T14:30:00.1234567890123456789+01:00")


def test_the_server_refuses_text_longer_than_stated_even_where_the_excess_is_whitespace(client):
    assert client.get("/api/v1/places", {"input": "Stephansplatz   "}).status_code == 200
    refused = client.get("/api/v1/places", {"input": "Stephansplatz" + " " * 188})
    assert refused.status_code == 400 and "input" in refused.json()["errors"]
