"""UN/CEFACT Cross Industry Invoice (CII D16B) in the EN 16931 profile: the XML of a Factur-X / ZUGFeRD
invoice (facturx.py embeds it in the PDF)."""

from invoicing.e_invoices.data import CREDIT_TRANSFER, EInvoice, Party
from invoicing.e_invoices.xml import Tree, amount, compact_day, percent

NAMESPACES: dict[str | None, str] = {
    "rsm": "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
    "ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
    "qdt": "urn:un:unece:uncefact:data:standard:QualifiedDataType:100",
    "udt": "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
}
PROFILE = "urn:cen.eu:en16931:2017"
INVOICE, CREDIT_NOTE = "380", "381"  # UNTDID 1001


def write(invoice: EInvoice) -> bytes:
    tree = Tree(NAMESPACES, "rsm:CrossIndustryInvoice")
    context = tree.add(tree.root, "rsm:ExchangedDocumentContext")
    tree.add(tree.add(context, "ram:GuidelineSpecifiedDocumentContextParameter"), "ram:ID", PROFILE)
    document = tree.add(tree.root, "rsm:ExchangedDocument")
    tree.add(document, "ram:ID", invoice.number)
    tree.add(document, "ram:TypeCode", CREDIT_NOTE if invoice.credit_note else INVOICE)
    _day(tree, tree.add(document, "ram:IssueDateTime"), invoice.issued_on)
    for note in invoice.notes:
        tree.add(tree.add(document, "ram:IncludedNote"), "ram:Content", note)
    transaction = tree.add(tree.root, "rsm:SupplyChainTradeTransaction")
    for number, line in enumerate(invoice.lines, start=1):
        item = tree.add(transaction, "ram:IncludedSupplyChainTradeLineItem")
        line_document = tree.add(item, "ram:AssociatedDocumentLineDocument")
        tree.add(line_document, "ram:LineID", str(number))
        if line.note:
            tree.add(tree.add(line_document, "ram:IncludedNote"), "ram:Content", line.note)
        tree.add(tree.add(item, "ram:SpecifiedTradeProduct"), "ram:Name", line.name)
        price = tree.add(tree.add(item, "ram:SpecifiedLineTradeAgreement"), "ram:NetPriceProductTradePrice")
        tree.add(price, "ram:ChargeAmount", amount(abs(line.net)))
        delivery = tree.add(item, "ram:SpecifiedLineTradeDelivery")
        tree.add(delivery, "ram:BilledQuantity", "-1" if line.net < 0 else "1", unitCode="C62")
        settlement = tree.add(item, "ram:SpecifiedLineTradeSettlement")
        tax = tree.add(settlement, "ram:ApplicableTradeTax")
        tree.add(tax, "ram:TypeCode", "VAT")
        tree.add(tax, "ram:CategoryCode", line.category.code)
        tree.add(tax, "ram:RateApplicablePercent", percent(line.category.percent))
        summation = tree.add(settlement, "ram:SpecifiedTradeSettlementLineMonetarySummation")
        tree.add(summation, "ram:LineTotalAmount", amount(line.net))
    agreement = tree.add(transaction, "ram:ApplicableHeaderTradeAgreement")
    tree.add(agreement, "ram:BuyerReference", invoice.buyer_reference)
    _party(tree, tree.add(agreement, "ram:SellerTradeParty"), invoice.seller, seller=True)
    _party(tree, tree.add(agreement, "ram:BuyerTradeParty"), invoice.buyer, seller=False)
    delivery = tree.add(transaction, "ram:ApplicableHeaderTradeDelivery")
    if invoice.service_on:
        event = tree.add(delivery, "ram:ActualDeliverySupplyChainEvent")
        _day(tree, tree.add(event, "ram:OccurrenceDateTime"), invoice.service_on)
    _settlement(tree, tree.add(transaction, "ram:ApplicableHeaderTradeSettlement"), invoice)
    return tree.bytes()


def _settlement(tree: Tree, settlement, invoice: EInvoice) -> None:
    tree.add(settlement, "ram:InvoiceCurrencyCode", invoice.currency)
    means = tree.add(settlement, "ram:SpecifiedTradeSettlementPaymentMeans")
    tree.add(means, "ram:TypeCode", invoice.payment_means)
    if invoice.payment_means == CREDIT_TRANSFER:
        tree.add(tree.add(means, "ram:PayeePartyCreditorFinancialAccount"), "ram:IBANID", invoice.iban)
        if invoice.bic:
            tree.add(
                tree.add(means, "ram:PayeeSpecifiedCreditorFinancialInstitution"), "ram:BICID", invoice.bic
            )
    for category in invoice.categories:
        tax = tree.add(settlement, "ram:ApplicableTradeTax")
        tree.add(tax, "ram:CalculatedAmount", amount(category.vat))
        tree.add(tax, "ram:TypeCode", "VAT")
        tree.optional(tax, "ram:ExemptionReason", category.reason)
        tree.add(tax, "ram:BasisAmount", amount(category.net))
        tree.add(tax, "ram:CategoryCode", category.code)
        tree.add(tax, "ram:RateApplicablePercent", percent(category.percent))
    if invoice.period:
        period = tree.add(settlement, "ram:BillingSpecifiedPeriod")
        _day(tree, tree.add(period, "ram:StartDateTime"), invoice.period[0])
        _day(tree, tree.add(period, "ram:EndDateTime"), invoice.period[1])
    if invoice.due_on:
        terms = tree.add(settlement, "ram:SpecifiedTradePaymentTerms")
        tree.optional(terms, "ram:Description", invoice.terms)
        _day(tree, tree.add(terms, "ram:DueDateDateTime"), invoice.due_on)
    totals = tree.add(settlement, "ram:SpecifiedTradeSettlementHeaderMonetarySummation")
    tree.add(totals, "ram:LineTotalAmount", amount(invoice.net))
    tree.add(totals, "ram:TaxBasisTotalAmount", amount(invoice.net))
    tree.add(totals, "ram:TaxTotalAmount", amount(invoice.vat), currencyID=invoice.currency)
    tree.add(totals, "ram:GrandTotalAmount", amount(invoice.gross))
    tree.add(totals, "ram:TotalPrepaidAmount", amount(invoice.paid))
    tree.add(totals, "ram:DuePayableAmount", amount(invoice.payable))
    if invoice.preceding:
        referenced = tree.add(settlement, "ram:InvoiceReferencedDocument")
        tree.add(referenced, "ram:IssuerAssignedID", invoice.preceding[0])
        issued = tree.add(referenced, "ram:FormattedIssueDateTime")
        tree.add(issued, "qdt:DateTimeString", compact_day(invoice.preceding[1]), format="102")


def _party(tree: Tree, element, party: Party, *, seller: bool) -> None:
    tree.add(element, "ram:Name", party.name)
    if party.register_number:
        tree.add(tree.add(element, "ram:SpecifiedLegalOrganization"), "ram:ID", party.register_number)
    if seller and (party.phone or party.email):
        contact = tree.add(element, "ram:DefinedTradeContact")
        tree.add(contact, "ram:PersonName", party.name)
        if party.phone:
            tree.add(
                tree.add(contact, "ram:TelephoneUniversalCommunication"), "ram:CompleteNumber", party.phone
            )
        if party.email:
            tree.add(tree.add(contact, "ram:EmailURIUniversalCommunication"), "ram:URIID", party.email)
    address = tree.add(element, "ram:PostalTradeAddress")
    tree.optional(address, "ram:PostcodeCode", party.postcode)
    tree.optional(address, "ram:LineOne", party.street)
    tree.optional(address, "ram:CityName", party.city)
    tree.add(address, "ram:CountryID", party.country)
    if party.email:
        tree.add(tree.add(element, "ram:URIUniversalCommunication"), "ram:URIID", party.email, schemeID="EM")
    if party.vat_id:
        tree.add(tree.add(element, "ram:SpecifiedTaxRegistration"), "ram:ID", party.vat_id, schemeID="VA")


def _day(tree: Tree, parent, value) -> None:
    tree.add(parent, "udt:DateTimeString", compact_day(value), format="102")
