"""A company's collective invoice (docs/operations/business.md): one per company account and Vienna month,
listing its rides on account of that month, numbered in the same gapless series as the ride invoices
(invoicing/invoices.py), due after the account's payment terms. Issued by the monthly schedule
(payments.tasks.issue_collective_invoices), which also e-mails each invoice's PDF once through the queue.
What a ride still owes after it (waiting time, a no-show fee) is payments' record: payments hands it over
(`Owed`) when it issues (payments/collective_invoices.py); this app reads no payments' rows."""

import calendar
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django_tasks import task

from booking import presentation
from booking.models import Booking, BookingStatus, PaymentMethod
from corporate.models import CompanyAccount
from invoicing import mails
from invoicing.invoices import NUMBER_FORMAT, next_number, seller_details
from invoicing.models import CollectiveInvoiceLine, Invoice
from jobqueue import delivery
from operator_profile import seller
from operator_profile.models import COUNTRIES, PROFILE_ID, OperatorProfile
from operator_profile.services import operator_branding
from pricing.money import CURRENCY, from_cents, to_cent, to_cents
from pricing.quote import price_by_hand_of, without_price_by_hand

logger = logging.getLogger(__name__)
VIENNA = ZoneInfo("Europe/Vienna")
INVOICED_STATES = (BookingStatus.PAID, BookingStatus.CONFIRMED, BookingStatus.COMPLETED)
# What a ride still owes after it, billed with the ride: each charge's words in the active language and
# its amount.
Owed = Callable[[Booking], list[tuple[str, Decimal]]]


def month_of(day: date) -> date:
    return day.replace(day=1)


def previous_month(day: date) -> date:
    return month_of(month_of(day) - timedelta(days=1))


def month_bounds(month: date) -> tuple[datetime, datetime]:
    """The month's first moment and the next month's first moment in Vienna."""
    start = datetime.combine(month, time(), tzinfo=VIENNA)
    days = calendar.monthrange(month.year, month.month)[1]
    return start, datetime.combine(month + timedelta(days=days), time(), tzinfo=VIENNA)


def uninvoiced(account_id: int | None, month: date):
    """The bookings on account whose pickup falls in the month and that no collective invoice lists yet:
    rides paid, confirmed or completed, and cancellations that kept a fee."""
    start, end = month_bounds(month)
    bookings = Booking.objects.filter(
        payment_method=PaymentMethod.ACCOUNT,
        company_account__isnull=False,
        pickup_at__gte=start,
        pickup_at__lt=end,
        collective_invoice_line__isnull=True,
    ).filter(Q(status__in=INVOICED_STATES) | Q(status=BookingStatus.CANCELLED, cancellation_fee_cents__gt=0))
    if account_id is not None:
        bookings = bookings.filter(company_account_id=account_id)
    return bookings.order_by("pickup_at", "pk")


def billed_on(booking: Booking) -> Invoice | None:
    """The issued collective invoice that lists the booking, if any (selected with a list of bookings:
    booking/listing.py)."""
    if Booking.collective_invoice_line.is_cached(booking):
        line = getattr(booking, "collective_invoice_line", None)
    else:
        line = CollectiveInvoiceLine.objects.filter(booking=booking).select_related("invoice").first()
    return line.invoice if line else None


def billed_refusal(booking: Booking) -> str | None:
    """Why a listed ride can no longer be cancelled, changed or have what it owes settled (the invoice is
    never changed, so it would still bill the old amount): staff correct the invoice by hand. None if not
    listed."""
    invoice = billed_on(booking)
    if invoice is None:
        return None
    return _(
        "{reference} is billed on the collective invoice {number}: it can no longer be changed here. Correct "
        "that invoice by hand (docs: business customers)."
    ).format(reference=booking.reference, number=invoice.number)


def issued_for(account: CompanyAccount, pickup: datetime) -> Invoice | None:
    """The account's collective invoice of the Vienna month a pickup falls in, if it is issued: a ride of
    that month put on the account now would be billed by none (the invoice is never changed)."""
    return _existing(account, month_of(timezone.localtime(pickup, VIENNA).date()))


def issue_month(month: date, owed: Owed) -> list[Invoice]:
    """Every company's collective invoice for the month that is still missing (a month without a ride
    gets none); the invoices issued now."""
    account_ids = sorted(set(uninvoiced(None, month).values_list("company_account_id", flat=True)))
    issued = []
    for account in CompanyAccount.objects.filter(pk__in=account_ids).order_by("pk"):
        invoice, created = issue(account, month, owed)
        if created and invoice is not None:  # a created one is there
            issued.append(invoice)
    return issued


def issue(account: CompanyAccount, month: date, owed: Owed) -> tuple[Invoice | None, bool]:
    """The account's collective invoice for the month and whether it was issued now: the one it has, else
    a new one if the month has rides to list, else None. Its e-mail is queued in the same transaction.
    While the seller's legal details are missing none is issued: its rides are marked as waiting, and
    payments/waiting_documents.py issues it once the details are complete."""
    month = month_of(month)
    try:
        with transaction.atomic():
            # The account's row lock serialises two workers issuing the same invoice; the second sees the
            # first's invoice once it holds the lock.
            CompanyAccount.objects.select_for_update().get(pk=account.pk)
            existing = _existing(account, month)
            if existing is not None:
                return existing, False
            bookings = list(uninvoiced(account.pk, month))
            if not bookings:
                return None, False
            if not seller.complete():
                waiting = Booking.objects.filter(pk__in=[booking.pk for booking in bookings])
                waiting.filter(documents_waiting_since__isnull=True).update(
                    documents_waiting_since=timezone.now()
                )
                logger.warning(
                    "%s's collective invoice for %s waits for the seller's legal details", account, month
                )
                return None, False
            invoice = _create(account, month, bookings, owed)
            send_collective_invoice.enqueue(invoice.pk)
            return invoice, True
    except IntegrityError:  # a worker without the account's lock (or a line taken meanwhile): its row wins
        return _existing(account, month), False


def _existing(account: CompanyAccount, month: date) -> Invoice | None:
    return Invoice.objects.filter(
        kind=Invoice.Kind.COLLECTIVE, company_account=account, period_start=month
    ).first()


@dataclass(frozen=True)
class _Line:
    booking: Booking
    gross_cents: int
    vat_rate: Decimal
    content: dict


def _create(account: CompanyAccount, month: date, bookings: list[Booking], owed: Owed) -> Invoice:
    issued_at = timezone.now()
    year = timezone.localtime(issued_at).year
    sequence = next_number(year)
    number = NUMBER_FORMAT.format(year=year, sequence=sequence)
    due_on = timezone.localtime(issued_at).date() + timedelta(days=account.payment_terms_days)
    language = account.language if account.language in ("de", "en") else "de"
    with translation.override(language):
        lines = [_line(booking, owed) for booking in bookings]
        content = _snapshot(account, month, lines, number=number, issued_at=issued_at, due_on=due_on)
    invoice = Invoice.objects.create(
        number=number,
        year=year,
        sequence=sequence,
        kind=Invoice.Kind.COLLECTIVE,
        company_account=account,
        period_start=month,
        due_on=due_on,
        issued_at=issued_at,
        language=language,
        net_cents=to_cents(Decimal(content["net"])),
        vat_cents=to_cents(Decimal(content["vat"])),
        gross_cents=to_cents(Decimal(content["gross"])),
        currency=content["currency"],
        content=content,
    )
    CollectiveInvoiceLine.objects.bulk_create(
        [
            CollectiveInvoiceLine(invoice=invoice, booking=line.booking, gross_cents=line.gross_cents)
            for line in lines
        ]
    )
    return invoice


def _line(booking: Booking, owed: Owed) -> _Line:
    """One ride (or cancellation) as printed, in the active language: the price and what is owed after the
    ride as sub-lines, or the cancellation fee."""
    if booking.status == BookingStatus.CANCELLED:
        assert booking.cancellation_fee_cents is not None  # noqa: S101  (billable: cancellations with a fee)
        sublines = [
            {"label": _("Cancellation fee"), "amount": str(from_cents(booking.cancellation_fee_cents))}
        ]
    else:
        sublines = [{"label": presentation.service(booking), "amount": str(from_cents(booking.amount_cents))}]
        if (
            by_hand := price_by_hand_of(booking.quote)
        ) is not None:  # the tariff's price, then the difference
            tariff = without_price_by_hand(booking.quote).price
            sublines = [
                {"label": presentation.service(booking), "amount": str(tariff)},
                {
                    "label": _("Price adjustment: {reason}").format(reason=by_hand.reason),
                    "amount": str(by_hand.amount - tariff),
                },
            ]
        sublines += [{"label": _first_upper(label), "amount": str(amount)} for label, amount in owed(booking)]
    gross_cents = sum(to_cents(Decimal(sub["amount"])) for sub in sublines)
    vat_rate = booking.quote.vat_rate
    pickup = timezone.localtime(booking.pickup_at, VIENNA)
    return _Line(
        booking=booking,
        gross_cents=gross_cents,
        vat_rate=vat_rate,
        content={
            "date": pickup.isoformat(),
            "reference": booking.reference,
            "booker": booking.name,
            "origin": booking.origin,
            "destination": booking.destination_shown,
            "vehicle": presentation.vehicle_name(booking.vehicle_class),
            "cancelled": booking.status == BookingStatus.CANCELLED,
            "items": sublines,
            "vat_rate": str(vat_rate),
            "amount": str(from_cents(gross_cents)),
        },
    )


def vat_breakdown(lines: list[_Line]) -> list[dict]:
    """Net and VAT per rate, from each rate's gross sum (the prices include VAT)."""
    rates: dict[Decimal, int] = {}
    for line in lines:
        rates[line.vat_rate] = rates.get(line.vat_rate, 0) + line.gross_cents
    breakdown = []
    for rate, gross_cents in sorted(rates.items()):
        gross = from_cents(gross_cents)
        net = to_cent(gross / (1 + rate))
        breakdown.append({"rate": str(rate), "net": str(net), "vat": str(gross - net), "gross": str(gross)})
    return breakdown


def _snapshot(account, month, lines, *, number, issued_at, due_on) -> dict:
    """Everything the collective invoice prints, fixed at issue (the company's or the operator's later
    changes do not change it)."""
    profile = OperatorProfile.objects.filter(id=PROFILE_ID).first()
    breakdown = vat_breakdown(lines)
    currency = lines[0].booking.currency if lines else CURRENCY
    end = month_bounds(month)[1]
    return {
        "kind": "collective",
        "number": number,
        "issued_at": issued_at.isoformat(),
        "language": translation.get_language(),
        "period_start": month.isoformat(),
        "period_end": (end.date() - timedelta(days=1)).isoformat(),
        "due_on": due_on.isoformat(),
        "payment_terms_days": account.payment_terms_days,
        "seller": seller_details(profile),
        "bank": {"iban": profile.iban if profile else "", "bic": profile.bic if profile else ""},
        # UStG §11: the customer's UID is required above €10,000; printed whenever it is known.
        "buyer": {
            "name": account.name,
            "street_address": account.street_address,
            "place": " ".join(part for part in (account.postcode, account.city) if part),
            "country": str(dict(COUNTRIES).get(account.country, account.country)),
            "country_code": account.country,
            "postcode": account.postcode,
            "city": account.city,
            "email": account.billing_email,
            "vat_id": account.vat_id,
        },
        "lines": [line.content for line in lines],
        "vat_rates": breakdown,
        "net": str(sum((Decimal(rate["net"]) for rate in breakdown), Decimal("0.00"))),
        "vat": str(sum((Decimal(rate["vat"]) for rate in breakdown), Decimal("0.00"))),
        "gross": str(sum((Decimal(rate["gross"]) for rate in breakdown), Decimal("0.00"))),
        "currency": currency,
    }


@task()
def send_collective_invoice(invoice_id: int) -> None:
    deliver(invoice_id)


def deliver(invoice_id: int) -> None:
    """E-mail the invoice's PDF, and the e-invoice the company chose, to its billing address, once (a job;
    a retry after it went out sends nothing)."""
    invoice = Invoice.objects.select_related("company_account").get(
        pk=invoice_id, kind=Invoice.Kind.COLLECTIVE
    )
    account = invoice.company_account
    from invoicing import collective_invoice_pdf  # its words; fpdf2 loads only where a PDF is written

    operator = operator_branding()
    with translation.override(invoice.language):
        subject = _("Collective invoice {number}").format(number=invoice.number)
        body = _(
            "Dear {company},\n\nplease find attached our collective invoice {number} for your rides in "
            "{period}. Please transfer {amount} by {due}.\n\nKind regards\n{operator}\n"
        ).format(
            company=account.name,
            number=invoice.number,
            period=collective_invoice_pdf.period(invoice.content),
            amount=collective_invoice_pdf.amount(invoice.content["gross"], invoice.currency),
            due=collective_invoice_pdf.due(invoice.content),
            operator=operator.name,
        )
    with delivery.scope(f"collective-invoice:{invoice.pk}"):
        mails.send_to_bookkeeping(invoice, account, subject, body)


def _first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]
