"""E-invoices for company accounts (docs/operations/invoices.md): each invoice, credit note and collective
invoice also as Factur-X (PDF/A-3 with CII), XRechnung (UBL) or ebInterface, as the company chose in the
admin; the same number, lines and sums as the PDF; checked against the official schemas and the CEN
schematron rules of EN 16931; mailed with the PDF and downloadable in the admin."""

import io
import json
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
import time_machine
from django.contrib.auth.models import Permission, User
from django.core import mail
from django.db import transaction
from django.utils import timezone
from facturx import get_xml_from_pdf
from lxml import etree
from pypdf import PdfReader

from booking.models import PaymentMethod
from invoicing import cross_border, invoices
from invoicing.collective_invoices import send_collective_invoice
from invoicing.e_invoices import cii, data, ebinterface, files, ubl
from invoicing.models import CreditNote, Invoice
from operator_profile.models import OperatorProfile
from payments import collective_invoices
from payments.models import Refund
from tests.corporate.conftest import vienna
from tests.invoicing.e_invoice_rules import (
    CII_RULES,
    CII_SCHEMA,
    EBINTERFACE_SCHEMA,
    UBL_RULES,
    UBL_SCHEMAS,
    XRECHNUNG_RULES,
    assert_valid,
    broken_rules,
)
from tests.invoicing.test_credit_notes import refund_page
from tests.queued import run_pending_jobs

pytestmark = pytest.mark.django_db
OCTOBER = date(2026, 10, 1)
CII = {
    "ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
    "rsm": "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
}
UBL = {
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
}
EB = {"eb": "http://www.ebinterface.at/schema/6p1/"}


@pytest.fixture
def october_invoice(acme, on_account):
    """Acme's October: two rides (one with a price set by hand) and a cancellation fee, at 10 % VAT."""
    on_account(acme, vienna(2026, 10, 3, 9, 0), reference="CB-ACME01", name="Jiří Dvořák")
    on_account(acme, vienna(2026, 10, 15, 10, 0), reference="CB-ACME02", vehicle_class="business-van")
    on_account(
        acme, vienna(2026, 10, 20, 9, 0), "cancelled", reference="CB-ACME03", cancellation_fee_cents=3700
    )

    def issue(chosen: str, buyer_reference: str = "") -> Invoice:
        acme.e_invoice_format, acme.buyer_reference = chosen, buyer_reference
        acme.save()
        with time_machine.travel(vienna(2026, 11, 1, 6, 0), tick=False):
            (invoice,) = collective_invoices.issue_month(OCTOBER)
        return invoice

    return issue


def cii_of(pdf: bytes) -> bytes:
    name, xml = get_xml_from_pdf(pdf, check_xsd=False)
    assert name == "factur-x.xml"
    return xml


def assert_archival(pdf: bytes) -> None:
    """What PDF/A-3 asks that a reader can see: its identification in the XMP metadata, an output intent,
    every font embedded, the XML attached as an associated file."""
    reader = PdfReader(io.BytesIO(pdf))
    root = reader.trailer["/Root"]
    xmp = reader.xmp_metadata.stream.get_data().decode()
    assert "<pdfaid:part>3</pdfaid:part>" in xmp and "<pdfaid:conformance>B</pdfaid:conformance>" in xmp
    assert "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#" in xmp
    assert root["/OutputIntents"][0].get_object()["/S"] == "/GTS_PDFA1"
    assert [spec.get_object()["/F"] for spec in root["/AF"]] == ["factur-x.xml"]
    for page in reader.pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"].get_object()
            assert "/FontFile2" in descriptor, font["/BaseFont"]


def cii_sums(xml: bytes) -> dict[str, str]:
    summation = etree.fromstring(xml).find(".//ram:SpecifiedTradeSettlementHeaderMonetarySummation", CII)
    return {element.tag.split("}")[1]: element.text for element in summation}


# --- the collective invoice in each format -----------------------------------------------------------------


def test_a_collective_invoice_as_factur_x_is_a_pdf_a_3_whose_cii_passes_the_schema_and_the_en16931_rules(
    october_invoice,
):
    invoice = october_invoice("factur-x")
    e_invoice = files.e_invoice(invoice)
    assert (e_invoice.name, e_invoice.media_type) == (
        f"Rechnung-{invoice.number}-factur-x.pdf",
        "application/pdf",
    )
    assert_archival(e_invoice.content)
    xml = cii_of(e_invoice.content)
    assert_valid(xml, CII_SCHEMA, CII_RULES)
    tree = etree.fromstring(xml)
    assert tree.findtext(".//rsm:ExchangedDocument/ram:ID", namespaces=CII) == invoice.number
    assert cii_sums(xml) == {
        "LineTotalAmount": invoice.content["net"],
        "TaxBasisTotalAmount": invoice.content["net"],
        "TaxTotalAmount": invoice.content["vat"],
        "GrandTotalAmount": invoice.content["gross"],
        "TotalPrepaidAmount": "0.00",
        "DuePayableAmount": invoice.content["gross"],
    }
    names = [name.text for name in tree.iterfind(".//ram:SpecifiedTradeProduct/ram:Name", CII)]
    assert names == ["CB-ACME01: Executive Class", "CB-ACME02: Business Van", "CB-ACME03: Stornogebühr"]
    assert tree.findtext(".//ram:IBANID", namespaces=CII) == "AT611904300234573201"
    assert tree.findtext(".//ram:DueDateDateTime/*", namespaces=CII) == "20261115"
    # the PDF a person reads is the collective invoice's own, its accents written by the embedded font
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(e_invoice.content)).pages)
    assert f"Sammelrechnung {invoice.number}" in text and "Jiří Dvořák" in text


def test_a_collective_invoice_as_xrechnung_is_ubl_that_passes_the_schema_and_the_en16931_rules(
    october_invoice,
):
    invoice = october_invoice("xrechnung", buyer_reference="04011000-12345-34")
    e_invoice = files.e_invoice(invoice)
    assert (e_invoice.name, e_invoice.media_type) == (
        f"Rechnung-{invoice.number}-xrechnung.xml",
        "application/xml",
    )
    assert_valid(e_invoice.content, UBL_SCHEMAS["Invoice"], UBL_RULES, XRECHNUNG_RULES)
    tree = etree.fromstring(e_invoice.content)
    assert tree.findtext("cbc:CustomizationID", namespaces=UBL).endswith("xrechnung_3.0")
    assert tree.findtext("cbc:BuyerReference", namespaces=UBL) == "04011000-12345-34"
    totals = tree.find("cac:LegalMonetaryTotal", UBL)
    assert totals.findtext("cbc:TaxInclusiveAmount", namespaces=UBL) == invoice.content["gross"]
    assert tree.findtext("cac:TaxTotal/cbc:TaxAmount", namespaces=UBL) == invoice.content["vat"]
    lines = tree.findall("cac:InvoiceLine", UBL)
    assert len(lines) == 3
    assert sum(
        Decimal(line.findtext("cbc:LineExtensionAmount", namespaces=UBL)) for line in lines
    ) == Decimal(invoice.content["net"])


def test_a_collective_invoice_as_ebinterface_passes_its_schema(october_invoice):
    invoice = october_invoice("ebinterface", buyer_reference="4500012345")
    e_invoice = files.e_invoice(invoice)
    assert e_invoice.name == f"Rechnung-{invoice.number}-ebinterface.xml"
    tree = etree.fromstring(e_invoice.content)
    assert tree.get("DocumentType") == "Invoice" and tree.get("Language") == "de"
    assert tree.findtext("eb:InvoiceNumber", namespaces=EB) == invoice.number
    assert tree.findtext("eb:InvoiceRecipient/eb:OrderReference/eb:OrderID", namespaces=EB) == "4500012345"
    assert tree.findtext("eb:TotalGrossAmount", namespaces=EB) == invoice.content["gross"]
    assert tree.findtext("eb:PayableAmount", namespaces=EB) == invoice.content["gross"]
    amounts = [Decimal(item.text) for item in tree.iterfind(".//eb:ListLineItem/eb:LineItemAmount", EB)]
    assert sum(amounts) == Decimal(invoice.content["net"])
    if not EBINTERFACE_SCHEMA.exists():
        pytest.skip(f"the ebInterface 6.1 schema is not at {EBINTERFACE_SCHEMA} (../shared/schemas)")
    assert_valid(e_invoice.content, EBINTERFACE_SCHEMA)


def test_the_rules_catch_a_total_that_does_not_add_up_and_a_missing_buyer_reference(acme, october_invoice):
    """The checks above can fail: a grand total off breaks the EN 16931 sums, an XRechnung without its
    buyer reference KoSIT's rules. (The company's choice applies to its documents issued before it.)"""
    invoice = october_invoice("factur-x")
    xml = cii_of(files.e_invoice(invoice).content).decode()
    tampered = xml.replace("<ram:GrandTotalAmount>", "<ram:GrandTotalAmount>1", 1).encode()
    assert any("BR-CO-15" in rule for rule in broken_rules(tampered, CII_RULES))
    acme.e_invoice_format = "xrechnung"
    acme.save()
    ubl = files.e_invoice(Invoice.objects.get(pk=invoice.pk)).content.decode()
    start, end = ubl.index("<cbc:BuyerReference>"), ubl.index("</cbc:BuyerReference>")
    without = (ubl[:start] + ubl[end + len("</cbc:BuyerReference>") :]).encode()
    assert broken_rules(without, UBL_RULES) == []
    assert [rule for rule in broken_rules(without, XRECHNUNG_RULES) if rule.startswith("[BR-DE-15]")]


# --- a ride's invoice and credit note on a company account ----------------------------------------------------


def paid_on(acme) -> dict:
    """A booking a company's booker paid by invoice payment on the company's name."""
    return {
        "status": "paid",
        "paid_at": timezone.now(),
        "payment_method": PaymentMethod.INVOICE,
        "payment_provider": "none",
        "company_account": acme,
        "email": "anna@acme.example",
        "name": "Anna Berger",
    }


@pytest.fixture
def card_ride(acme, make_booking):
    """A ride a company's booker paid by invoice payment on Acme's name (its own ride invoice)."""

    def make(chosen: str, **fields):
        acme.e_invoice_format = chosen
        acme.save()
        values = {
            **paid_on(acme),
            "distance_km": Decimal("21.8"),
            "pickup_at": timezone.now() + timedelta(days=4),
        }
        booking = make_booking(**{**values, **fields})
        with transaction.atomic():
            invoices.issue(booking)
        booking.refresh_from_db()
        return booking

    return make


@pytest.mark.parametrize("chosen", ["factur-x", "xrechnung", "ebinterface"])
def test_a_ride_invoice_and_its_credit_note_on_a_company_booking_pass_the_rules(
    admin_client, card_ride, chosen
):
    booking = card_ride(chosen)
    refund_page(admin_client, booking, "10.00", manual="on")
    assert Refund.objects.get().status == "succeeded"
    invoice, note = Invoice.objects.get(booking=booking), CreditNote.objects.get(booking=booking)
    for document, kind in ((invoice, "Invoice"), (note, "CreditNote")):
        e_invoice = files.e_invoice(document)
        if chosen == "factur-x":
            assert_archival(e_invoice.content)
            xml = cii_of(e_invoice.content)
            assert_valid(xml, CII_SCHEMA, CII_RULES)
            sums = cii_sums(xml)
            assert (sums["GrandTotalAmount"], sums["DuePayableAmount"]) == (document.content["gross"], "0.00")
        elif chosen == "ebinterface":
            tree = etree.fromstring(e_invoice.content)
            assert tree.get("DocumentType") == ("CreditMemo" if kind == "CreditNote" else "Invoice")
            assert tree.findtext("eb:TotalGrossAmount", namespaces=EB) == document.content["gross"]
            assert tree.findtext("eb:PayableAmount", namespaces=EB) == "0.00"
            if EBINTERFACE_SCHEMA.exists():
                assert_valid(e_invoice.content, EBINTERFACE_SCHEMA)
        else:
            assert_valid(e_invoice.content, UBL_SCHEMAS[kind], UBL_RULES, XRECHNUNG_RULES)
            tree = etree.fromstring(e_invoice.content)
            assert tree.findtext("cbc:ID", namespaces=UBL) == document.number
            assert (
                tree.findtext("cac:AccountingCustomerParty//cbc:RegistrationName", namespaces=UBL)
                == "Acme Handels GmbH"
            )
    if chosen == "xrechnung":  # the credit note names the invoice it corrects
        tree = etree.fromstring(files.e_invoice(note).content)
        assert tree.findtext(".//cac:InvoiceDocumentReference/cbc:ID", namespaces=UBL) == invoice.number
        assert tree.findtext("cac:PaymentMeans/cbc:PaymentMeansCode", namespaces=UBL) == "1"  # by invoice


def assert_valid_invoice(invoice: Invoice, chosen: str) -> None:
    e_invoice = files.e_invoice(invoice)
    if chosen == "factur-x":
        assert_valid(cii_of(e_invoice.content), CII_SCHEMA, CII_RULES)
    elif chosen == "xrechnung":
        assert_valid(e_invoice.content, UBL_SCHEMAS["Invoice"], UBL_RULES, XRECHNUNG_RULES)
    elif EBINTERFACE_SCHEMA.exists():
        assert_valid(e_invoice.content, EBINTERFACE_SCHEMA)


@pytest.mark.parametrize("chosen", ["factur-x", "xrechnung", "ebinterface"])
def test_a_ride_with_stops_has_their_lines_in_its_e_invoice_and_passes_the_rules(card_ride, chosen):
    stops = [{"address": "Stephansdom", "wait_minutes": 20}, {"address": "Belvedere", "wait_minutes": 0}]
    booking = card_ride(chosen, stops=stops)  # no stop fee in the seeded tariff: the second line is 0.00
    invoice = Invoice.objects.get(booking=booking)
    labels = [line["label"] for line in invoice.content["lines"]]
    assert labels[2:4] == ["Stop 1, waiting 20 min", "Stop 2"]  # the stops are named above the lines
    assert_valid_invoice(invoice, chosen)


@pytest.mark.parametrize("chosen", ["factur-x", "xrechnung", "ebinterface"])
def test_a_return_trips_one_invoice_lists_both_rides_and_passes_the_rules(acme, make_booking, chosen):
    OperatorProfile.objects.filter(id=1).update(foreign_route_vat=cross_border.AUSTRIA_ONLY)
    acme.e_invoice_format = chosen
    acme.save()
    on_acme = paid_on(acme)
    way_out = make_booking(
        **on_acme, distance_km=Decimal("21.8"), pickup_at=timezone.now() + timedelta(days=4)
    )
    way_back = make_booking(
        **on_acme,
        way_out=way_out,
        origin="Bratislava Airport (BTS)",
        destination="Hotel Sacher",
        distance_km=Decimal("61.0"),
        austria_share=Decimal("0.620"),
        pickup_at=way_out.pickup_at + timedelta(days=3),
    )
    with transaction.atomic():
        invoice = invoices.issue(way_out, way_back)
    reading = data.reading(invoice, acme)
    assert reading.period == (timezone.localdate(way_out.pickup_at), timezone.localdate(way_back.pickup_at))
    assert reading.notes == [
        f"Booking reference: {way_out.reference}",
        f"Booking reference: {way_back.reference}",
    ]
    # the way out's 10 % and the way back's Austrian share summed into one category, its share abroad exempt
    assert [(c.code, c.net, c.vat) for c in reading.categories] == [
        ("S", Decimal("108.98"), Decimal("10.90")),
        ("E", Decimal("28.12"), Decimal("0.00")),
    ]
    assert sum(line.net for line in reading.lines) == reading.net == Decimal(invoice.content["net"])
    assert_valid_invoice(invoice, chosen)


def test_a_travellers_own_documents_and_a_company_that_chose_none_get_no_e_invoice(card_ride, make_booking):
    assert files.e_invoice(Invoice.objects.get(booking=card_ride(""))) is None
    private = make_booking(status="paid", paid_at=timezone.now(), email="rosa@example.com", name="Rosa")
    with transaction.atomic():
        invoice = invoices.issue(private)
    assert files.e_invoice(invoice) is None


# --- mailed and downloaded -----------------------------------------------------------------------------------


def test_the_collective_invoice_mail_carries_the_pdf_and_the_e_invoice(october_invoice):
    invoice = october_invoice("xrechnung")
    send_collective_invoice.enqueue(invoice.pk)
    run_pending_jobs()
    (message,) = mail.outbox
    assert [(name, media_type) for name, _content, media_type in message.attachments] == [
        (f"Rechnung-{invoice.number}.pdf", "application/pdf"),
        (f"Rechnung-{invoice.number}-xrechnung.xml", "application/xml"),
    ]
    assert_valid(message.attachments[1][1], UBL_SCHEMAS["Invoice"], UBL_RULES, XRECHNUNG_RULES)


def test_a_factur_x_mail_carries_the_factur_x_pdf_instead_of_a_second_pdf_of_the_same_number(october_invoice):
    invoice = october_invoice("factur-x")
    send_collective_invoice.enqueue(invoice.pk)
    run_pending_jobs()
    (message,) = mail.outbox
    ((name, content, media_type),) = message.attachments
    assert (name, media_type) == (f"Rechnung-{invoice.number}-factur-x.pdf", "application/pdf")
    assert_valid(cii_of(content), CII_SCHEMA, CII_RULES)


def test_staff_download_the_e_invoice_from_the_list_and_a_document_without_one_answers_404(
    admin_client, october_invoice, card_ride
):
    invoice = october_invoice("ebinterface")
    listing = admin_client.get("/admin/invoicing/invoice/").content.decode()
    url = f"/admin/invoicing/invoice/{invoice.pk}/e-invoice/"
    assert f'href="{url}"' in listing
    response = admin_client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/xml"
    assert (
        response["Content-Disposition"] == f'attachment; filename="Rechnung-{invoice.number}-ebinterface.xml"'
    )
    assert response.content == files.e_invoice(invoice).content
    without = Invoice.objects.get(booking=card_ride(""))
    assert (
        f"/admin/invoicing/invoice/{without.pk}/e-invoice/"
        not in admin_client.get("/admin/invoicing/invoice/").content.decode()
    )
    assert admin_client.get(f"/admin/invoicing/invoice/{without.pk}/e-invoice/").status_code == 404


def test_a_ride_partly_abroad_under_austria_only_vat_has_its_austrian_share_taxed_and_the_rest_exempt(
    acme, card_ride
):
    OperatorProfile.objects.filter(id=1).update(foreign_route_vat=cross_border.AUSTRIA_ONLY)
    booking = card_ride("xrechnung", austria_share=Decimal("0.620"), destination="Bratislava Airport (BTS)")
    invoice = Invoice.objects.get(booking=booking)
    e_invoice = files.e_invoice(invoice)
    assert_valid(e_invoice.content, UBL_SCHEMAS["Invoice"], UBL_RULES, XRECHNUNG_RULES)
    tree = etree.fromstring(e_invoice.content)
    categories = [
        (
            subtotal.findtext("cac:TaxCategory/cbc:ID", namespaces=UBL),
            subtotal.findtext("cbc:TaxableAmount", namespaces=UBL),
            subtotal.findtext("cbc:TaxAmount", namespaces=UBL),
        )
        for subtotal in tree.iterfind("cac:TaxTotal/cac:TaxSubtotal", UBL)
    ]
    border = invoice.content["cross_border"]
    assert categories == [
        ("S", border["austria_net"], invoice.content["vat"]),
        ("E", border["abroad"], "0.00"),
    ]
    assert (
        tree.findtext(".//cbc:TaxExemptionReason", namespaces=UBL) == "not taxable in Austria (UStG §3a (10))"
    )
    acme.e_invoice_format = "factur-x"
    acme.save()
    assert_valid(cii_of(files.e_invoice(Invoice.objects.get(pk=invoice.pk)).content), CII_SCHEMA, CII_RULES)


def test_staff_without_the_view_permission_get_no_e_invoice(client, october_invoice):
    invoice = october_invoice("xrechnung")
    clerk = User.objects.create_user("clerk", password="pw", is_staff=True)
    client.force_login(clerk)
    assert client.get(f"/admin/invoicing/invoice/{invoice.pk}/e-invoice/").status_code == 403
    clerk.user_permissions.add(Permission.objects.get(codename="view_invoice"))
    assert client.get(f"/admin/invoicing/invoice/{invoice.pk}/e-invoice/").status_code == 200


def test_xrechnung_is_chosen_only_once_the_operator_profile_names_its_phone_and_e_mail(admin_client, acme):
    url = f"/admin/business/companyaccount/{acme.pk}/change/"
    form = {
        field: getattr(acme, field)
        for field in ("name", "street_address", "postcode", "city", "country", "vat_id", "billing_email")
    }
    form.update(payment_terms_days=14, language="de", bookers="@acme.example", active="on")
    OperatorProfile.objects.filter(id=1).update(phone="")
    refused = admin_client.post(url, {**form, "e_invoice_format": "xrechnung"}, HTTP_ACCEPT_LANGUAGE="en")
    assert "XRechnung names the seller&#x27;s phone and e-mail" in refused.content.decode()
    acme.refresh_from_db()
    assert acme.e_invoice_format == ""
    OperatorProfile.objects.filter(id=1).update(phone="+43 1 234 56 78")
    assert admin_client.post(url, {**form, "e_invoice_format": "xrechnung"}).status_code == 302
    acme.refresh_from_db()
    assert acme.e_invoice_format == "xrechnung"


RECORDED = Path(__file__).parents[1] / "payments" / "data" / "documents_unchanged.json"


@pytest.mark.parametrize("number", sorted(json.loads(RECORDED.read_text())["documents"]))
def test_documents_issued_before_e_invoices_existed_become_valid_e_invoices(acme, number):
    """Each recorded document (a plain ride, one across the border, waiting and no-show fees, a price set by
    hand, credit notes), read without what snapshots hold since e-invoices: the company's own details fill
    the gaps, and every format passes its checks with the document's sums."""
    content = json.loads(RECORDED.read_text())["documents"][number]["content"]
    content["seller"] = {**content["seller"], "phone": "+43 1 234 56 78"}
    content["seller"].pop("country_code")
    kind = CreditNote if number.startswith("G-") else Invoice
    document = kind(number=number, content=content, language=content["language"])
    reading = data.reading(document, acme)
    assert reading.buyer.country == "AT" and reading.buyer.email == "buchhaltung@acme.example"
    assert sum(line.net for line in reading.lines) == reading.net == Decimal(content["net"])
    assert_valid(cii.write(reading), CII_SCHEMA, CII_RULES)
    root = "CreditNote" if kind is CreditNote else "Invoice"
    assert_valid(ubl.write(reading), UBL_SCHEMAS[root], UBL_RULES, XRECHNUNG_RULES)
    if EBINTERFACE_SCHEMA.exists():
        assert_valid(ebinterface.write(reading), EBINTERFACE_SCHEMA)


def test_text_a_form_let_through_with_control_characters_is_written_without_them(acme, card_ride):
    booking = card_ride("xrechnung", origin="Hotel\x0bSacher")
    e_invoice = files.e_invoice(Invoice.objects.get(booking=booking))
    assert_valid(e_invoice.content, UBL_SCHEMAS["Invoice"], UBL_RULES, XRECHNUNG_RULES)
    assert b"HotelSacher" in e_invoice.content


def test_the_companys_bookkeeping_gets_a_copy_of_each_ride_document_once_and_the_booker_no_extra_mail(
    admin_client, acme, card_ride
):
    booking = card_ride("xrechnung")
    refund_page(admin_client, booking, "10.00", manual="on")
    run_pending_jobs()
    run_pending_jobs()  # run again: nothing goes twice
    copies = [message for message in mail.outbox if message.to == ["buchhaltung@acme.example"]]
    invoice, note = Invoice.objects.get(booking=booking), CreditNote.objects.get(booking=booking)
    assert [message.subject for message in copies] == [
        f"Invoice {invoice.number}",
        f"Credit note {note.number}",
    ]
    assert "CB-" in copies[0].body and "It is paid; nothing is due." in copies[0].body
    assert [name for name, _content, _type in copies[1].attachments] == [
        note.file_name,
        note.file_name.replace(".pdf", "-xrechnung.xml"),
    ]
    assert_valid(copies[1].attachments[1][1], UBL_SCHEMAS["CreditNote"], UBL_RULES, XRECHNUNG_RULES)
    mail.outbox.clear()
    without = card_ride("")  # a company without e-invoices: its bookkeeping gets the collective invoice only
    run_pending_jobs()
    assert Invoice.objects.filter(booking=without).exists()
    assert not [message for message in mail.outbox if message.to == ["buchhaltung@acme.example"]]
