"""Invoices (UStG §11; docs/operations/invoices.md): issued when a booking becomes paid, in the same
transaction as the payment (booking.transitions.apply calls `issue`), so a payment never lacks its
invoice and a rolled-back payment leaves neither an invoice nor a used number.

Numbers are "YYYY-NNNNNN": the calendar year in Vienna, then the year's consecutive number, gapless. The
year's counter row is locked for the rest of the payment's transaction, so no two workers draw the same
number; a transaction that rolls back gives its number back before anyone else can draw it."""

from django.db import transaction
from django.utils import timezone, translation

from booking import presentation
from booking.models import Booking
from company.models import COUNTRIES, PROFILE_ID, OperatorProfile
from payments.models import Invoice, InvoiceYear
from pricing.money import to_cents

NUMBER_FORMAT = "{year}-{sequence:06d}"


def issue(booking: Booking) -> Invoice:
    """The booking's invoice: issued now if it has none, else the one it has (a replayed payment gets no
    second invoice). Call inside the transaction that makes the booking paid, holding its row lock."""
    if not transaction.get_connection().in_atomic_block:
        raise transaction.TransactionManagementError("an invoice is issued in the payment's transaction")
    existing = Invoice.objects.filter(booking=booking).first()
    if existing is not None:
        return existing
    issued_at = timezone.now()
    year = timezone.localtime(issued_at).year
    sequence = _next_number(year)
    number = NUMBER_FORMAT.format(year=year, sequence=sequence)
    quote = booking.quote
    language = "de" if booking.locale == "de" else "en"
    return Invoice.objects.create(
        number=number,
        year=year,
        sequence=sequence,
        booking=booking,
        issued_at=issued_at,
        language=language,
        net_cents=to_cents(quote.net),
        vat_cents=to_cents(quote.vat),
        gross_cents=to_cents(quote.price),
        currency=quote.currency,
        content=snapshot(booking, number=number, issued_at=issued_at, language=language),
    )


def _next_number(year: int) -> int:
    """The year's next number. The year's row is created if missing (ON CONFLICT DO NOTHING: a second
    worker creating it at the same moment waits for the first and then finds it), then locked."""
    InvoiceYear.objects.bulk_create([InvoiceYear(year=year)], ignore_conflicts=True)
    counter = InvoiceYear.objects.select_for_update().get(year=year)
    counter.last_number += 1
    counter.save(update_fields=["last_number"])
    return counter.last_number


def snapshot(booking: Booking, *, number: str, issued_at, language: str) -> dict:
    """Everything the invoice prints, fixed at issue: texts worded in the invoice's language now (a tariff
    or a profile changed later does not change an issued invoice), amounts as exact text, moments in ISO."""
    quote = booking.quote
    with translation.override(language):
        lines = [
            {"label": line.label, "amount": str(line.amount)} for line in presentation.price_lines(booking)
        ]
        service = presentation.service(booking)
        vehicle = presentation.vehicle_name(booking.vehicle_class)
        destination = booking.destination_shown
        seller = seller_details(OperatorProfile.objects.filter(id=PROFILE_ID).first())
    return {
        "number": number,
        "issued_at": issued_at.isoformat(),
        "language": language,
        "seller": seller,
        # The booking asks for no postal address: the customer is named as they booked.
        "buyer": {"name": booking.name, "email": booking.email, "phone": booking.phone},
        "reference": booking.reference,
        "service": service,
        "vehicle": vehicle,
        "origin": booking.origin,
        "destination": destination,
        "pickup_at": booking.pickup_at.isoformat() if booking.pickup_at else None,
        "paid_at": booking.paid_at.isoformat() if booking.paid_at else issued_at.isoformat(),
        "lines": lines,
        "net": str(quote.net),
        "vat": str(quote.vat),
        "vat_rate": str(quote.vat_rate),
        "gross": str(quote.price),
        "currency": quote.currency,
    }


def seller_details(profile: OperatorProfile | None) -> dict[str, str]:
    if profile is None:
        return {}
    return {
        "name": profile.legal_name or profile.name,
        "street_address": profile.street_address,
        "place": " ".join(part for part in (profile.postcode, profile.city) if part),
        "country": str(dict(COUNTRIES).get(profile.country, profile.country)),
        "vat_id": profile.vat_id,
        "register_number": profile.company_register_number,
        "register_court": profile.company_register_court,
        "phone": profile.phone,
        "email": profile.email,
        "website": profile.website,
    }


def for_booking(booking: Booking) -> Invoice | None:
    return Invoice.objects.filter(booking=booking).first()
