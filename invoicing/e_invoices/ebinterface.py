"""ebInterface 6.1, the Austrian e-invoice the federal bodies take (e-rechnung.gv.at): the recipient's order
reference is the buyer reference, a recipient without a VAT id is "00000000" as the standard asks."""

import re

from django.utils.translation import gettext as _

from invoicing.e_invoices.data import CREDIT_TRANSFER, EInvoice, Party
from invoicing.e_invoices.xml import Tree, amount

NAMESPACE = "http://www.ebinterface.at/schema/6p1/"
BIC = re.compile(r"[0-9A-Za-z]{8}([0-9A-Za-z]{3})?")  # the schema's own pattern refuses anything else
OWNER_LENGTH = 70  # the schema's longest account owner
NO_VAT_ID = "00000000"
GENERATOR = "Chauffeur booking service"


def write(invoice: EInvoice) -> bytes:
    tree = Tree(
        {None: NAMESPACE},
        "Invoice",
        GeneratingSystem=GENERATOR,
        DocumentType="CreditMemo" if invoice.credit_note else "Invoice",
        InvoiceCurrency=invoice.currency,
        Language=invoice.language,
    )
    top = tree.root
    tree.add(top, "InvoiceNumber", invoice.number)
    tree.add(top, "InvoiceDate", invoice.issued_on.isoformat())
    if invoice.preceding:
        related = tree.add(top, "RelatedDocument")
        tree.add(related, "InvoiceNumber", invoice.preceding[0])
        tree.add(related, "InvoiceDate", invoice.preceding[1].isoformat())
    for note in invoice.notes:
        tree.add(top, "AdditionalInformation", note, Key="Note")
    if invoice.period:
        period = tree.add(tree.add(top, "Delivery"), "Period")
        tree.add(period, "FromDate", invoice.period[0].isoformat())
        tree.add(period, "ToDate", invoice.period[1].isoformat())
    elif invoice.service_on:
        tree.add(tree.add(top, "Delivery"), "Date", invoice.service_on.isoformat())
    biller = tree.add(top, "Biller")
    tree.add(biller, "VATIdentificationNumber", invoice.seller.vat_id or NO_VAT_ID)
    _address(tree, biller, invoice.seller)
    tree.optional(biller, "InvoiceRecipientsBillerID", invoice.seller.supplier_number)
    recipient = tree.add(top, "InvoiceRecipient")
    tree.add(recipient, "VATIdentificationNumber", invoice.buyer.vat_id or NO_VAT_ID)
    tree.add(tree.add(recipient, "OrderReference"), "OrderID", invoice.buyer_reference)
    _address(tree, recipient, invoice.buyer)
    items = tree.add(tree.add(top, "Details"), "ItemList")
    for number, line in enumerate(invoice.lines, start=1):
        item = tree.add(items, "ListLineItem")
        tree.add(item, "PositionNumber", str(number))
        tree.add(item, "Description", line.name)
        tree.add(item, "Quantity", "-1" if line.net < 0 else "1", Unit="C62")
        tree.add(item, "UnitPrice", f"{abs(line.net):.4f}")
        if line.note:
            tree.add(item, "AdditionalInformation", line.note, Key="Note")
        tax = tree.add(item, "TaxItem")
        tree.add(tax, "TaxableAmount", amount(line.net))
        tree.add(tax, "TaxPercent", amount(line.category.rate * 100), TaxCategoryCode=line.category.code)
        tree.optional(tax, "Comment", line.category.reason)
        tree.add(item, "LineItemAmount", amount(line.net))
    taxes = tree.add(top, "Tax")
    for category in invoice.categories:
        tax = tree.add(taxes, "TaxItem")
        tree.add(tax, "TaxableAmount", amount(category.net))
        tree.add(tax, "TaxPercent", amount(category.rate * 100), TaxCategoryCode=category.code)
        tree.add(tax, "TaxAmount", amount(category.vat))
        tree.optional(tax, "Comment", category.reason)
    tree.add(top, "TotalGrossAmount", amount(invoice.gross))
    if invoice.paid:
        tree.add(top, "PrepaidAmount", amount(invoice.paid))
    tree.add(top, "PayableAmount", amount(invoice.payable))
    method = tree.add(top, "PaymentMethod")
    if invoice.payment_means == CREDIT_TRANSFER:
        tree.add(method, "Comment", _("Bank transfer"))
        account = tree.add(tree.add(method, "UniversalBankTransaction"), "BeneficiaryAccount")
        if BIC.fullmatch(invoice.bic):
            tree.add(account, "BIC", invoice.bic)
        tree.add(account, "IBAN", invoice.iban)
        tree.add(account, "BankAccountOwner", invoice.seller.name[:OWNER_LENGTH])
    elif invoice.payable:  # a collective invoice while the operator profile names no IBAN
        tree.add(method, "OtherPayment")
    else:
        tree.add(method, "Comment", _("Refunded.") if invoice.credit_note else _("Paid."))
        tree.add(method, "NoPayment")
    if invoice.due_on:
        conditions = tree.add(top, "PaymentConditions")
        tree.add(conditions, "DueDate", invoice.due_on.isoformat())
        tree.optional(conditions, "Comment", invoice.terms)
    return tree.bytes()


def _address(tree: Tree, parent, party: Party) -> None:
    address = tree.add(parent, "Address")
    tree.add(address, "Name", party.name)
    tree.optional(address, "Street", party.street)
    tree.add(address, "Town", party.city or "-")
    tree.add(address, "ZIP", party.postcode or "-")
    tree.add(address, "Country", party.country, CountryCode=party.country)
    tree.optional(address, "Phone", party.phone)
    tree.optional(address, "Email", party.email)
