"""The accountant's export: a period's invoices, credit notes, payments and refunds as bookings (Buchungen) in
BMD NTCS's import layout for bookings ("BuErf Import – Import von Buchungen"; docs/operations/
accounting-export.md names the reference and why BMD). Pure functions over the database, no HTTP: the admin
page and `export_accounting` both call `entries()` and `write_csv()`.

One row per document or movement, from the operator's side of the books:
- an invoice: the debtor (Soll) against the revenue account of its VAT rate (Haben), gross positive and its
  VAT negative (BMD's sign for an outgoing invoice); a credit note is the reverse (gross negative, VAT
  positive), on the accounts of the invoice it corrects;
- a payment received: the account the money arrived on (the payment provider's clearing account, cash, the
  bank) against the debtor, without VAT; a refund that succeeded is the same, negative.

When, in Vienna days (both ends included): an invoice or credit note on the day it was issued; a booking's own
payment on the day of `paid_at` (what the ledger received for its own price, as accounting/revenue.py counts
it), a price difference on the day its payment was received, a refund on the day it succeeded (`updated_at`:
a succeeded refund is never saved again), a payment on account on the day the bank received it. Rides on
account move no money themselves: their company's transfers (payments on account, AccountPayment) do."""

import csv
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from django.db.models import IntegerField, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from booking.models import Booking, PaymentMethod
from invoicing import documents
from invoicing.cross_border import AUSTRIA_ONLY
from invoicing.models import CreditNote, Invoice
from payments import ledger
from payments.models import AccountPayment, Payment, Refund, RefundStatus, Surcharge
from pricing.lines import LineKind
from pricing.money import to_cents

# BMD's import file (the reference's field names, in its order; docs/operations/accounting-export.md).
FIELDS = (
    "satzart",
    "konto",
    "gkonto",
    "belegnr",
    "belegdatum",
    "buchsymbol",
    "buchcode",
    "prozent",
    "steuercode",
    "betrag",
    "steuer",
    "text",
)
DELIMITER = ";"
ENCODING = "cp1252"  # Windows "ANSI", BMD's usual character set for ASCII imports
DATE_FORMAT = "%d.%m.%Y"
FIBU_BOOKING = "0"  # satzart 0: a financial accounting booking (1 would split it among cost centres)
DEBIT = "1"  # buchcode 1: Soll on `konto` (2 would be Haben)
DOMESTIC = "1"  # steuercode 1: Austrian VAT (Inland)
MOST_DAYS = 366
# A priced line's kind in the file's words (the file is German whatever the document's language).
KIND_TEXTS = {
    LineKind.FARE: "Fahrpreis",
    LineKind.EXTRA: "Zuschlag",
    LineKind.WAITING: "Wartezeit",
    LineKind.NO_SHOW_FEE: "No-Show-Gebühr",
    LineKind.ADJUSTMENT: "Preisänderung",
    LineKind.DISCOUNT: "Rabatt",
}


class Kind:
    INVOICE = "invoice"
    CREDIT_NOTE = "credit_note"
    PAYMENT = "payment"
    REFUND = "refund"


@dataclass(frozen=True)
class Accounts:
    """The chart of accounts the export books to (settings ACCOUNTING_*, docs/operations/configuration.md)."""

    customers: str
    companies: str
    revenue: dict[str, str]  # VAT percent ("10") → revenue account
    provider: str
    bank: str
    cash: str
    symbols: dict[str, str]  # invoice / payment / cash → BMD booking symbol (buchsymbol)

    @classmethod
    def from_settings(cls) -> "Accounts":
        return cls(
            customers=settings.ACCOUNTING_CUSTOMERS_ACCOUNT,
            companies=settings.ACCOUNTING_COMPANIES_ACCOUNT,
            revenue=dict(settings.ACCOUNTING_REVENUE_ACCOUNTS),
            provider=settings.ACCOUNTING_PROVIDER_ACCOUNT,
            bank=settings.ACCOUNTING_BANK_ACCOUNT,
            cash=settings.ACCOUNTING_CASH_ACCOUNT,
            symbols=dict(settings.ACCOUNTING_SYMBOLS),
        )

    def revenue_for(self, percent: str) -> str:
        try:
            return self.revenue[percent]
        except KeyError:
            raise UnknownVatRate(percent) from None


class UnknownVatRate(Exception):
    """A VAT rate without a revenue account in ACCOUNTING_REVENUE_ACCOUNTS: the file would be wrong."""

    code = "unknown_vat_rate"

    def __init__(self, percent: str):
        super().__init__(f"no revenue account for {percent} % VAT (ACCOUNTING_REVENUE_ACCOUNTS)")
        self.percent = percent


@dataclass(frozen=True)
class Entry:
    """One booking line of the file. Amounts in cents, signed as BMD reads them."""

    kind: str
    account: str  # konto (debited: buchcode 1)
    contra: str  # gkonto
    number: str  # belegnr
    day: date  # belegdatum
    symbol: str
    percent: str  # "" without VAT
    gross_cents: int
    vat_cents: int
    text: str

    def as_row(self) -> list[str]:
        return [
            FIBU_BOOKING,
            self.account,
            self.contra,
            self.number,
            self.day.strftime(DATE_FORMAT),
            self.symbol,
            DEBIT,
            self.percent,
            DOMESTIC if self.percent else "",
            amount(self.gross_cents),
            amount(self.vat_cents) if self.percent else "",
            self.text,
        ]


def amount(cents: int) -> str:
    """BMD's number: a decimal comma, no grouping (-1234,50)."""
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100},{abs(cents) % 100:02d}"


def bounds(first: date, last: date) -> tuple[datetime, datetime]:
    """The moments from Vienna's midnight starting `first` to the one ending `last`."""
    if first > last:
        raise ValueError("the period's first day is after its last")
    zone = timezone.get_default_timezone()
    return (
        datetime.combine(first, time.min, tzinfo=zone),
        datetime.combine(last + timedelta(days=1), time.min, tzinfo=zone),
    )


def vienna_day(moment: datetime) -> date:
    return timezone.localtime(moment, timezone.get_default_timezone()).date()


def percent_of(document, invoice: Invoice | None = None) -> str:
    """The VAT rate printed on the document ("0.10" in its content → "10"); a document without VAT → ""."""
    if not document.vat_cents:
        return ""
    rate = (document.content or {}).get("vat_rate") or (
        (invoice.content or {}).get("vat_rate") if invoice else None
    )
    if rate is None:  # not printed: the rate its own amounts show
        rate = Decimal(document.vat_cents) / Decimal(document.net_cents)
    return percent_text(rate)


def percent_text(rate) -> str:
    percent = (Decimal(str(rate)) * 100).quantize(Decimal("0.01"), ROUND_HALF_UP).normalize()
    return f"{percent:f}".replace(".", ",")


def debtor(invoice: Invoice, accounts: Accounts) -> str:
    return accounts.companies if invoice.kind == Invoice.Kind.COLLECTIVE else accounts.customers


def entries(*, first: date, last: date, accounts: Accounts | None = None) -> list[Entry]:
    """The period's bookings: invoices, credit notes, then payments and refunds, each by day and number."""
    accounts = accounts or Accounts.from_settings()
    start, end = bounds(first, last)
    found: list[Entry] = []
    for invoice in Invoice.objects.filter(issued_at__gte=start, issued_at__lt=end).order_by(
        "issued_at", "pk"
    ):
        found.extend(
            document_entries(
                invoice, invoice, Kind.INVOICE, accounts, sign=1, text=f"Rechnung {invoice.number}"
            )
        )
    notes = CreditNote.objects.filter(issued_at__gte=start, issued_at__lt=end).select_related("invoice")
    for note in notes.order_by("issued_at", "pk"):
        text = f"Gutschrift {note.number} zu {note.invoice.number}"
        found.extend(document_entries(note, note.invoice, Kind.CREDIT_NOTE, accounts, sign=-1, text=text))
    found.extend(sorted(money_moved(start, end, accounts), key=lambda entry: (entry.day, entry.number)))
    return found


def document_entries(document, invoice: Invoice, kind: str, accounts: Accounts, *, sign: int, text: str):
    """An invoice (sign 1) or a credit note (sign -1) as booking lines: each part of `parts_of` on the
    revenue account of its rate (the part without VAT on that of rate "0"), split by the kinds of the
    document's priced lines (fare, waiting, no-show fee, …) where it keeps them."""
    common = {
        "kind": kind,
        "account": debtor(invoice, accounts),
        "number": document.number,
        "day": vienna_day(document.issued_at),
        "symbol": accounts.symbols["invoice"],
    }
    kinds = kinds_of(document)
    weights = [cents for _, cents in kinds]
    texts = [f"{text} {KIND_TEXTS[name]}" for name, _ in kinds] or [text]
    found: list[Entry] = []
    for percent, gross_cents, vat_cents in parts_of(document, invoice):
        grosses = shares(gross_cents, weights) if kinds else [gross_cents]
        vats = shares(vat_cents, weights) if kinds else [vat_cents]
        found.extend(
            Entry(
                **common,
                text=line_text,
                contra=accounts.revenue_for(percent or "0"),
                percent=percent,
                gross_cents=sign * gross,
                vat_cents=-sign * vat,
            )
            for line_text, gross, vat in zip(texts, grosses, vats, strict=True)
            if gross or vat or len(texts) == 1
        )
    return found


def kinds_of(document) -> list[tuple[LineKind, int]]:
    """The document's priced lines summed by kind, in their order: [(kind, gross cents)]. Empty where the
    lines do not say their kind (a collective invoice's rides, a document issued before its lines kept it)
    or do not add up to the document's gross; the document is then booked by its parts alone."""
    totals: dict[LineKind, Decimal] = {}
    for line in documents.printed_lines_of(document.content or {}):
        try:
            kind = LineKind(line.get("kind", ""))
        except ValueError:
            return []
        totals[kind] = totals.get(kind, Decimal(0)) + Decimal(line["amount"])
    kinds = [(kind, to_cents(total)) for kind, total in totals.items() if to_cents(total)]
    if document.gross_cents <= 0 or sum(cents for _, cents in kinds) != document.gross_cents:
        return []
    return kinds


def shares(total: int, weights: list[int]) -> list[int]:
    """`total` cents split in proportion to `weights` (a price set below the tariff's is a negative one; they
    sum above zero), in whole cents that add up to it: each share rounded down, the cents left over to the
    largest remainders (the first of equal ones)."""
    whole = sum(weights)
    exact = [total * weight for weight in weights]
    split = [part // whole for part in exact]
    left = total - sum(split)
    for index in sorted(range(len(weights)), key=lambda i: -(exact[i] % whole))[:left]:
        split[index] += 1
    return split


def parts_of(document, invoice: Invoice) -> list[tuple[str, int, int]]:
    """A document's amounts by VAT rate: (percent, gross cents, VAT cents). A collective invoice lists its
    rates; a ride taxed on its Austrian share only has that share at its rate and the part abroad without
    VAT ("" percent); anything else is one part at its rate."""
    content = document.content or {}
    if content.get("vat_rates"):
        return [
            (
                percent_text(part["rate"]) if Decimal(part["vat"]) else "",
                to_cents(Decimal(part["gross"])),
                to_cents(Decimal(part["vat"])),
            )
            for part in content["vat_rates"]
        ]
    border = content.get("cross_border") or {}
    abroad_cents = to_cents(Decimal(border["abroad"])) if border.get("vat_setting") == AUSTRIA_ONLY else 0
    parts = [(percent_of(document, invoice), document.gross_cents - abroad_cents, document.vat_cents)]
    return [*parts, ("", abroad_cents, 0)] if abroad_cents else parts


def money_account(method: str, booking_method: str, accounts: Accounts) -> str:
    """Where money of a booking arrived or left: the provider's clearing account for its payments, else the
    till for a cash booking and the bank for the rest (staff's transfers, an invoice paid)."""
    if method == Refund.Method.PROVIDER:
        return accounts.provider
    return accounts.cash if booking_method == PaymentMethod.CASH else accounts.bank


def payment_symbol(account: str, accounts: Accounts) -> str:
    return accounts.symbols["cash"] if account == accounts.cash else accounts.symbols["payment"]


def money_moved(start: datetime, end: datetime, accounts: Accounts) -> Iterator[Entry]:
    paid = (
        Booking.objects.filter(paid_at__gte=start, paid_at__lt=end)
        .exclude(payment_method=PaymentMethod.ACCOUNT)
        .annotate(own=Coalesce(Subquery(ledger.own_received(), output_field=IntegerField()), Value(0)))
        .values_list("reference", "paid_at", "payment_method", "own")
    )
    for reference, paid_at, method, own in paid:
        if own <= 0 or paid_at is None:  # None: never, the query asked for a time
            continue
        account = (
            accounts.provider
            if method == PaymentMethod.CHECKOUT
            else money_account(Refund.Method.MANUAL, method, accounts)
        )
        yield payment(account, reference, paid_at, own, f"Zahlung {reference}", accounts)

    # In the order they were paid: two of one booking on one day are sorted alike by `entries`, and a query
    # without an order returns rows as PostgreSQL happens to find them.
    surcharges = (
        Surcharge.objects.filter(
            payment__state=Payment.State.RECEIVED,
            payment__received_at__gte=start,
            payment__received_at__lt=end,
        )
        .order_by("payment__received_at", "pk")
        .values_list(
            "pk",
            "method",
            "booking__reference",
            "booking__payment_method",
            "payment__received_at",
            "amount_cents",
        )
    )
    for pk, method, reference, booking_method, paid_at, cents in surcharges:
        if paid_at is None:  # never: the query asked for a time
            continue
        account = money_account(method, booking_method, accounts)
        yield payment(
            account, reference, paid_at, cents, f"Zahlung Preisdifferenz {reference}/{pk}", accounts
        )

    refunds = (
        Refund.objects.filter(status=RefundStatus.SUCCEEDED, updated_at__gte=start, updated_at__lt=end)
        .order_by("updated_at", "pk")
        .values_list(
            "pk", "method", "booking__reference", "booking__payment_method", "updated_at", "amount_cents"
        )
    )
    for pk, method, reference, booking_method, moment, cents in refunds:
        account = money_account(method, booking_method, accounts)
        entry = payment(account, reference, moment, -cents, f"Erstattung {reference}/{pk}", accounts)
        yield replace(entry, kind=Kind.REFUND)

    transfers = (
        AccountPayment.objects.filter(
            payment__state=Payment.State.RECEIVED,
            payment__received_at__gte=start,
            payment__received_at__lt=end,
        )
        .order_by("payment__received_at", "pk")
        .values_list("pk", "invoice__number", "payment__received_at", "payment__amount_cents")
    )
    for pk, number, received_at, cents in transfers:
        if received_at is None:  # never: the query asked for a time
            continue
        day = vienna_day(received_at)
        yield Entry(
            kind=Kind.PAYMENT,
            account=accounts.bank,
            contra=accounts.companies,
            number=number,
            day=day,
            symbol=accounts.symbols["payment"],
            percent="",
            gross_cents=cents,
            vat_cents=0,
            text=f"Zahlung {number}/{pk}",
        )


def payment(account: str, number: str, moment: datetime, cents: int, text: str, accounts: Accounts) -> Entry:
    return Entry(
        kind=Kind.PAYMENT,
        account=account,
        contra=accounts.customers,
        number=number,
        day=vienna_day(moment),
        symbol=payment_symbol(account, accounts),
        percent="",
        gross_cents=cents,
        vat_cents=0,
        text=text,
    )


class _Line:
    """A file-like target for csv.writer that hands back the last line written."""

    value = ""

    def write(self, text: str) -> None:
        self.value = text


def lines(found: Iterable[Entry]) -> Iterator[bytes]:
    """The file, line by line, encoded (a character the encoding lacks becomes "?"): the header, then a row
    per entry, separated by semicolons, lines ended by CR LF."""
    target = _Line()
    writer = csv.writer(target, delimiter=DELIMITER, lineterminator="\r\n")
    writer.writerow(FIELDS)
    yield target.value.encode(ENCODING, errors="replace")
    for entry in found:
        writer.writerow(entry.as_row())
        yield target.value.encode(ENCODING, errors="replace")


def file_name(first: date, last: date) -> str:
    return f"bmd-buchungen-{first:%Y-%m-%d}-{last:%Y-%m-%d}.csv"


@dataclass(frozen=True)
class Summary:
    """What the admin page shows before the download: counts and sums per kind, VAT per rate."""

    counts: dict[str, int]
    sums: dict[str, int]  # cents, as signed in the file
    vat: dict[str, int]  # VAT percent → VAT owed (cents, positive: invoiced less credited)
    rows: int


def summary(found: list[Entry]) -> Summary:
    counts = {kind: 0 for kind in (Kind.INVOICE, Kind.CREDIT_NOTE, Kind.PAYMENT, Kind.REFUND)}
    sums = dict.fromkeys(counts, 0)
    vat: dict[str, int] = {}
    for entry in found:
        counts[entry.kind] += 1
        sums[entry.kind] += entry.gross_cents
        if entry.percent:
            vat[entry.percent] = vat.get(entry.percent, 0) - entry.vat_cents
    return Summary(counts=counts, sums=sums, vat=dict(sorted(vat.items())), rows=len(found))
