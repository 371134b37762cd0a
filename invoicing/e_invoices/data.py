"""An issued document as EN 16931 reads it, from the document's snapshot alone (the numbers and words its
PDF prints): the parties, the lines with their net amounts, the VAT per category, the totals and how it is
paid. The three formats (cii.py, ubl.py, ebinterface.py) write this one reading.

The prices are gross. A line's net is its gross less its rate's VAT, rounded to the cent; the last cents
of a category go to its largest line, so its lines add up to the net and VAT the PDF prints. A ride partly
abroad under "austria_only" VAT has each line split into its Austrian share (VAT) and its share abroad (not
taxable in Austria: category E with the PDF's reason)."""

import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from decimal import Decimal

from django.utils import timezone, translation
from django.utils.translation import gettext as _

from corporate.models import CompanyAccount
from invoicing.cross_border import AUSTRIA_ONLY
from invoicing.models import CreditNote, Invoice
from operator_profile.models import COUNTRIES
from pricing.money import to_cent

ZERO = Decimal("0.00")
STANDARD, EXEMPT = "S", "E"  # UNTDID 5305 VAT categories
# UNTDID 4461 payment means: how the booking paid (and a refund went back), a collective invoice's transfer
CREDIT_TRANSFER, UNDEFINED = "58", "1"
PAID_BY = {"checkout": "68", "cash": "10"}  # an online payment service; in cash


@dataclass(frozen=True)
class Party:
    name: str
    street: str
    postcode: str
    city: str
    country: str  # ISO 3166-1 alpha-2
    vat_id: str = ""
    email: str = ""
    phone: str = ""
    register_number: str = ""  # the seller's company register number (Firmenbuchnummer)
    supplier_number: str = ""  # the seller's number at the buyer (ebInterface's InvoiceRecipientsBillerID)


@dataclass(frozen=True)
class Category:
    code: str  # STANDARD or EXEMPT
    rate: Decimal  # 0.10 for 10 %
    net: Decimal
    vat: Decimal
    reason: str = ""  # why it is exempt

    @property
    def percent(self) -> Decimal:
        return (self.rate * 100).normalize() + 0  # 10, 5.5


@dataclass(frozen=True)
class Line:
    name: str
    note: str
    gross: Decimal
    net: Decimal
    category: Category


@dataclass(frozen=True)
class EInvoice:
    number: str
    credit_note: bool
    issued_on: date
    language: str  # "de" or "en"
    currency: str
    seller: Party
    buyer: Party
    buyer_reference: str  # BT-10: the company's Leitweg-ID or order reference, else the booking's
    lines: list[Line]
    categories: list[Category]
    net: Decimal
    vat: Decimal
    gross: Decimal
    paid: Decimal  # already paid (a ride paid online, a credit note's refund done)
    payment_means: str  # UNTDID 4461
    service_on: date | None = None  # a ride's day
    period: tuple[date, date] | None = None  # a collective invoice's month
    due_on: date | None = None
    terms: str = ""
    iban: str = ""
    bic: str = ""
    preceding: tuple[str, date] | None = None  # the invoice a credit note or a supplement refers to
    notes: list[str] = field(default_factory=list)

    @property
    def payable(self) -> Decimal:
        return self.gross - self.paid


def reading(document: Invoice | CreditNote, account: CompanyAccount) -> EInvoice:
    """The document as EN 16931 reads it, in its own language, for the company `account` (what a snapshot
    issued before e-invoices lacks of the buyer comes from it: its country, structured address, billing
    address, reference)."""
    content = document.content
    with translation.override(content["language"]):
        if isinstance(document, Invoice) and document.kind == Invoice.Kind.COLLECTIVE:
            return _collective(content, account)
        paid_by = document.booking.payment_method if document.booking is not None else ""
        return _ride_document(content, isinstance(document, CreditNote), account, paid_by)


def complete(content: dict) -> bool:
    """Whether the snapshot names its seller as an e-invoice must: documents issued before the operator's
    legal details were required may lack them, and get none."""
    seller = content.get("seller") or {}
    return bool(seller.get("name") and seller.get("vat_id"))


def _ride_document(content: dict, credit_note: bool, account: CompanyAccount, paid_by: str) -> EInvoice:
    """A ride's invoice (a return trip's: each ride's lines, its VAT categories summed), a supplementary
    invoice or a credit note: paid (or refunded) when issued, the way the booking paid."""
    parts = content.get("rides") or [content]
    lines: list[Line] = []
    categories: dict[tuple[str, Decimal, str], Category] = {}
    for part in parts:
        part_lines, part_categories = _ride_lines(part)
        lines += part_lines
        for category in part_categories:  # the rides' categories summed
            key = (category.code, category.rate, category.reason)
            summed = categories.get(key)
            categories[key] = (
                replace(summed, net=summed.net + category.net, vat=summed.vat + category.vat)
                if summed is not None
                else category
            )
    lines = [
        replace(line, category=categories[(line.category.code, line.category.rate, line.category.reason)])
        for line in lines
    ]
    pickups = [_day(part["pickup_at"]) for part in parts if part.get("pickup_at")]
    preceding = content.get("corrects") or content.get("supplements")
    notes = [_("Booking reference: {reference}").format(reference=part["reference"]) for part in parts]
    if credit_note:
        notes.append(_("Reason: {reason}").format(reason=content["reason_shown"]))
    gross = Decimal(content["gross"])
    return EInvoice(
        number=content["number"],
        credit_note=credit_note,
        issued_on=_day(content["issued_at"]),
        language=content["language"],
        currency=content["currency"],
        seller=_seller(content["seller"], account),
        buyer=_ride_buyer(content["buyer"], account),
        buyer_reference=account.buyer_reference or content["reference"],
        lines=lines,
        categories=list(categories.values()),
        net=Decimal(content["net"]),
        vat=Decimal(content["vat"]),
        gross=gross,
        paid=gross,
        payment_means=PAID_BY.get(paid_by, UNDEFINED),
        service_on=pickups[0] if len(pickups) == 1 else None,
        period=(min(pickups), max(pickups)) if len(pickups) > 1 else None,  # a return trip's days
        preceding=(preceding["number"], _day(preceding["issued_at"])) if preceding else None,
        notes=notes,
    )


def _ride_lines(part: dict) -> tuple[list[Line], list[Category]]:
    """One ride's printed lines with their VAT categories; under "austria_only" each line split into its
    Austrian share and its share abroad."""
    rate = Decimal(part["vat_rate"])
    border = part.get("cross_border") or {}
    printed = [(line["label"], Decimal(line["amount"])) for line in part["lines"]]
    route = _("From {origin} to {destination}").format(origin=part["origin"], destination=part["destination"])
    note = f"{part['service']}, {part['vehicle']}. {route}"
    if border.get("vat_setting") != AUSTRIA_ONLY:
        category = Category(STANDARD, rate, Decimal(part["net"]), Decimal(part["vat"]))
        return _lines([(label, amount, category, note) for label, amount in printed]), [category]
    austria = Category(STANDARD, rate, Decimal(border["austria_net"]), Decimal(part["vat"]))
    abroad = Category(
        EXEMPT, ZERO, Decimal(border["abroad"]), ZERO, _("not taxable in Austria (UStG §3a (10))")
    )
    share = Decimal(border["austria_gross"]) / Decimal(part["gross"]) if Decimal(part["gross"]) else 0
    split = []
    for label, amount in printed:
        home = to_cent(amount * share)
        split += [
            (f"{label} ({_('Austria')})", home, austria, note),
            (f"{label} ({_('abroad')})", amount - home, abroad, note),
        ]
    return _lines(split), [austria, abroad]


def _collective(content: dict, account: CompanyAccount) -> EInvoice:
    """A company's month: one line per ride, paid by bank transfer by its due day."""
    categories = {
        Decimal(rate["rate"]): Category(
            STANDARD, Decimal(rate["rate"]), Decimal(rate["net"]), Decimal(rate["vat"])
        )
        for rate in content["vat_rates"]
    }
    rides = []
    for line in content["lines"]:
        what = _("Cancellation fee") if line["cancelled"] else line["vehicle"]
        name = f"{line['reference']}: {what}"
        when = datetime.fromisoformat(line["date"]).strftime("%d.%m.%Y %H:%M")
        note = f"{when}, {line['booker']}, {line['origin']} – {line['destination']}"
        rides.append((name, Decimal(line["amount"]), categories[Decimal(line["vat_rate"])], note))
    lines = _lines(rides)
    buyer = content["buyer"]
    postcode, city = _place(buyer.get("place", ""))
    days = content["payment_terms_days"]
    return EInvoice(
        number=content["number"],
        credit_note=False,
        issued_on=_day(content["issued_at"]),
        language=content["language"],
        currency=content["currency"],
        seller=_seller(content["seller"], account),
        buyer=Party(
            name=buyer["name"],
            street=buyer.get("street_address", ""),
            postcode=buyer.get("postcode") or postcode or account.postcode,
            city=buyer.get("city") or city or account.city,
            country=buyer.get("country_code") or account.country,
            vat_id=_vat_id(buyer.get("vat_id", "")),
            email=buyer.get("email") or account.billing_email,
        ),
        buyer_reference=account.buyer_reference or content["number"],
        lines=lines,
        categories=list(categories.values()),
        net=Decimal(content["net"]),
        vat=Decimal(content["vat"]),
        gross=Decimal(content["gross"]),
        paid=ZERO,
        payment_means=CREDIT_TRANSFER if content["bank"].get("iban") else UNDEFINED,
        period=(date.fromisoformat(content["period_start"]), date.fromisoformat(content["period_end"])),
        due_on=date.fromisoformat(content["due_on"]),
        terms=_("Payable within {days} days, by {due}.").format(
            days=days, due=date.fromisoformat(content["due_on"]).strftime("%d.%m.%Y")
        ),
        iban=content["bank"].get("iban", "").replace(" ", ""),
        bic=content["bank"].get("bic", "").replace(" ", ""),
    )


def _lines(printed: list[tuple[str, Decimal, Category, str]]) -> list[Line]:
    """Each line (name, gross, category, note) with its net from its gross; a category's remaining cents
    on its largest line."""
    nets = [to_cent(amount / (1 + category.rate)) for _name, amount, category, _note in printed]
    for category in {id(line[2]): line[2] for line in printed}.values():
        mine = [index for index, line in enumerate(printed) if line[2] is category]
        rest = category.net - sum((nets[index] for index in mine), ZERO)
        largest = max(mine, key=lambda index: abs(printed[index][1]))
        nets[largest] += rest
    return [
        Line(name, note, amount, net, category)
        for (name, amount, category, note), net in zip(printed, nets, strict=True)
    ]


def _seller(seller: dict, account: CompanyAccount) -> Party:
    postcode, city = _place(seller.get("place", ""))
    return Party(
        name=seller.get("name", ""),
        street=seller.get("street_address", ""),
        postcode=postcode,
        city=city,
        country=seller.get("country_code") or _country(seller.get("country", "")),
        vat_id=_vat_id(seller.get("vat_id", "")),
        email=seller.get("email", ""),
        phone=seller.get("phone", ""),
        register_number=seller.get("register_number", ""),
        supplier_number=account.supplier_number,
    )


def _ride_buyer(buyer: dict, account: CompanyAccount) -> Party:
    """A ride's company as the invoice names it: the billing address the booking gave (free text: read
    line by line for the postcode and town, a last line naming a country left out), else the company's own;
    its country and billing address (the buyer's electronic address) are the account's."""
    typed = _typed_address(buyer.get("address", ""))
    if buyer.get("postcode") or typed is None:  # the company's address, as issued or as it is now
        street = buyer.get("street_address", account.street_address)
        postcode, city = buyer.get("postcode", account.postcode), buyer.get("city", account.city)
    else:
        street, postcode, city = typed
    return Party(
        name=buyer.get("company") or account.name,
        street=street,
        postcode=postcode,
        city=city,
        country=buyer.get("country_code") or account.country,
        vat_id=_vat_id(buyer.get("vat_id", "")),
        email=account.billing_email,
        phone=buyer.get("phone", ""),
    )


def _typed_address(text: str) -> tuple[str, str, str] | None:
    """(street, postcode, town) of an address typed as free text; None without a line "postcode town"."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and lines[-1].casefold() in _country_names():
        lines.pop()
    for index in range(len(lines) - 1, -1, -1):
        postcode, city = _place(lines[index])
        if postcode and city:
            return ", ".join(lines[:index]), postcode, city
    return None


def _country_names() -> set[str]:
    names = set()
    for language in ("de", "en"):
        with translation.override(language):
            names |= {str(label).casefold() for _code, label in COUNTRIES}
    return names


def _vat_id(value: str) -> str:
    """A VAT id as EN 16931 wants it (BR-CO-9: its country's prefix): spaces and dots gone, upper case; one
    without a prefix is left out rather than sent wrong."""
    cleaned = re.sub(r"[\s.\-]", "", value).upper()
    return cleaned if re.fullmatch(r"[A-Z]{2}[0-9A-Z+*]{2,13}", cleaned) else ""


def _place(place: str) -> tuple[str, str]:
    """ "1010 Wien" → ("1010", "Wien"); a place without a postcode is all town."""
    first, _space, rest = place.strip().partition(" ")
    if any(character.isdigit() for character in first):
        return first, rest.strip()
    return "", place.strip()


def _country(name: str) -> str:
    """A country as the snapshot names it (in its language) → its code; Austria when unknown."""
    return next((code for code, label in COUNTRIES if str(label) == name), "AT")


def _day(moment: str) -> date:
    return timezone.localtime(datetime.fromisoformat(moment)).date()
