"""Strict JSON (apikit/parsers.py): a lone surrogate is refused however it arrives, while a document
that cannot hold one is not walked for it."""

import pytest

from apikit.parsers import loads

LONE = "\ud800"


@pytest.mark.parametrize(
    "body",
    [
        '{"a": "\\ud800"}',  # an escape, in text
        b'{"a": ["x", {"b": "\\uDFFF"}]}',  # an escape, in bytes, nested
        b'{"a": "\xed\xa0\x80"}',  # a surrogate encoded in UTF-8 bytes
        ('{"a": "' + LONE + '"}').encode("utf-16", "surrogatepass"),  # UTF-16 bytes
        '{"\\udc00": 1}',  # in a key
    ],
)
def test_a_lone_surrogate_is_refused(body):
    with pytest.raises(ValueError, match="lone surrogate"):
        loads(body)


@pytest.mark.parametrize(
    ("body", "document"),
    [
        ('{"a": "\\ud83d\\ude00"}', {"a": "😀"}),  # a pair is one character
        ('{"a": "ä😀"}'.encode(), {"a": "ä😀"}),
        ('{"a": "x"}'.encode("utf-16"), {"a": "x"}),
        ('{"path": "C:\\\\udo"}', {"path": "C:\\udo"}),  # looks like an escape, is a backslash and text
    ],
)
def test_everything_else_is_read_as_json_reads_it(body, document):
    assert loads(body) == document
