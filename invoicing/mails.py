"""A booking's invoices and credit notes by e-mail, each a job that sends it once, in the traveller's
language, with its PDF and the e-invoice its company asked for; a copy of each to the company's billing
address when the company asked for e-invoices (its bookkeeping reads them, not the traveller)."""

from django.core.mail import EmailMessage
from django.utils import translation
from django.utils.translation import gettext as _
from django_tasks import task

from booking import notifications
from corporate.models import CompanyAccount
from invoicing import documents
from invoicing.e_invoices import files
from invoicing.models import CreditNote, Invoice
from jobqueue import delivery
from operator_profile.services import operator_branding

CREDIT_NOTE = notifications.Mail(
    {
        "en": "Credit note for your booking {reference}",
        "de": "Gutschrift zu Ihrer Buchung {reference}",
    },
    "emails/credit_note",
    operator_copy=False,
)


@task()
def send_credit_note(credit_note_id: int) -> None:
    # Scoped by the credit note: it goes out once, however often queued.
    with delivery.scope(f"credit-note:{credit_note_id}"):
        mail_credit_note(credit_note_id)


@task()
def send_invoice(invoice_id: int) -> None:
    # Scoped by the invoice: it goes out once, however often queued.
    with delivery.scope(f"invoice:{invoice_id}"):
        mail_invoice(invoice_id)


def mail_credit_note(credit_note_id: int) -> bool:
    """Money went back: the traveller gets its credit note (PDF), issued with the refund."""
    note = CreditNote.objects.select_related("booking", "invoice").get(pk=credit_note_id)
    booking = note.booking
    if not booking.email:
        return False
    message = notifications.compose(
        CREDIT_NOTE,
        booking,
        booking.email,
        notifications.customer_locale(booking),
        credit_note=note,
        credited=note.gross,
    )
    for file in attachments(note):
        message.attach(*file)
    return notifications.deliver(message)


INVOICE_ISSUED = notifications.Mail(
    {"en": "Invoice for your booking {reference}", "de": "Rechnung zu Ihrer Buchung {reference}"},
    "emails/invoice",
    operator_copy=False,
)


def mail_invoice(invoice_id: int) -> bool:
    """An invoice issued after the confirmation went out (it waited for the seller's legal details): the
    traveller gets it (PDF) on its own."""
    invoice = Invoice.objects.select_related("booking").get(pk=invoice_id)
    booking = invoice.booking
    if not booking.email:
        return False
    message = notifications.compose(
        INVOICE_ISSUED, booking, booking.email, notifications.customer_locale(booking), issued=invoice
    )
    for file in attachments(invoice):
        message.attach(*file)
    return notifications.deliver(message)


def attachments(document: Invoice | CreditNote) -> list[tuple[str, bytes, str]]:
    """What a mail carries of a document: its PDF and the e-invoice its company chose; a Factur-X PDF
    instead of the PDF, whose copy it is (two PDFs of one number would be booked twice)."""
    e_invoice = files.e_invoice(document)
    carried = (
        []
        if e_invoice and e_invoice.media_type == files.PDF
        else [(document.file_name, documents.pdf(document), documents.MEDIA_TYPE)]
    )
    if e_invoice is not None:
        carried.append((e_invoice.name, e_invoice.content, e_invoice.media_type))
    return carried


def copy_to_company(document: Invoice | CreditNote) -> None:
    """Queue the document's copy for its company's bookkeeping (in the transaction that issues it), when
    the company chose an e-invoice; a collective invoice goes there anyway."""
    if files.e_invoicing_account(document) is not None:
        kind = "credit_note" if isinstance(document, CreditNote) else "invoice"
        send_to_company.enqueue(kind, document.pk)


@task()
def send_to_company(kind: str, document_id: int) -> None:
    with delivery.scope(f"company-copy:{kind}:{document_id}"):
        mail_to_company(kind, document_id)


def mail_to_company(kind: str, document_id: int) -> None:
    model = CreditNote if kind == "credit_note" else Invoice
    document = model.objects.select_related("booking__company_account").get(pk=document_id)
    account = files.account_of(document)
    if account is None or not account.billing_email:
        return
    operator = operator_branding()
    with translation.override(document.language):
        if kind == "credit_note":
            subject = _("Credit note {number}").format(number=document.number)
            state = _("The amount credited is paid back.")
        else:
            subject = _("Invoice {number}").format(number=document.number)
            state = _("It is paid; nothing is due.")
        body = _(
            "Dear {company},\n\nplease find attached {document} for the ride {reference} booked by "
            "{booker}, with its e-invoice. {state}\n\nKind regards\n{operator}\n"
        ).format(
            company=account.name,
            document=subject,
            reference=document.content["reference"],
            booker=document.content["buyer"].get("name", ""),
            state=state,
            operator=operator.name,
        )
    send_to_bookkeeping(document, account, subject, body)


def send_to_bookkeeping(
    document: Invoice | CreditNote, account: CompanyAccount, subject: str, body: str
) -> None:
    """A document with its files to the company's billing address, once (inside the caller's delivery
    scope): a ride's copy, or the month's collective invoice."""
    message = EmailMessage(subject, body, notifications.sender(), [account.billing_email])
    for file in attachments(document):
        message.attach(*file)
    delivery.send_once(message)
