"""A booking's whole record removed once the years of keeping its documents have passed (BAO §132: from the
end of the year a document was issued): its invoices and credit notes, its payments, refunds and price
differences, its history and the booking itself; a company's collective invoice goes once none of its rides
is left. A booking under a hold (privacy.models.Hold), or with any document or money of a later year, stays
with everything it belongs to."""

from datetime import datetime

from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from booking import personal_data, selectors
from booking.models import Booking
from dispatch.models import ChangeQuote
from invoicing.models import CollectiveInvoiceLine, CreditNote, Invoice
from payments.models import AccountPayment, Payment, PaymentShare, Refund, Surcharge
from privacy.models import Hold


def kept_since(now: datetime, years: int) -> datetime:
    """What dates from before this has been kept its years: the start of a year in Vienna."""
    local = timezone.localtime(now)
    return local.replace(year=local.year - years, month=1, day=1, hour=0, minute=0, second=0, microsecond=0)


def not_held(bookings: QuerySet, now: datetime) -> QuerySet:
    standing = Hold.objects.filter(Hold.standing(timezone.localdate(now)), booking=OuterRef("pk"))
    return bookings.exclude(Exists(standing))


def ridden_before(moment: datetime) -> QuerySet:
    """Bookings whose ride (its pickup; the booking's time without one) was before `moment`."""
    return Booking.objects.annotate(ride_at=Coalesce("pickup_at", "created_at")).filter(ride_at__lt=moment)


def removable_bookings(now: datetime, years: int) -> QuerySet:
    since, booking = kept_since(now, years), OuterRef("pk")
    documents = [
        Invoice.objects.filter(Q(booking=booking) | Q(lines__booking=booking)),
        # a way back's ride is on its trip's invoice, kept with the way out
        Invoice.objects.filter(booking=OuterRef("way_out"), kind=Invoice.Kind.RIDE),
        CreditNote.objects.filter(
            Q(booking=booking) | Q(invoice__booking=booking) | Q(invoice__lines__booking=booking)
        ),
    ]
    later: list[QuerySet] = [rows.filter(issued_at__gte=since) for rows in documents]
    later += [
        Payment.objects.filter(Q(created_at__gte=since) | Q(received_at__gte=since), shares__booking=booking),
        Refund.objects.filter(booking=booking, updated_at__gte=since),
        Surcharge.objects.filter(booking=booking, created_at__gte=since),
    ]
    # a return trip's way out goes after its way back (the way back names it)
    bookings = ridden_before(since).filter(created_at__lt=since, way_back__isnull=True)
    for rows in later:
        bookings = bookings.exclude(Exists(rows))
    return not_held(bookings, now)


def removable_collective_invoices(now: datetime, years: int) -> QuerySet:
    since, invoice = kept_since(now, years), OuterRef("pk")
    rides_staying = CollectiveInvoiceLine.objects.filter(invoice=invoice).exclude(
        booking__in=removable_bookings(now, years)
    )
    return (
        Invoice.objects.filter(kind=Invoice.Kind.COLLECTIVE, issued_at__lt=since)
        .exclude(Exists(CreditNote.objects.filter(invoice=invoice, issued_at__gte=since)))
        .exclude(Exists(AccountPayment.objects.filter(invoice=invoice, payment__created_at__gte=since)))
        .exclude(Exists(rides_staying))
    )


def anonymise(booking_id: int, now: datetime) -> bool:
    """The booking's personal data removed (booking/personal_data.py), and the changes quoted for it, which
    name the addresses asked for; False when the data was already removed."""
    with transaction.atomic():
        selectors.locked_booking(booking_id)  # the booking first, as a change locks it before its quote
        ChangeQuote.objects.filter(booking_id=booking_id).delete()
        return personal_data.anonymise(booking_id, now)


def remove_booking(booking_id: int) -> None:
    """Its documents first, then its money, then the booking: each row goes after every row pointing at it."""
    with transaction.atomic():
        booking = selectors.locked_booking(booking_id)
        CreditNote.objects.filter(Q(booking=booking) | Q(invoice__booking=booking)).remove_past_retention()
        CollectiveInvoiceLine.objects.filter(booking=booking).delete()
        Refund.objects.filter(booking=booking).delete()
        Invoice.objects.filter(booking=booking).remove_past_retention()
        paid_by = list(Payment.objects.filter(shares__booking=booking).values_list("pk", flat=True))
        PaymentShare.objects.filter(booking=booking).delete()
        Payment.objects.filter(pk__in=paid_by, shares__isnull=True, on_account__isnull=True).delete()
        Surcharge.objects.filter(booking=booking).delete()
        Hold.objects.filter(booking=booking).delete()  # lapsed, or the booking would not be here
        booking.delete()


def remove_collective_invoice(invoice_id: int) -> None:
    """Its rides are gone already: its credit notes, the company's payments against it, and the invoice."""
    with transaction.atomic():
        invoice = Invoice.objects.select_for_update().get(pk=invoice_id)
        CreditNote.objects.filter(invoice=invoice).remove_past_retention()
        paid_by = list(AccountPayment.objects.filter(invoice=invoice).values_list("payment_id", flat=True))
        AccountPayment.objects.filter(invoice=invoice).delete()
        PaymentShare.objects.filter(payment_id__in=paid_by).delete()
        Payment.objects.filter(pk__in=paid_by).delete()
        Invoice.objects.filter(pk=invoice.pk).remove_past_retention()
