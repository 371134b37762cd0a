"""The accountant's export (accounting/export.py): a seeded October in Vienna, with rows just outside it
at Vienna's midnights, written as BMD's import file, read back with the csv module in the file's encoding, and
its sums per account and per VAT rate checked against the database's own sums."""

import csv
import io
from datetime import date, datetime
from decimal import Decimal

import pytest
import time_machine
from django.core.management import CommandError, call_command
from django.db.models import Sum

from accounting import export as export
from booking.models import Booking
from corporate.models import CompanyAccount
from invoicing import invoices
from invoicing.models import CreditNote, Invoice
from payments import surcharges
from payments.models import AccountPayment, Refund, Surcharge
from pricing.lines import LineKind
from pricing.money import to_cents
from pricing.services import quote_price
from tests.accounting.conftest import (
    BANK,
    CASH,
    COMPANIES,
    CUSTOMERS,
    END,
    FIRST,
    HEADER,
    LAST,
    PROVIDER,
    REVENUE_10,
    START,
    VIENNA,
)
from tests.payments.ledger_rows import received_cents

pytestmark = pytest.mark.django_db


def exported(**kwargs) -> tuple[list[str], list[dict[str, str]]]:
    data = b"".join(export.lines(export.entries(first=FIRST, last=LAST, **kwargs)))
    text = data.decode(export.ENCODING)
    assert "\r\n" in text and "\n" not in text.replace("\r\n", "")  # Windows line ends only
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=";")
    header, *rows = list(reader)
    return header, [dict(zip(header, row, strict=True)) for row in rows]


def cents(text: str) -> int:
    """BMD's number back into cents: "-12,50" → -1250 (a decimal comma, no grouping)."""
    assert text.count(",") == 1 and "." not in text, text
    whole, fraction = text.lstrip("-").split(",")
    assert len(fraction) == 2
    return (-1 if text.startswith("-") else 1) * (int(whole) * 100 + int(fraction))


def db_sum(queryset, field="gross_cents") -> int:
    return queryset.aggregate(total=Sum(field))["total"] or 0


def test_the_file_sums_to_the_database_per_account_and_vat_rate(october):
    header, rows = exported()
    assert header == HEADER
    assert {row["satzart"] for row in rows} == {"0"} and {row["buchcode"] for row in rows} == {"1"}
    for row in rows:
        day = date(*reversed([int(part) for part in row["belegdatum"].split(".")]))
        assert FIRST <= day <= LAST, row

    invoices = Invoice.objects.filter(issued_at__gte=START, issued_at__lt=END)
    notes = CreditNote.objects.filter(issued_at__gte=START, issued_at__lt=END)
    private = invoices.exclude(kind=Invoice.Kind.COLLECTIVE)
    documents = [row for row in rows if row["buchsymbol"] == "AR"]
    assert len(documents) == invoices.count() + notes.count() == 8

    # The debtors: what was invoiced less what was credited.
    def on(account, within):
        return sum(cents(row["betrag"]) for row in within if row["konto"] == account)

    assert on(CUSTOMERS, documents) == db_sum(private) - db_sum(notes) == 4 * 7400 + 1500 - 3000
    assert on(COMPANIES, documents) == db_sum(invoices.filter(kind=Invoice.Kind.COLLECTIVE)) == 30000
    # Per VAT rate: the VAT owed and the revenue (gross plus the negative VAT) on the 10 % account.
    ten = [row for row in documents if row["prozent"] == "10"]
    assert {row["steuercode"] for row in ten} == {"1"} and {row["gkonto"] for row in ten} == {REVENUE_10}
    assert len(ten) == len(documents)
    assert -sum(cents(row["steuer"]) for row in ten) == db_sum(invoices, "vat_cents") - db_sum(
        notes, "vat_cents"
    )
    assert sum(cents(row["betrag"]) + cents(row["steuer"]) for row in ten) == (
        db_sum(invoices, "net_cents") - db_sum(notes, "net_cents")
    )

    money = [row for row in rows if row["buchsymbol"] != "AR"]
    assert {row["prozent"] for row in money} == {""} and {row["steuer"] for row in money} == {""}
    paid = Booking.objects.filter(paid_at__gte=START, paid_at__lt=END)
    surcharges = Surcharge.objects.filter(
        payment__state="received", payment__received_at__gte=START, payment__received_at__lt=END
    )
    refunds = Refund.objects.filter(status="succeeded", updated_at__gte=START, updated_at__lt=END)
    by_card = sum(map(received_cents, paid.filter(payment_method="checkout"))) - db_sum(
        surcharges, "amount_cents"
    )
    assert (
        on(PROVIDER, money)
        == (
            by_card
            + db_sum(surcharges.filter(method="provider"), "amount_cents")
            - db_sum(refunds.filter(method="provider"), "amount_cents")
        )
        == 3 * 7400 + 1500 - 1000
    )
    assert on(CASH, money) == sum(map(received_cents, paid.filter(payment_method="cash"))) - 2000 == 5400
    transfers = AccountPayment.objects.filter(payment__received_at__gte=START, payment__received_at__lt=END)
    assert on(BANK, money) == db_sum(transfers, "payment__amount_cents") == 30000
    assert {row["buchsymbol"] for row in money if row["konto"] == CASH} == {"KA"}
    # Every payment is credited to its debtor: the file balances the debtors' accounts.
    assert sum(cents(row["betrag"]) for row in money if row["gkonto"] == CUSTOMERS) == on(
        PROVIDER, money
    ) + on(CASH, money)
    assert sum(cents(row["betrag"]) for row in money if row["gkonto"] == COMPANIES) == 30000


def test_rows_outside_the_vienna_period_are_left_out_and_edges_kept_in(october):
    _header, rows = exported()
    numbers = {row["belegnr"] for row in rows}
    assert not numbers & {document.number for document in october["outside"]}
    early = Invoice.objects.get(booking=october["early"])
    assert [row["belegdatum"] for row in rows if row["belegnr"] == early.number] == ["01.10.2026"]
    assert october["early"].reference in numbers  # its payment too, on 1 October
    assert "111,00" not in {row["betrag"] for row in rows} and "222,00" not in {row["betrag"] for row in rows}


def test_the_summary_counts_what_the_file_holds(october):
    summary = export.summary(export.entries(first=FIRST, last=LAST))
    assert summary.counts == {"invoice": 6, "credit_note": 2, "payment": 6, "refund": 2}
    assert summary.sums["credit_note"] == -3000 and summary.sums["refund"] == -3000
    invoices = Invoice.objects.filter(issued_at__gte=START, issued_at__lt=END)
    notes = CreditNote.objects.filter(issued_at__gte=START, issued_at__lt=END)
    assert summary.vat == {"10": db_sum(invoices, "vat_cents") - db_sum(notes, "vat_cents")}


def test_a_vat_rate_without_a_revenue_account_is_refused(october, settings):
    settings.ACCOUNTING_REVENUE_ACCOUNTS = {"20": "4020"}
    with pytest.raises(export.UnknownVatRate):
        export.entries(first=FIRST, last=LAST)


def test_the_accounts_follow_the_settings(october, settings):
    settings.ACCOUNTING_PROVIDER_ACCOUNT = "2895"
    settings.ACCOUNTING_SYMBOLS = {"invoice": "AR", "payment": "ZA", "cash": "KA"}
    _header, rows = exported()
    assert {row["buchsymbol"] for row in rows if row["konto"] == "2895"} == {"ZA"}
    assert not [row for row in rows if PROVIDER in (row["konto"], row["gkonto"])]


def test_amounts_and_a_period_backwards():
    assert [export.amount(c) for c in (0, 5, -1250, 123456)] == ["0,00", "0,05", "-12,50", "1234,56"]
    with pytest.raises(ValueError):
        export.bounds(LAST, FIRST)


def test_the_command_writes_the_file(october, tmp_path):
    target = tmp_path / "oktober.csv"
    call_command("export_accounting", "--from", "2026-10-01", "--to", "2026-10-31", "--output", str(target))
    assert target.read_bytes() == b"".join(export.lines(export.entries(first=FIRST, last=LAST)))
    assert target.read_bytes().startswith(b"satzart;konto;gkonto;belegnr;belegdatum;")


@pytest.mark.parametrize(
    "first, last", [("2026-10-31", "2026-10-01"), ("31.10.2026", "2026-10-31"), ("2026-02-30", "2026-03-01")]
)
def test_the_command_refuses_a_bad_period(first, last, tmp_path):
    target = tmp_path / "none.csv"
    with pytest.raises(CommandError):
        call_command("export_accounting", "--from", first, "--to", last, "--output", str(target))
    assert not target.exists()


def test_account_pairs_from_the_environment(monkeypatch):
    from config.settings import env_pairs

    monkeypatch.setenv("ACCOUNTING_REVENUE_ACCOUNTS", " 10 = 4010 , 13=4013")
    assert env_pairs("ACCOUNTING_REVENUE_ACCOUNTS", "10=4000") == {"10": "4010", "13": "4013"}
    monkeypatch.setenv("ACCOUNTING_REVENUE_ACCOUNTS", "")  # compose passes an unset variable empty
    assert env_pairs("ACCOUNTING_REVENUE_ACCOUNTS", "10=4000") == {"10": "4000"}
    monkeypatch.setenv("ACCOUNTING_REVENUE_ACCOUNTS", "10:4000")
    with pytest.raises(SystemExit, match="ACCOUNTING_REVENUE_ACCOUNTS must be a comma list"):
        env_pairs("ACCOUNTING_REVENUE_ACCOUNTS", "")


def test_a_collective_invoice_with_two_rates_is_a_line_per_rate(db):
    company = CompanyAccount.objects.create(
        name="Acme", street_address="Ring 1", postcode="1010", city="Wien", billing_email="ap@acme.test"
    )
    rates = [
        {"rate": "0.10", "net": "200.00", "vat": "20.00", "gross": "220.00"},
        {"rate": "0.20", "net": "50.00", "vat": "10.00", "gross": "60.00"},
    ]
    Invoice.objects.create(
        number="2026-000001",
        year=2026,
        sequence=1,
        issued_at=datetime(2026, 10, 1, 0, 10, tzinfo=VIENNA),
        language="de",
        kind=Invoice.Kind.COLLECTIVE,
        company_account=company,
        net_cents=25000,
        vat_cents=3000,
        gross_cents=28000,
        content={"vat_rates": rates, "net": "250.00", "vat": "30.00", "gross": "280.00"},
    )
    _, rows = exported()
    lines = [(row["konto"], row["gkonto"], row["prozent"], row["betrag"], row["steuer"]) for row in rows]
    assert lines == [
        (COMPANIES, REVENUE_10, "10", "220,00", "-20,00"),
        (COMPANIES, "4020", "20", "60,00", "-10,00"),
    ]


def test_shares_add_up_to_the_whole_and_follow_the_weights():
    assert export.shares(673, [7000, 400]) == [637, 36]  # 636.6… and 36.3…: the cent left goes to the first
    assert export.shares(-673, [7000, 400]) == [-637, -36]  # a credit note's VAT the same way
    assert export.shares(1000, [12000, -2000]) == [1200, -200]  # a price set below the tariff's
    assert export.shares(1, [1, 1, 1]) == [1, 0, 0]
    for total, weights in [(9999, [3, 3, 3]), (7, [5, 9, 11]), (-5, [2, 2])]:
        assert sum(export.shares(total, weights)) == total


def test_an_invoice_is_a_line_per_kind_of_its_priced_lines(make_booking):
    quote = quote_price(vehicle_class="executive", distance_km=Decimal("21.8"), in_zone_a=False)
    booking = make_booking(
        quote_record=quote.as_record(), amount_cents=to_cents(quote.price), in_zone_a=False
    )
    kinds = {line.kind for line in quote.priced_lines if line.amount}
    assert kinds == {LineKind.FARE, LineKind.EXTRA}
    with time_machine.travel(datetime(2026, 10, 15, 12, tzinfo=VIENNA), tick=False):
        invoice = invoices.issue(booking)
    assert invoice is not None

    _, rows = exported()
    mine = [row for row in rows if row["belegnr"] == invoice.number]
    assert [row["text"] for row in mine] == [
        f"Rechnung {invoice.number} Fahrpreis",
        f"Rechnung {invoice.number} Zuschlag",
    ]
    extra = sum(line.amount_cents for line in quote.priced_lines if line.kind == LineKind.EXTRA)
    assert cents(mine[1]["betrag"]) == extra
    # The lines together are the invoice: its gross, its VAT, on the revenue account of its rate.
    assert sum(cents(row["betrag"]) for row in mine) == invoice.gross_cents
    assert -sum(cents(row["steuer"]) for row in mine) == invoice.vat_cents
    assert {(row["prozent"], row["gkonto"]) for row in mine} == {("10", REVENUE_10)}

    waited = Surcharge.objects.create(
        booking=booking, amount_cents=2500, reason=Surcharge.Reason.WAITING, status=Surcharge.Status.PAID
    )
    with time_machine.travel(datetime(2026, 10, 16, 12, tzinfo=VIENNA), tick=False):
        supplementary = surcharges.supplementary_invoice(booking, waited)
    assert supplementary is not None
    _, rows = exported()
    assert [(row["text"], row["betrag"]) for row in rows if row["belegnr"] == supplementary.number] == [
        (f"Rechnung {supplementary.number} Wartezeit", "25,00")
    ]


def test_a_document_whose_lines_do_not_say_their_kind_is_one_line(october):
    """Documents issued before their lines kept a kind (the seeded month's) are booked by their parts."""
    _, rows = exported()
    documents = [row for row in rows if row["buchsymbol"] == "AR"]
    assert documents and all(row["text"].split()[-1][0].isdigit() for row in documents)
