"""What booking's texts show of payments' money (booking/money_shown.py says what it reads): the words of a
refund's state and of a price difference's reason, the ride's invoice and the cancellation's credit notes
as mails carry them, what was given back, why an amount is owed."""

from booking import selectors
from booking.models import Booking
from booking.money_shown import Document
from invoicing import documents, mails
from invoicing.models import CreditNote, Invoice
from payments import owed
from payments.models import CANCELLATION_REFUND, RefundStatus, Surcharge


def mailed(document: Invoice | CreditNote) -> Document:
    return Document(number=document.number, files=lambda: mails.attachments(document))


class PaymentsShown:
    def refund_state(self, code: str) -> str:
        return str(RefundStatus(code).label)

    def surcharge_reason(self, code: str) -> str:
        return str(Surcharge.Reason(code).label)

    def invoice(self, booking: Booking) -> Document | None:
        invoice = documents.for_booking(booking)
        return mailed(invoice) if invoice is not None else None

    def cancellation_credit_notes(self, booking: Booking) -> list[Document]:
        notes = CreditNote.objects.filter(booking=booking, refund__reason=CANCELLATION_REFUND)
        return [mailed(note) for note in notes.order_by("pk")]

    def given_back_cents(self, booking: Booking) -> int:
        return selectors.refunds_total(booking, [RefundStatus.PENDING, RefundStatus.SUCCEEDED])

    def owed_because(self, booking: Booking, surcharge_id: int) -> str:
        charge = booking.surcharges.filter(pk=surcharge_id).first()
        return owed.owed_because(charge) if charge else ""
