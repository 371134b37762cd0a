"""An invoice or a credit note as PDF (fpdf2: pure Python, no system libraries; docs/operations/invoices.md
says why), drawn from the document's snapshot alone, in its language: the same document always gives the
same bytes.

The PDF's built-in Helvetica writes Windows-1252 (German, English, most of Western Europe, €); a letter
outside it (a Czech č, a Polish ł) is printed without its accent, or as "?" when it has no base letter. The
archival copy (PDF/A-3, the Factur-X e-invoice's body) embeds its font instead, which writes every European
Latin letter (invoicing/archival_font.py)."""

import unicodedata
from datetime import datetime
from decimal import Decimal

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from fpdf import FPDF
from fpdf.enums import XPos, YPos

from booking.presentation import number
from invoicing import archival_font
from invoicing.cross_border import AUSTRIA_ONLY
from invoicing.models import CreditNote, Invoice
from pricing.money import to_cent
from sitekit.l10n import day, day_time, money

ENCODING = "windows-1252"
FONT = "helvetica"
MARGIN = 20  # mm
LINE = 5.5  # mm: one line of 10 pt text
AMOUNT_WIDTH = 40  # mm: the right-hand column of amounts


def render(document: Invoice | CreditNote, *, archival: bool = False) -> bytes:
    """The document's PDF; `archival`: as PDF/A-3 with its font embedded."""
    content = document.content
    with translation.override(content["language"]):
        kind = (
            _CreditNote
            if isinstance(document, CreditNote)
            else _TripInvoice
            if "rides" in content
            else _Document
        )
        pdf = kind(content, archival=archival)
        pdf.draw()
        return bytes(pdf.output())


class _Document(FPDF):
    """An invoice; a credit note (below) is one with other words, another heading and another closing."""

    document_name = gettext_lazy("Invoice")
    lines_heading = gettext_lazy("Description")
    total_label = gettext_lazy("Total amount")

    def __init__(self, content: dict, *, archival: bool = False):
        super().__init__(format="A4", unit="mm", enforce_compliance="PDFA_3B" if archival else None)
        self.content = content
        self.archival = archival
        self.font_name = FONT
        if archival:
            self.font_name = "archival"
            for style, file in archival_font.files().items():
                self.add_font(self.font_name, style, file)
        else:
            self.core_fonts_encoding = ENCODING
        self.set_margins(MARGIN, MARGIN, MARGIN)
        self.set_auto_page_break(True, margin=MARGIN)
        issued_at = datetime.fromisoformat(content["issued_at"])
        self.set_creation_date(issued_at)  # fixed, so the bytes depend on the invoice only
        seller = content["seller"].get("name", "")
        self.set_title(self.printable(f"{self.document_name} {content['number']}"))
        self.set_author(self.printable(seller))
        self.set_creator(self.printable(seller))
        self.set_lang(content["language"])

    def printable(self, text: str) -> str:
        return printable(text, archival_font.COVERED if self.archival else None)

    def draw(self) -> None:
        self.add_page()
        self._seller()
        self._heading()
        self._buyer()
        self._rides()
        self._totals()
        self._closing()

    def _rides(self) -> None:
        self._ride(self.content)

    def _ride(self, part: dict) -> None:
        """What the document prints of one ride: its service, its share in Austria, its lines."""
        self._service(part)
        self._route_share(part)
        self._lines(part)

    def write_line(self, text: str, *, bold: bool = False, size: int = 10) -> None:
        self.set_font(self.font_name, "B" if bold else "", size)
        self.multi_cell(0, LINE, self.printable(text), new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    def pair(self, label: str, value: str, *, bold: bool = False) -> None:
        """A label on the left, an amount on the right."""
        self.set_font(self.font_name, "B" if bold else "", 10)
        self.cell(self.epw - AMOUNT_WIDTH, LINE, self.printable(label))
        self.cell(AMOUNT_WIDTH, LINE, self.printable(value), align="R", new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    def gap(self, height: float = LINE) -> None:
        self.ln(height)

    def _seller(self) -> None:
        seller = self.content["seller"]
        self.write_line(seller.get("name", ""), bold=True, size=12)
        address = ", ".join(
            part
            for part in (seller.get("street_address"), seller.get("place"), seller.get("country"))
            if part
        )
        if address:
            self.write_line(address)
        if seller.get("vat_id"):
            self.write_line(_("VAT id (UID): {vat_id}").format(vat_id=seller["vat_id"]))
        if seller.get("register_number"):
            register = seller["register_number"]
            if seller.get("register_court"):
                register = f"{register}, {seller['register_court']}"
            self.write_line(_("Company register: {register}").format(register=register))
        contact = " · ".join(
            part for part in (seller.get("phone"), seller.get("email"), seller.get("website")) if part
        )
        if contact:
            self.write_line(contact)
        self.gap(2 * LINE)

    def _heading(self) -> None:
        content = self.content
        self.write_line(_("Invoice {number}").format(number=content["number"]), bold=True, size=16)
        self.gap(2)
        self.write_line(
            _("Invoice date: {date}").format(date=day(datetime.fromisoformat(content["issued_at"])))
        )
        self._references()
        if content.get("supplements"):  # a supplementary invoice (ride invoices have no such key)
            ride = content["supplements"]
            self.write_line(
                _("Supplementary to invoice {number} of {date}").format(
                    number=ride["number"], date=day(datetime.fromisoformat(ride["issued_at"]))
                )
            )
        self.gap()

    def _buyer(self) -> None:
        buyer = self.content["buyer"]
        self.write_line(_("Customer"), bold=True)
        for part in (buyer.get("company"), buyer.get("name"), buyer.get("address"), buyer.get("email")):
            if part:
                self.write_line(part)
        if buyer.get("phone"):
            self.write_line(buyer["phone"])
        if buyer.get("vat_id"):
            self.write_line(_("VAT id (UID): {vat_id}").format(vat_id=buyer["vat_id"]))
        self.gap()

    def _references(self) -> None:
        self.write_line(_("Booking reference: {reference}").format(reference=self.content["reference"]))

    def _service(self, content: dict) -> None:
        self.write_line(self.service_heading(content), bold=True)
        self.write_line(f"{content['service']}, {content['vehicle']}")
        self.write_line(
            _("From {origin} to {destination}").format(
                origin=content["origin"], destination=content["destination"]
            )
        )
        if content.get("stops"):  # an invoice issued before stops existed has none
            self.write_line(_("Stops on the way: {stops}").format(stops="; ".join(content["stops"])))
        if content.get("pickup_at"):
            pickup = day_time(datetime.fromisoformat(content["pickup_at"]))
            self.write_line(_("Date of service: {date}").format(date=pickup))
        self.gap()

    def service_heading(self, part: dict) -> str:
        return _("Service")

    def _lines(self, part: dict) -> None:
        self.pair(str(self.lines_heading), _("Amount incl. VAT"), bold=True)
        self.line(self.l_margin, self.get_y(), self.l_margin + self.epw, self.get_y())
        for line in part["lines"]:
            self.pair(line["label"], money(Decimal(line["amount"]), self.content["currency"]))
        self.line(self.l_margin, self.get_y(), self.l_margin + self.epw, self.get_y())
        self.gap(2)

    def _totals(self) -> None:
        content = self.content
        if (content.get("cross_border") or {}).get("vat_setting") == AUSTRIA_ONLY:
            return self._split_totals()
        self._one_rate_totals(Decimal(content["vat_rate"]))

    def _one_rate_totals(self, rate: Decimal) -> None:
        content, currency = self.content, self.content["currency"]
        self.pair(_("Net amount"), money(Decimal(content["net"]), currency))
        self.pair(
            _("VAT {rate} %").format(rate=amounts_percent(rate)), money(Decimal(content["vat"]), currency)
        )
        self.pair(str(self.total_label), money(Decimal(content["gross"]), currency), bold=True)
        self.gap()

    def _rate_totals(self, *, abroad_at_zero: bool = False) -> None:
        """Net and VAT at each of the snapshot's `vat_rates`, then the net, the VAT and the total;
        `abroad_at_zero`: rate 0 is a share driven abroad, not taxable in Austria."""
        content, currency = self.content, self.content["currency"]
        for rate in content["vat_rates"]:
            percent = amounts_percent(Decimal(rate["rate"]))
            self.pair(
                _("Net amount at {rate} % VAT").format(rate=percent), money(Decimal(rate["net"]), currency)
            )
            if abroad_at_zero and not Decimal(rate["rate"]):
                self.write_line(_("not taxable in Austria (UStG §3a (10))"), size=8)
            else:
                self.pair(_("VAT {rate} %").format(rate=percent), money(Decimal(rate["vat"]), currency))
        self.pair(_("Net amount"), money(Decimal(content["net"]), currency))
        self.pair(_("Total VAT"), money(Decimal(content["vat"]), currency))
        self.pair(str(self.total_label), money(Decimal(content["gross"]), currency), bold=True)
        self.gap()

    # --- rides across the border (invoicing/cross_border.py) -----------------------------------------------

    def _route_share(self, part: dict) -> None:
        border = part.get("cross_border")
        if not border:
            return
        percent = number(Decimal(border["share"]) * 100)
        if Decimal(border["km_total"]):
            text = _("Share of the route in Austria: {percent} % ({km_austria} of {km_total} km)").format(
                percent=percent, km_austria=border["km_austria"], km_total=border["km_total"]
            )
        else:  # a tour as directed: no driven distance known
            text = _("Share of the route in Austria: {percent} %").format(percent=percent)
        self.write_line(text)
        self.gap()

    def _split_totals(self) -> None:
        """Austrian VAT on the Austrian share only; the part abroad is not taxable in Austria."""
        content, border = self.content, self.content["cross_border"]
        currency = content["currency"]
        share = Decimal(border["share"])
        rate = amounts_percent(Decimal(content["vat_rate"]))
        self.pair(
            _("Austrian share ({percent} %), net").format(percent=number(share * 100)),
            money(Decimal(border["austria_net"]), currency),
        )
        self.pair(_("VAT {rate} %").format(rate=rate), money(Decimal(content["vat"]), currency))
        self.pair(
            _("Share abroad ({percent} %)").format(percent=number((1 - share) * 100)),
            money(Decimal(border["abroad"]), currency),
        )
        self.write_line(_("not taxable in Austria (UStG §3a (10))"), size=8)
        self.pair(_("Net amount"), money(Decimal(content["net"]), currency))
        self.pair(str(self.total_label), money(Decimal(content["gross"]), currency), bold=True)
        self.gap()

    def _closing(self) -> None:
        paid = day(datetime.fromisoformat(self.content["paid_at"]))
        self.write_line(_("Paid on {date}. Thank you for travelling with us.").format(date=paid))


class _CreditNote(_Document):
    """A credit note: the seller, its number, the invoice it corrects and why, what is credited."""

    document_name = gettext_lazy("Credit note")
    lines_heading = gettext_lazy("Credited")
    total_label = gettext_lazy("Total credited")

    def _heading(self) -> None:
        content, corrected = self.content, self.content["corrects"]
        self.write_line(_("Credit note {number}").format(number=content["number"]), bold=True, size=16)
        self.gap(2)
        self.write_line(_("Date: {date}").format(date=day(datetime.fromisoformat(content["issued_at"]))))
        self.write_line(
            _("Corrects invoice {number} of {date}").format(
                number=corrected["number"], date=day(datetime.fromisoformat(corrected["issued_at"]))
            )
        )
        self.write_line(_("Booking reference: {reference}").format(reference=content["reference"]))
        self.write_line(_("Reason: {reason}").format(reason=content["reason_shown"]))
        self.gap()

    def _closing(self) -> None:
        if self.content.get("fee_kept"):
            fee = money(Decimal(self.content["fee_kept"]), self.content["currency"])
            self.write_line(_("The cancellation fee of {fee} is kept and stays invoiced.").format(fee=fee))
        self.write_line(_("The amount credited is paid back to you."))


class _TripInvoice(_Document):
    """A return trip's invoice: each ride under its own heading with its lines and its total, then the
    totals of both by VAT rate (a share driven abroad at 0 %, not taxable in Austria)."""

    def _references(self) -> None:
        references = ", ".join(part["reference"] for part in self.content["rides"])
        self.write_line(_("Booking references: {references}").format(references=references))

    def _rides(self) -> None:
        for part in self.content["rides"]:
            self._ride(part)
            self.pair(_("Total of this ride"), money(Decimal(part["gross"]), self.content["currency"]))
            self.gap()

    def service_heading(self, part: dict) -> str:
        way = _("Way out") if part is self.content["rides"][0] else _("Way back")
        return _("{way}: booking {reference}").format(way=way, reference=part["reference"])

    def _totals(self) -> None:
        rates = self.content["vat_rates"]  # by rate, highest first: a share abroad (rate 0) last
        if len(rates) == 1 and Decimal(rates[0]["rate"]):
            self._one_rate_totals(Decimal(rates[0]["rate"]))
        else:
            self._rate_totals(abroad_at_zero=True)


def amounts_percent(rate: Decimal) -> str:
    """0.10 → "10"; 0.055 → "5,5" in German."""
    return number(to_cent(rate * 100))


def printable(text: str, covered: frozenset[int] | None = None) -> str:
    """The text in what the font can write (the built-in font's Windows-1252, or the `covered` code points
    of an embedded one): accents dropped where needed, else "?"."""
    if all(_writes(character, covered) for character in text):
        return text
    return "".join(_printable_character(character, covered) for character in text)


def _writes(text: str, covered: frozenset[int] | None) -> bool:
    if covered is not None:
        return all(ord(character) in covered for character in text)
    try:
        text.encode(ENCODING)
    except UnicodeEncodeError:
        return False
    return True


def _printable_character(character: str, covered: frozenset[int] | None) -> str:
    if _writes(character, covered):
        return character
    base = "".join(
        part for part in unicodedata.normalize("NFKD", character) if not unicodedata.combining(part)
    )
    return base if base and _writes(base, covered) else "?"
