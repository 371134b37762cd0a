"""OASIS UBL 2.1 as XRechnung 3.0 (the German public bodies' EN 16931 use) reads it: an Invoice, or a
CreditNote for a credit note."""

from decimal import Decimal

from invoicing.e_invoices.cii import CREDIT_NOTE, INVOICE
from invoicing.e_invoices.data import CREDIT_TRANSFER, EInvoice, Party
from invoicing.e_invoices.xml import Tree, amount, percent

COMMON: dict[str | None, str] = {
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
}
DOCUMENTS = {
    False: ("Invoice", "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"),
    True: ("CreditNote", "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"),
}
CUSTOMIZATION = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0"
PROFILE = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0"


def write(invoice: EInvoice) -> bytes:
    root, namespace = DOCUMENTS[invoice.credit_note]
    tree = Tree({None: namespace, **COMMON}, root)
    top = tree.root
    money = _money(invoice.currency)
    tree.add(top, "cbc:CustomizationID", CUSTOMIZATION)
    tree.add(top, "cbc:ProfileID", PROFILE)
    tree.add(top, "cbc:ID", invoice.number)
    tree.add(top, "cbc:IssueDate", invoice.issued_on.isoformat())
    if invoice.due_on and not invoice.credit_note:
        tree.add(top, "cbc:DueDate", invoice.due_on.isoformat())
    tree.add(top, f"cbc:{root}TypeCode", CREDIT_NOTE if invoice.credit_note else INVOICE)
    for note in invoice.notes:
        tree.add(top, "cbc:Note", note)
    tree.add(top, "cbc:DocumentCurrencyCode", invoice.currency)
    tree.add(top, "cbc:BuyerReference", invoice.buyer_reference)
    if invoice.period:
        period = tree.add(top, "cac:InvoicePeriod")
        tree.add(period, "cbc:StartDate", invoice.period[0].isoformat())
        tree.add(period, "cbc:EndDate", invoice.period[1].isoformat())
    if invoice.preceding:
        reference = tree.add(tree.add(top, "cac:BillingReference"), "cac:InvoiceDocumentReference")
        tree.add(reference, "cbc:ID", invoice.preceding[0])
        tree.add(reference, "cbc:IssueDate", invoice.preceding[1].isoformat())
    _party(tree, tree.add(top, "cac:AccountingSupplierParty"), invoice.seller, seller=True)
    _party(tree, tree.add(top, "cac:AccountingCustomerParty"), invoice.buyer, seller=False)
    if invoice.service_on:
        tree.add(tree.add(top, "cac:Delivery"), "cbc:ActualDeliveryDate", invoice.service_on.isoformat())
    means = tree.add(top, "cac:PaymentMeans")
    tree.add(means, "cbc:PaymentMeansCode", invoice.payment_means)
    if invoice.payment_means == CREDIT_TRANSFER:
        account = tree.add(means, "cac:PayeeFinancialAccount")
        tree.add(account, "cbc:ID", invoice.iban)
        if invoice.bic:
            tree.add(tree.add(account, "cac:FinancialInstitutionBranch"), "cbc:ID", invoice.bic)
    if invoice.terms:
        tree.add(tree.add(top, "cac:PaymentTerms"), "cbc:Note", invoice.terms)
    total = tree.add(top, "cac:TaxTotal")
    tree.add(total, "cbc:TaxAmount", amount(invoice.vat), **money)
    for category in invoice.categories:
        subtotal = tree.add(total, "cac:TaxSubtotal")
        tree.add(subtotal, "cbc:TaxableAmount", amount(category.net), **money)
        tree.add(subtotal, "cbc:TaxAmount", amount(category.vat), **money)
        _category(
            tree, tree.add(subtotal, "cac:TaxCategory"), category.code, category.percent, category.reason
        )
    totals = tree.add(top, "cac:LegalMonetaryTotal")
    tree.add(totals, "cbc:LineExtensionAmount", amount(invoice.net), **money)
    tree.add(totals, "cbc:TaxExclusiveAmount", amount(invoice.net), **money)
    tree.add(totals, "cbc:TaxInclusiveAmount", amount(invoice.gross), **money)
    tree.add(totals, "cbc:PrepaidAmount", amount(invoice.paid), **money)
    tree.add(totals, "cbc:PayableAmount", amount(invoice.payable), **money)
    quantity = "CreditedQuantity" if invoice.credit_note else "InvoicedQuantity"
    for number, line in enumerate(invoice.lines, start=1):
        element = tree.add(top, f"cac:{root}Line")
        tree.add(element, "cbc:ID", str(number))
        tree.optional(element, "cbc:Note", line.note)
        tree.add(element, f"cbc:{quantity}", "-1" if line.net < 0 else "1", unitCode="C62")
        tree.add(element, "cbc:LineExtensionAmount", amount(line.net), **money)
        item = tree.add(element, "cac:Item")
        tree.add(item, "cbc:Name", line.name)
        _category(
            tree, tree.add(item, "cac:ClassifiedTaxCategory"), line.category.code, line.category.percent
        )
        tree.add(tree.add(element, "cac:Price"), "cbc:PriceAmount", amount(abs(line.net)), **money)
    return tree.bytes()


def _money(currency: str) -> dict[str, str]:
    return {"currencyID": currency}


def _category(tree: Tree, element, code: str, rate: Decimal, reason: str = "") -> None:
    tree.add(element, "cbc:ID", code)
    tree.add(element, "cbc:Percent", percent(rate))
    tree.optional(element, "cbc:TaxExemptionReason", reason)
    tree.add(tree.add(element, "cac:TaxScheme"), "cbc:ID", "VAT")


def _party(tree: Tree, element, party: Party, *, seller: bool) -> None:
    record = tree.add(element, "cac:Party")
    if party.email:
        tree.add(record, "cbc:EndpointID", party.email, schemeID="EM")
    tree.add(tree.add(record, "cac:PartyName"), "cbc:Name", party.name)
    address = tree.add(record, "cac:PostalAddress")
    tree.optional(address, "cbc:StreetName", party.street)
    tree.optional(address, "cbc:CityName", party.city)
    tree.optional(address, "cbc:PostalZone", party.postcode)
    tree.add(tree.add(address, "cac:Country"), "cbc:IdentificationCode", party.country)
    if party.vat_id:
        scheme = tree.add(record, "cac:PartyTaxScheme")
        tree.add(scheme, "cbc:CompanyID", party.vat_id)
        tree.add(tree.add(scheme, "cac:TaxScheme"), "cbc:ID", "VAT")
    legal = tree.add(record, "cac:PartyLegalEntity")
    tree.add(legal, "cbc:RegistrationName", party.name)
    tree.optional(legal, "cbc:CompanyID", party.register_number)
    if seller:  # XRechnung asks for its seller's contact (the company admin asks for phone and e-mail)
        contact = tree.add(record, "cac:Contact")
        tree.add(contact, "cbc:Name", party.name)
        tree.optional(contact, "cbc:Telephone", party.phone)
        tree.optional(contact, "cbc:ElectronicMail", party.email)
