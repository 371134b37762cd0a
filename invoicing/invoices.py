"""Invoices (UStG §11; docs/operations/invoices.md): issued when a booking becomes paid, in the same
transaction as the payment (payments' `move_to_paid` calls `issue`), so a payment never lacks its
invoice and a rolled-back payment leaves neither an invoice nor a used number. A return trip's two rides,
paid together, are on one invoice (on the way out), which keeps each ride's part (documents.part_of).

Numbers are "YYYY-NNNNNN": the calendar year in Vienna, then the year's consecutive number, gapless. The
year's counter row is locked for the rest of the payment's transaction, so no two workers draw the same
number; a transaction that rolls back gives its number back before anyone else can draw it.

No invoice names a seller without its legal details (operator_profile/seller.py): while the operator profile
lacks one, a booking's documents wait, in order (its ride invoice's content fixed as it was when paid), and
payments/waiting_documents.py issues them once the details are complete. A supplementary invoice is for a
charge payments recorded: payments hands over what it prints (`Charge`), this app never reads its rows."""

import logging
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Coalesce
from django.utils import timezone, translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from booking import presentation
from booking.models import Booking, PaymentMethod
from invoicing import cross_border, documents, mails, numbering, printed_lines
from invoicing.models import Invoice, InvoiceYear
from operator_profile import seller
from operator_profile.models import COUNTRIES, PROFILE_ID, OperatorProfile
from pricing.lines import LineKind, PricedLine
from pricing.money import from_cents, to_cents
from pricing.quote import price_by_hand_of

logger = logging.getLogger(__name__)
NUMBER_FORMAT = "{year}-{sequence:06d}"
# What a price difference records of the price set by hand it is for (Surcharge.details): its reason.
PRICE_BY_HAND_REASON = "price_by_hand_reason"


@dataclass(frozen=True)
class Charge:
    """A charge paid after the ride's invoice, as its supplementary invoice prints it: payments' price
    difference, waiting time or no-show fee (Surcharge `id`), paid, in its own words."""

    id: int
    code: str  # the line's text key: the charge's reason
    kind: LineKind
    label: Promise  # worded in the invoice's language when issued
    amount_cents: int
    currency: str
    paid_at: datetime | None
    # a price difference after a change prints the reason staff gave for a price set by hand: as recorded
    # with the charge, or None for the booking's price's own
    price_change: bool = False
    reason_by_hand: str | None = None


def waits(booking: Booking) -> bool:
    """Whether the booking's next document must wait: the seller's legal details are missing, or documents
    of the booking issued before it still wait (they are issued in order), a way back's trip invoice too."""
    if booking.documents_waiting_since is not None or not seller.complete():
        return True
    if booking.way_out_id is None:
        return False
    draft = Booking.objects.filter(pk=booking.way_out_id).values_list("invoice_draft", flat=True).first()
    return documents.listed_part(draft or {}, booking) is not None


def hold(booking: Booking, *, since: datetime | None = None) -> None:
    """Mark the booking's documents as waiting (in the caller's transaction, which holds its row lock), from
    `since` (default now): a refund's credit note waits from the refund's own time, so it is found again."""
    since = since or timezone.now()
    Booking.objects.filter(pk=booking.pk).update(
        documents_waiting_since=Coalesce(F("documents_waiting_since"), since)
    )
    booking.documents_waiting_since = booking.documents_waiting_since or since


def issue(*rides: Booking) -> Invoice | None:
    """The invoice of rides paid together: a booking's, or a return trip's (its way out, then its way back:
    one payment, one invoice listing each ride). Issued now if the first ride has none, else the one it has
    (a replayed payment gets no second invoice). Call inside the transaction that makes them paid, holding
    their row locks. None while it must wait: its content is kept on the first ride as it is now (the others
    wait with it), and issued unchanged but for the number, the date and the seller when the seller's
    details are complete."""
    if not transaction.get_connection().in_atomic_block:
        raise transaction.TransactionManagementError("an invoice is issued in the payment's transaction")
    booking = rides[0]
    existing = documents.for_booking(booking)
    if existing is not None:
        return existing
    language = "de" if booking.locale == "de" else "en"
    if any(waits(ride) for ride in rides):
        if booking.invoice_draft is None:
            booking.invoice_draft = _content(rides, number="", issued_at=timezone.now(), language=language)
            Booking.objects.filter(pk=booking.pk).update(invoice_draft=booking.invoice_draft)
        since = timezone.now()
        for ride in rides:
            hold(ride, since=since)
        logger.debug("%s: its invoice waits for the seller's legal details", booking.reference)
        return None
    issued_at = timezone.now()
    year = timezone.localtime(issued_at).year
    sequence = _next_number(year)
    number = NUMBER_FORMAT.format(year=year, sequence=sequence)
    if booking.invoice_draft is not None:  # as it was when paid; numbered, dated and signed now
        content = {**booking.invoice_draft, "number": number, "issued_at": issued_at.isoformat()}
        language = content["language"]
        with translation.override(language):
            content["seller"] = seller_details(OperatorProfile.objects.filter(id=PROFILE_ID).first())
        booking.invoice_draft = None
        Booking.objects.filter(pk=booking.pk).update(invoice_draft=None)
    else:
        content = _content(rides, number=number, issued_at=issued_at, language=language)
    invoice = Invoice.objects.create(
        number=number,
        year=year,
        sequence=sequence,
        booking=booking,
        issued_at=issued_at,
        language=language,
        # The snapshot's: a ride across the border may carry VAT on its Austrian share only.
        net_cents=to_cents(Decimal(content["net"])),
        vat_cents=to_cents(Decimal(content["vat"])),
        gross_cents=to_cents(Decimal(content["gross"])),
        currency=content["currency"],
        content=content,
    )
    mails.copy_to_company(invoice)
    return invoice


def issue_supplementary(booking: Booking, charge: Charge) -> Invoice | None:
    """The supplementary invoice of a charge paid (call in the transaction that records it paid, booking
    row-locked): numbered in the invoices' series. None for a booking on a company account (its rides go on
    the month's collective invoice) or one whose ride was never invoiced (paid before invoices existed), and
    while it must wait (`waits`); a replay finds the one it has."""
    if not transaction.get_connection().in_atomic_block:
        raise transaction.TransactionManagementError("an invoice is issued in the payment's transaction")
    if booking.payment_method == PaymentMethod.ACCOUNT:
        return None
    existing = Invoice.objects.filter(surcharge_id=charge.id).first()
    if existing is not None:
        return existing
    if waits(booking):
        hold(booking)
        logger.debug("%s: its supplementary invoice waits for the seller's legal details", booking.reference)
        return None
    ride = documents.for_booking(booking)
    if ride is None:
        logger.warning(
            "%s has no invoice (paid before invoices): no supplementary invoice", booking.reference
        )
        return None
    issued_at = timezone.now()
    year = timezone.localtime(issued_at).year
    sequence = _next_number(year)
    number = NUMBER_FORMAT.format(year=year, sequence=sequence)
    invoiced = documents.part_of(ride, booking)
    rate = Decimal(invoiced["vat_rate"])
    content = snapshot(booking, number=number, issued_at=issued_at, language=ride.language)
    # taxed as the ride was: a ride across the border under "austria_only" splits its supplement too
    content["cross_border"], net_cents, vat_cents = cross_border.portion(
        invoiced.get("cross_border"), charge.amount_cents, rate
    )
    line = PricedLine(charge.kind, charge.code, from_cents(charge.amount_cents), rate)
    with translation.override(ride.language):
        label = str(charge.label)
        if charge.price_change:
            label = with_reason_by_hand(label, booking, charge.reason_by_hand)
        content["supplements"] = {"number": ride.number, "issued_at": ride.content["issued_at"]}
    content.update(
        kind=Invoice.Kind.SUPPLEMENTARY.value,
        lines=[printed_lines.printed(printed_lines.worded(line, label))],
        net=str(from_cents(net_cents)),
        vat=str(from_cents(vat_cents)),
        vat_rate=str(rate),
        gross=str(line.amount),
        currency=charge.currency,
        paid_at=(charge.paid_at or issued_at).isoformat(),
    )
    invoice = Invoice.objects.create(
        kind=Invoice.Kind.SUPPLEMENTARY,
        number=number,
        year=year,
        sequence=sequence,
        booking=booking,
        surcharge_id=charge.id,
        issued_at=issued_at,
        language=ride.language,
        net_cents=net_cents,
        vat_cents=vat_cents,
        gross_cents=charge.amount_cents,
        currency=charge.currency,
        content=content,
    )
    mails.copy_to_company(invoice)
    return invoice


def reason_by_hand(booking: Booking) -> dict:
    """What a price difference or its refund records of the price staff set by hand it is for ("" for the
    tariff's price): its supplementary invoice or credit note prints it, also when issued later
    (payments/waiting_documents.py)."""
    by_hand = price_by_hand_of(booking.quote)
    return {PRICE_BY_HAND_REASON: by_hand.reason if by_hand else ""}


def with_reason_by_hand(label: str, booking: Booking, reason: str | None = None) -> str:
    """A price difference's line, with the reason staff gave when they set the price by hand: `reason`, as
    recorded with the difference ("" for none), else the booking's price's own."""
    if reason is None:
        by_hand = price_by_hand_of(booking.quote)
        reason = by_hand.reason if by_hand else ""
    if not reason:
        return label
    return str(_("{line} (price set by hand: {reason})")).format(line=label, reason=reason)


def _next_number(year: int) -> int:
    """The year's next invoice number (ride, supplementary and collective invoices share the series)."""
    return numbering.next_number(InvoiceYear, year)


next_number = _next_number  # the collective invoices (invoicing/collective_invoices.py) share the series


def snapshot(booking: Booking, *, number: str, issued_at, language: str) -> dict:
    """Everything the invoice of one ride prints, fixed at issue: texts worded in the invoice's language now
    (a tariff or a profile changed later does not change an issued invoice), amounts as exact text, moments
    in ISO."""
    return {
        **_heading(booking, number=number, issued_at=issued_at, language=language),
        **ride_part(booking, language),
    }


def _content(rides: tuple[Booking, ...], *, number: str, issued_at, language: str) -> dict:
    """The ride invoice's snapshot: one ride's, or a trip's with each ride's part ("rides") and the totals
    by VAT rate ("vat_rates", the part of a ride driven abroad at rate 0 under "austria_only")."""
    if len(rides) == 1:
        return snapshot(rides[0], number=number, issued_at=issued_at, language=language)
    way_out = rides[0]
    parts = [ride_part(ride, language) for ride in rides]
    rates: dict[Decimal, dict[str, Decimal]] = {}
    for part in parts:
        for rate, net, vat in _taxed(part):
            total = rates.setdefault(rate, {"net": Decimal("0.00"), "vat": Decimal("0.00")})
            total["net"] += net
            total["vat"] += vat
    vat_rates = [
        {"rate": str(rate), "net": str(t["net"]), "vat": str(t["vat"]), "gross": str(t["net"] + t["vat"])}
        for rate, t in sorted(rates.items(), reverse=True)
    ]
    return {
        **_heading(way_out, number=number, issued_at=issued_at, language=language),
        "reference": way_out.reference,
        "rides": parts,
        "vat_rates": vat_rates,
        "net": str(sum((Decimal(part["net"]) for part in parts), Decimal("0.00"))),
        "vat": str(sum((Decimal(part["vat"]) for part in parts), Decimal("0.00"))),
        "gross": str(sum((Decimal(part["gross"]) for part in parts), Decimal("0.00"))),
        "currency": way_out.quote.currency,
    }


def _taxed(part: dict) -> list[tuple[Decimal, Decimal, Decimal]]:
    """A ride's part by VAT rate: (rate, net, VAT); under "austria_only" its share abroad at rate 0."""
    border = part.get("cross_border") or {}
    rate = Decimal(part["vat_rate"])
    if border.get("vat_setting") != cross_border.AUSTRIA_ONLY:
        return [(rate, Decimal(part["net"]), Decimal(part["vat"]))]
    abroad = Decimal(border["abroad"])
    return [
        (rate, Decimal(border["austria_net"]), Decimal(part["vat"])),
        (Decimal("0"), abroad, Decimal("0.00")),
    ]


def _heading(booking: Booking, *, number: str, issued_at, language: str) -> dict:
    """The invoice's number, date, parties and payment day: the booking's (a trip's way out's)."""
    with translation.override(language):
        seller = seller_details(OperatorProfile.objects.filter(id=PROFILE_ID).first())
    return {
        "number": number,
        "issued_at": issued_at.isoformat(),
        "language": language,
        "seller": seller,
        "buyer": buyer_details(booking),
        "paid_at": booking.paid_at.isoformat() if booking.paid_at else issued_at.isoformat(),
    }


def ride_part(booking: Booking, language: str) -> dict:
    """What an invoice prints of one ride: its service, route, day, priced lines and their taxes."""
    quote = booking.quote
    with translation.override(language):
        lines = [
            printed_lines.printed(line) for line in presentation.price_lines(booking, stop_addresses=False)
        ]
        service = presentation.service(booking)
        vehicle = presentation.vehicle_name(booking.vehicle_class)
        destination = booking.destination_shown
        stops = presentation.stops_shown(booking)
    border = cross_border.section(booking, quote)
    net, vat = cross_border.net_and_vat(border, quote)
    return {
        "reference": booking.reference,
        "service": service,
        "vehicle": vehicle,
        "origin": booking.origin,
        "destination": destination,
        **({"stops": stops} if stops else {}),  # on the way, worded; a ride without has the content it had
        "pickup_at": booking.pickup_at.isoformat() if booking.pickup_at else None,
        "lines": lines,
        "net": str(net),
        "vat": str(vat),
        "vat_rate": str(quote.vat_rate),
        "gross": str(quote.price),
        "currency": quote.currency,
        "cross_border": border,  # the share of the route in Austria; None: all in Austria
    }


def buyer_details(booking: Booking) -> dict[str, str]:
    """The customer as the invoice names them (UStG §11): as they booked, with the billing address and UID
    they gave; a ride on account names its company, its address and UID unless the booking gave its own."""
    buyer = {"name": booking.name, "email": booking.email, "phone": booking.phone}
    address, vat_id = booking.billing_address.strip(), booking.billing_vat_id.strip()
    company = booking.company_account
    if company is not None:
        buyer["company"] = company.name
        if not address:  # the company's own, also as the e-invoice reads it
            buyer.update(street_address=company.street_address, postcode=company.postcode, city=company.city)
        address = address or "\n".join(
            part for part in (company.street_address, f"{company.postcode} {company.city}".strip()) if part
        )
        vat_id = vat_id or company.vat_id
        buyer["country_code"] = company.country  # for the e-invoice: the address above is free text
    if address:
        buyer["address"] = address
    if vat_id:
        buyer["vat_id"] = vat_id
    return buyer


def seller_details(profile: OperatorProfile | None) -> dict[str, str]:
    if profile is None:
        return {}
    return {
        "name": profile.legal_name or profile.name,
        "street_address": profile.street_address,
        "place": " ".join(part for part in (profile.postcode, profile.city) if part),
        "country": str(dict(COUNTRIES).get(profile.country, profile.country)),
        "country_code": profile.country,
        "vat_id": profile.vat_id,
        "register_number": profile.company_register_number,
        "register_court": profile.company_register_court,
        "phone": profile.phone,
        "email": profile.email,
        "website": profile.website,
    }
