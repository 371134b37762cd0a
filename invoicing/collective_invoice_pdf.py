"""A company's collective invoice as PDF, drawn from its snapshot alone in the account's language: the
ride invoice's document (invoicing/invoice_pdf.py: the seller's head, fonts, the amounts column) with the
company as customer, the month, one row per ride, the VAT per rate, the payment terms and the bank details."""

from datetime import date, datetime
from decimal import Decimal

from django.utils import translation
from django.utils.translation import gettext as _
from fpdf.enums import XPos, YPos

from invoicing.invoice_pdf import LINE, _Document
from invoicing.models import Invoice
from sitekit.l10n import day, money

__all__ = ["amount", "due", "period", "render"]

# The ride table's columns (mm; the booker takes what is left of the 170 mm between the margins).
COLUMNS = {"date": 22, "reference": 30, "vehicle": 34, "amount": 26}


def render(invoice: Invoice, *, archival: bool = False) -> bytes:
    """The collective invoice's PDF; `archival`: as PDF/A-3 with its font embedded."""
    content = invoice.content
    with translation.override(content["language"]):
        pdf = _CollectiveDocument(content, archival=archival)
        pdf.draw()
        return bytes(pdf.output())


def period(content: dict) -> str:
    """The month, e.g. "01.10.2026 – 31.10.2026" in the active language's date format."""
    start, end = date.fromisoformat(content["period_start"]), date.fromisoformat(content["period_end"])
    return f"{_short_day(start)} – {_short_day(end)}"


def amount(value: str, currency: str) -> str:
    return money(Decimal(value), currency)


def due(content: dict) -> str:
    return _short_day(date.fromisoformat(content["due_on"]))


def _short_day(value: date) -> str:
    return value.strftime("%d.%m.%Y")


class _CollectiveDocument(_Document):
    def __init__(self, content: dict, *, archival: bool = False):
        super().__init__(content, archival=archival)
        self.set_title(self.printable(f"{_('Collective invoice')} {content['number']}"))

    def _heading(self) -> None:
        content = self.content
        self.write_line(_("Collective invoice {number}").format(number=content["number"]), bold=True, size=16)
        self.gap(2)
        self.write_line(
            _("Invoice date: {date}").format(date=day(datetime.fromisoformat(content["issued_at"])))
        )
        self.write_line(_("Period of service: {period}").format(period=period(content)))
        self.gap()

    def _buyer(self) -> None:
        buyer = self.content["buyer"]
        self.write_line(_("Customer"), bold=True)
        for part in (
            buyer.get("name"),
            buyer.get("street_address"),
            buyer.get("place"),
            buyer.get("country"),
        ):
            if part:
                self.write_line(part)
        if buyer.get("vat_id"):
            self.write_line(_("VAT id (UID): {vat_id}").format(vat_id=buyer["vat_id"]))
        self.gap()

    def _row(self, cells: list[tuple[str, float]], *, bold: bool = False, size: int = 9) -> None:
        self.set_font(self.font_name, "B" if bold else "", size)
        for index, (text, width) in enumerate(cells):
            last = index == len(cells) - 1
            self.cell(
                width,
                LINE,
                self.printable(text),
                align="R" if last else "L",
                new_x=XPos.LMARGIN if last else XPos.RIGHT,
                new_y=YPos.NEXT if last else YPos.TOP,
            )

    def _rides(self) -> None:
        """One row per ride (date, reference, booker, class, amount), the route beneath it in full, then its
        items where there is more than the price (owed waiting time) or a cancellation fee."""
        content = self.content
        booker_width = self.epw - sum(COLUMNS.values())
        indent = COLUMNS["date"] + COLUMNS["reference"]
        self._row(
            [
                (_("Date"), COLUMNS["date"]),
                (_("Reference"), COLUMNS["reference"]),
                (f"{_('Booked by')} / {_('Route')}", booker_width),
                (_("Class"), COLUMNS["vehicle"]),
                (_("Amount"), COLUMNS["amount"]),
            ],
            bold=True,
        )
        self.line(self.l_margin, self.get_y(), self.l_margin + self.epw, self.get_y())
        for line in content["lines"]:
            self._row(
                [
                    (_short_day(datetime.fromisoformat(line["date"]).date()), COLUMNS["date"]),
                    (line["reference"], COLUMNS["reference"]),
                    (self._fit(line["booker"], booker_width), booker_width),
                    (self._fit(line["vehicle"], COLUMNS["vehicle"]), COLUMNS["vehicle"]),
                    (amount(line["amount"], content["currency"]), COLUMNS["amount"]),
                ]
            )
            self.set_x(self.l_margin + indent)
            self.set_font(self.font_name, "", 8)
            self.multi_cell(
                self.epw - indent - COLUMNS["amount"],
                LINE - 1,
                self.printable(f"{line['origin']} – {line['destination']}"),
                new_x=XPos.LMARGIN,
                new_y=YPos.NEXT,
            )
            if len(line["items"]) > 1 or line.get("cancelled"):
                for item in line["items"]:
                    self._row(
                        [
                            ("", indent),
                            (item["label"], self.epw - indent - COLUMNS["amount"]),
                            (amount(item["amount"], content["currency"]), COLUMNS["amount"]),
                        ],
                        size=8,
                    )
            self.gap(1)
        self.line(self.l_margin, self.get_y(), self.l_margin + self.epw, self.get_y())
        self.gap(2)

    def _fit(self, text: str, width: float) -> str:
        """The text shortened with "…" to its column."""
        text = self.printable(text)
        if self.get_string_width(text) <= width - 2:
            return text
        while text and self.get_string_width(text + "…") > width - 2:
            text = text[:-1]
        return text + "…"

    def _totals(self) -> None:
        self._rate_totals()

    def _closing(self) -> None:
        content = self.content
        self.write_line(
            _("Payment terms: {days} days net. Please transfer {amount} by {date}.").format(
                days=content["payment_terms_days"],
                amount=amount(content["gross"], content["currency"]),
                date=due(content),
            )
        )
        bank = content.get("bank") or {}
        if bank.get("iban"):
            self.write_line(_("IBAN: {iban}").format(iban=bank["iban"]))
        if bank.get("bic"):
            self.write_line(_("BIC: {bic}").format(bic=bank["bic"]))
        self.write_line(_("Reference: {number}").format(number=content["number"]))
