"""The documents of representative bookings, as issued before priced lines existed: a plain ride, one across
the border (Austrian VAT on its share only), one with waiting and a no-show fee, one with a price set by hand,
one with credit notes. Each invoice's and credit note's snapshot, its PDF's text and the accountant's export
of the day must stay exactly what tests/payments/data/documents_unchanged.json recorded from the code before
(RECORD_DOCUMENTS=1 writes that file anew: only ever from a commit known to print what it should)."""

import io
import json
import os
import re
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import transaction
from pypdf import PdfReader

from accounting import export as accounting_export
from booking import selectors
from invoicing import cross_border, invoice_pdf
from invoicing.models import CreditNote, Invoice
from operator_profile.models import OperatorProfile
from payments import payment_updates, refunds, surcharges
from payments.models import PRICE_CHANGE_REFUND, Refund, Surcharge
from pricing.money import to_cents
from pricing.quote import PriceByHand, with_price_by_hand
from pricing.services import quote_price

pytestmark = pytest.mark.django_db
VIENNA = ZoneInfo("Europe/Vienna")
DAY = datetime(2026, 11, 24, 9, 0, tzinfo=VIENNA)
RECORDED = Path(__file__).parent / "data" / "documents_unchanged.json"
STAFF = "eva (staff)"


@pytest.fixture(autouse=True)
def operator(db):
    OperatorProfile.objects.filter(id=1).update(
        legal_name="Wiener Chauffeur GmbH",
        street_address="Kärntner Ring 1",
        postcode="1010",
        city="Wien",
        vat_id="ATU12345678",
        email="office@chauffeur.test",
        foreign_route_vat=cross_border.AUSTRIA_ONLY,
    )


def paid(make_booking, reference: str, **fields):
    values = {
        "reference": reference,
        "name": "Anna Berger",
        "email": "anna@example.com",
        "pickup_at": datetime(2026, 12, 2, 10, 0, tzinfo=VIENNA),
        "distance_km": Decimal("21.8"),
    }
    booking = make_booking(**{**values, **fields})
    return payment_updates.mark_paid(booking.pk, method="cash", user=None, actor="test")


def charged(booking, cents: int, reason: str) -> None:
    """Owed after the ride and collected by staff: its supplementary invoice."""
    with transaction.atomic():
        locked = selectors.locked_booking(booking.pk)
        owed = surcharges.owe(locked, cents, reason=reason, online=False, actor=STAFF, details={})
    surcharges.collect(booking.pk, owed.pk, actor=STAFF)


def given_back(booking, cents: int, reason: str) -> None:
    with transaction.atomic():
        refunds.refund(selectors.locked_booking(booking.pk), cents, reason=reason, actor=STAFF, manual=True)


def by_hand(make_booking, reference: str):
    quote = with_price_by_hand(
        quote_price(vehicle_class="executive", distance_km=Decimal("21.8")),
        PriceByHand(Decimal("90.00"), "Two suitcases more"),
    )
    booking = paid(
        make_booking,
        reference,
        quote_record=quote.as_record(),
        amount_cents=to_cents(quote.price),
        locale="de",
    )
    with transaction.atomic():  # a difference collected for it: its invoice names the reason
        surcharges.record_paid(selectors.locked_booking(booking.pk), 500, actor=STAFF)
    given_back(booking, 300, PRICE_CHANGE_REFUND)
    return booking


def documents_now() -> dict:
    """Every document's snapshot and PDF text, and the day's export, with database ids named by order."""
    documents = {}
    for document in [*Invoice.objects.order_by("pk"), *CreditNote.objects.order_by("pk")]:
        pdf = PdfReader(io.BytesIO(invoice_pdf.render(document)))
        documents[document.number] = {
            "content": document.content,
            "cents": [document.net_cents, document.vat_cents, document.gross_cents],
            "pdf": "\n".join(page.extract_text() for page in pdf.pages),
        }
    found = accounting_export.entries(first=date(2026, 11, 24), last=date(2026, 11, 24))
    export = b"".join(accounting_export.lines(found)).decode(accounting_export.ENCODING)
    for model, text in ((Surcharge, "Preisdifferenz"), (Refund, "Erstattung")):  # ids differ between runs
        for position, pk in enumerate(model.objects.order_by("pk").values_list("pk", flat=True)):
            export = re.sub(rf"({text} CB-\w+)/{pk}\r\n", rf"\1/#{position}\r\n", export)
    return {"documents": documents, "export": export}


@time_machine.travel(DAY, tick=False)
def test_todays_bookings_print_what_they_printed(make_booking):
    paid(make_booking, "CB-PLAIN1")
    paid(
        make_booking,
        "CB-ABROAD",
        destination="Bratislava Airport (BTS)",
        distance_km=Decimal("61.0"),
        austria_share=Decimal("0.620"),
    )
    abroad = paid(make_booking, "CB-ABROAD2", distance_km=Decimal("61.0"), austria_share=Decimal("0.620"))
    charged(abroad, 1500, Surcharge.Reason.WAITING)  # a supplement split as its ride was
    waited = paid(make_booking, "CB-WAITED")
    charged(waited, 2000, Surcharge.Reason.WAITING)
    charged(waited, 3700, Surcharge.Reason.NO_SHOW)
    by_hand(make_booking, "CB-BYHAND")
    cancelled = paid(make_booking, "CB-CREDIT", locale="de")
    given_back(cancelled, 1000, "")
    given_back(cancelled, 700, "Goodwill")
    now = documents_now()
    if os.environ.get("RECORD_DOCUMENTS"):
        RECORDED.parent.mkdir(exist_ok=True)
        RECORDED.write_text(json.dumps(now, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    recorded = json.loads(RECORDED.read_text())
    assert sorted(now["documents"]) == sorted(recorded["documents"])
    for number, document in now["documents"].items():
        assert document == recorded["documents"][number], number
    assert now["export"] == recorded["export"]
    assert len(now["documents"]) == 13  # 6 ride invoices, 4 supplementary, 3 credit notes
