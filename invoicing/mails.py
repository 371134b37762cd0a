"""A booking's invoices and credit notes by e-mail, each a job that sends it once, in the traveller's
language, with its PDF and the e-invoice its company asked for."""

from django_tasks import task

from booking import notifications
from invoicing import documents
from invoicing.e_invoices import files
from invoicing.models import CreditNote, Invoice
from jobqueue import delivery

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
