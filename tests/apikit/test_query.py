"""A request's query is read as Django's QueryDict.dict() would read it (apikit/query.py)."""

import pytest
from django.core.exceptions import TooManyFieldsSent
from django.http import QueryDict
from django.test import RequestFactory
from hypothesis import given
from hypothesis import strategies as st

from apikit.query import query_of

QUERY_TEXT = st.text(alphabet="ab=&%+2A0é ;", max_size=30)


@given(QUERY_TEXT)
def test_a_query_reads_as_djangos_query_dict(text):
    request = RequestFactory().get("/api/v1/price")
    request.META["QUERY_STRING"] = text
    assert query_of(request) == QueryDict(text).dict()


@pytest.mark.parametrize("text", ["a=1&b=2", "a=%201&b=+2"])  # with and without anything to decode
def test_a_query_beyond_the_field_limit_is_refused_alike(settings, text):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 1
    request = RequestFactory().get("/api/v1/price")
    request.META["QUERY_STRING"] = text
    with pytest.raises(TooManyFieldsSent):
        query_of(request)
    with pytest.raises(TooManyFieldsSent):
        QueryDict(text)
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 2
    assert query_of(request) == QueryDict(text).dict()


def test_a_query_read_once_is_not_read_again():
    request = RequestFactory().get("/api/v1/price", {"a": "1"})
    assert query_of(request) is query_of(request)
