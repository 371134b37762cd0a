"""What the three writers share: building an XML tree by qualified names, and amounts and days as EN 16931
and ebInterface write them."""

import re
from datetime import date
from decimal import Decimal

from lxml import etree  # type: ignore[import-untyped]

UNWRITABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")  # control characters XML 1.0 cannot hold


class Tree:
    """Elements by prefix ("ram:Name", or "Name" in the default namespace: the prefix None) in the
    namespaces given; empty texts are left out by `optional`."""

    def __init__(self, namespaces: dict[str | None, str], root: str, **attributes: str):
        self.namespaces = namespaces
        self.root = etree.Element(self.name(root), nsmap=namespaces, **attributes)

    def name(self, qualified: str) -> str:
        prefix, _colon, local = qualified.rpartition(":")
        return f"{{{self.namespaces[prefix or None]}}}{local}"

    def add(self, parent, qualified: str, text: str | None = None, **attributes: str):
        element = etree.SubElement(parent, self.name(qualified), **attributes)
        if text is not None:
            element.text = UNWRITABLE.sub("", text)
        return element

    def optional(self, parent, qualified: str, text: str, **attributes: str) -> None:
        if text:
            self.add(parent, qualified, text, **attributes)

    def bytes(self) -> bytes:
        return etree.tostring(self.root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def amount(value: Decimal) -> str:
    return f"{value:.2f}"


def percent(value: Decimal) -> str:
    return f"{value:f}"


def compact_day(value: date) -> str:
    """20261201: the CII date format 102."""
    return value.strftime("%Y%m%d")
