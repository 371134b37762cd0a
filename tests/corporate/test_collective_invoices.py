"""The monthly collective invoice of a company account (docs/operations/business.md): exactly the
month's rides on account (Vienna), fees of cancellations, the owed waiting time; VAT per rate; numbered in
the ride invoices' gapless series; issued once by the schedule on the 1st and e-mailed once with its PDF."""

import io
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
import time_machine
from django.core import mail
from django.db import connection, connections
from pypdf import PdfReader

from booking.models import PaymentMethod
from corporate.models import CompanyAccount
from invoicing import collective_invoice_pdf
from invoicing.collective_invoices import send_collective_invoice
from invoicing.models import CollectiveInvoiceLine, Invoice, InvoiceYear
from payments import collective_invoices, tasks
from payments.models import Surcharge
from tests.corporate.conftest import vienna
from tests.queued import run_pending_jobs

pytestmark = pytest.mark.django_db
OCTOBER = date(2026, 10, 1)


def at_utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.fixture
def october(acme, globex, on_account):
    """Two companies' October: what belongs on their invoices, and what does not."""
    rides = {
        # 1 October 00:30 in Vienna is still 30 September in UTC: October's.
        "acme_first": on_account(acme, vienna(2026, 10, 1, 0, 30), reference="CB-ACME01", name="Anna Berger"),
        "acme_waited": on_account(
            acme,
            vienna(2026, 10, 15, 10, 0),
            "confirmed",
            reference="CB-ACME02",
            name="Bernd Huber",
            vehicle_class="business-van",
        ),
        "acme_fee": on_account(
            acme, vienna(2026, 10, 20, 9, 0), "cancelled", reference="CB-ACME03", cancellation_fee_cents=3700
        ),
        "acme_free": on_account(acme, vienna(2026, 10, 21, 9, 0), "cancelled", reference="CB-ACME04"),
        "acme_zero_fee": on_account(
            acme, vienna(2026, 10, 22, 9, 0), "cancelled", reference="CB-ACME05", cancellation_fee_cents=0
        ),
        "acme_expired": on_account(acme, vienna(2026, 10, 23, 9, 0), "expired", reference="CB-ACME06"),
        # 1 November 00:30 in Vienna is 31 October in UTC: November's.
        "acme_november": on_account(acme, vienna(2026, 11, 1, 0, 30), "paid", reference="CB-ACME07"),
        "acme_august": on_account(acme, vienna(2026, 8, 31, 23, 59), reference="CB-ACME08"),
        "acme_by_card": on_account(
            acme,
            vienna(2026, 10, 16, 9, 0),
            reference="CB-ACME09",
            payment_method=PaymentMethod.CHECKOUT,
            company_account=None,
        ),
        "globex_late": on_account(
            globex,
            vienna(2026, 10, 31, 23, 30),
            "paid",
            reference="CB-GLOB01",
            name="Carol Smith",
            locale="en",
        ),
        "globex_abroad": on_account(
            globex, vienna(2026, 10, 10, 8, 0), reference="CB-GLOB02", name="Carol Smith", locale="en"
        ),
    }
    # The ride abroad was quoted at another rate (the foreign part's VAT is a staff setting).
    abroad = rides["globex_abroad"]
    abroad.quote_record = {**abroad.quote_record, "vat_rate": "0.20"}
    abroad.save(update_fields=["quote_record"])
    waited = rides["acme_waited"]
    Surcharge.objects.create(booking=waited, amount_cents=2000, reason=Surcharge.Reason.WAITING)  # owed
    Surcharge.objects.create(  # asked for through a payment link: not on the invoice
        booking=waited,
        amount_cents=1500,
        reason=Surcharge.Reason.NO_SHOW,
        payment_url="https://pay.example/x",
    )
    Surcharge.objects.create(booking=waited, amount_cents=900, reason=Surcharge.Reason.WAITING, status="paid")
    Surcharge.objects.create(
        booking=waited, amount_cents=800, reason=Surcharge.Reason.WAITING, status="waived"
    )
    return rides


def pdf_text(invoice: Invoice) -> str:
    reader = PdfReader(io.BytesIO(collective_invoice_pdf.render(invoice)))
    return "\n".join(page.extract_text() for page in reader.pages)


def attachment_text(message) -> str:
    (name, content, media_type), *rest = message.attachments
    assert rest == [] and media_type == "application/pdf" and name.endswith(".pdf")
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages)
    return text.replace("\xa0", " ")  # the money format's no-break space


# --- the lines and sums ------------------------------------------------------------------------------------


@time_machine.travel(at_utc(2026, 10, 31, 23, 30), tick=False)
def test_a_month_lists_exactly_each_companys_rides_fees_and_owed_waiting_time(october, acme, globex):
    issued = collective_invoices.issue_month(OCTOBER)
    assert [invoice.company_account for invoice in issued] == [acme, globex]
    first, second = issued
    assert (first.number, second.number) == ("2026-000001", "2026-000002")
    assert first.kind == "collective" and first.booking is None and first.period_start == OCTOBER
    lines = {line.booking.reference: line.gross_cents for line in first.lines.all()}
    assert lines == {"CB-ACME01": 7400, "CB-ACME02": 9300 + 2000, "CB-ACME03": 3700}
    assert (first.gross_cents, first.net_cents, first.vat_cents) == (22400, 20364, 2036)
    assert first.due_on == date(2026, 11, 15) and first.language == "de"
    waited = first.content["lines"][1]
    assert [item["amount"] for item in waited["items"]] == ["93.00", "20.00"]
    assert waited["booker"] == "Bernd Huber" and waited["amount"] == "113.00"
    assert first.content["lines"][2]["items"] == [{"label": "Stornogebühr", "amount": "37.00"}]

    assert {line.booking.reference for line in second.lines.all()} == {"CB-GLOB01", "CB-GLOB02"}
    assert second.content["vat_rates"] == [
        {"rate": "0.100", "net": "67.27", "vat": "6.73", "gross": "74.00"},
        {"rate": "0.20", "net": "61.67", "vat": "12.33", "gross": "74.00"},
    ]
    assert (second.gross_cents, second.net_cents, second.vat_cents) == (14800, 12894, 1906)
    assert second.due_on == date(2026, 12, 1) and second.language == "en"
    assert second.content["buyer"]["vat_id"] == "GB123456789"
    assert second.content["bank"] == {"iban": "AT61 1904 3002 3457 3201", "bic": "BKAUATWW"}
    # Each booking once: the rest stay uninvoiced.
    assert CollectiveInvoiceLine.objects.count() == 5


@time_machine.travel(at_utc(2026, 10, 31, 23, 30), tick=False)
def test_the_series_is_the_ride_invoices_own_and_a_second_issue_is_the_same_invoice(october, acme):
    InvoiceYear.objects.create(year=2026, last_number=41)  # ride invoices issued before
    invoice, created = collective_invoices.issue(acme, OCTOBER)
    assert created and invoice.number == "2026-000042"
    again, created_again = collective_invoices.issue(acme, date(2026, 10, 17))
    assert (again, created_again) == (invoice, False)
    assert InvoiceYear.objects.get(year=2026).last_number == 42  # no number drawn for nothing


@time_machine.travel(at_utc(2026, 10, 31, 23, 30), tick=False)
def test_a_month_without_rides_gets_no_invoice_and_no_number(october, acme):
    assert collective_invoices.issue(acme, date(2026, 7, 1)) == (None, False)
    assert collective_invoices.issue_month(date(2026, 7, 1)) == []
    assert not Invoice.objects.exists() and not InvoiceYear.objects.filter(last_number__gt=0).exists()


# --- the schedule and the e-mail ---------------------------------------------------------------------------


def test_the_first_of_the_month_in_vienna_issues_last_months_invoices_and_mails_each_pdf_once(october):
    # 31 October 23:30 in Vienna is still October: the job looks at September, which has no ride on account.
    with time_machine.travel(at_utc(2026, 10, 31, 22, 30), tick=False):
        assert tasks.issue_collective_invoices.call() == []
    # Half an hour after midnight on the 1st in Vienna (23:30 UTC on the 31st): October's invoices.
    with time_machine.travel(at_utc(2026, 10, 31, 23, 30), tick=False):
        assert tasks.issue_collective_invoices.call() == ["2026-000001", "2026-000002"]
        run_pending_jobs()
    assert sorted(message.to[0] for message in mail.outbox) == [
        "accounts@globex.example",
        "buchhaltung@acme.example",
    ]
    german = next(message for message in mail.outbox if message.to == ["buchhaltung@acme.example"])
    assert german.subject == "Sammelrechnung 2026-000001"
    assert "15.11.2026" in german.body and "224,00" in german.body
    text = attachment_text(german)
    for printed in (
        "Sammelrechnung 2026-000001",
        "Rechnungsdatum: So., 01.11.2026",
        "Leistungszeitraum: 01.10.2026 – 31.10.2026",
        "Acme Handels GmbH",
        "Mariahilfer Straße 10",
        "1070 Wien",
        "UID-Nummer: ATU99999999",
        "Wiener Chauffeur GmbH",
        "UID-Nummer: ATU12345678",
        "01.10.2026",
        "CB-ACME01",
        "Anna Berger",
        "Hotel Sacher – Flughafen Wien",
        "CB-ACME02",
        "Bernd Huber",
        "Wartezeit 20,00 €",
        "CB-ACME03",
        "Stornogebühr 37,00 €",
        "Nettobetrag 203,64 €",
        "USt 10 % 20,36 €",
        "Gesamtbetrag 224,00 €",
        "Zahlungsziel: 14 Tage netto",
        "bis 15.11.2026",
        "IBAN: AT61 1904 3002 3457 3201",
        "BIC: BKAUATWW",
    ):
        assert printed in text, printed
    for absent in ("CB-ACME04", "CB-ACME05", "CB-ACME06", "CB-ACME07", "CB-ACME08", "CB-ACME09", "CB-GLOB"):
        assert absent not in text, absent

    english = next(message for message in mail.outbox if message.to == ["accounts@globex.example"])
    assert english.subject == "Collective invoice 2026-000002"
    text = attachment_text(english)
    for printed in (
        "Collective invoice 2026-000002",
        "Invoice date: Sun 01.11.2026",
        "Period of service: 01.10.2026 – 31.10.2026",
        "Globex Ltd",
        "VAT id (UID): GB123456789",
        "31.10.2026",
        "CB-GLOB01",
        "CB-GLOB02",
        "Carol Smith",
        "Net amount at 10 % VAT €67.27",
        "VAT 10 % €6.73",
        "Net amount at 20 % VAT €61.67",
        "VAT 20 % €12.33",
        "Net amount €128.94",
        "Total amount €148.00",
        "Payment terms: 30 days net",
        "by 01.12.2026",
        "IBAN: AT61 1904 3002 3457 3201",
    ):
        assert printed in text, printed

    # A second run on the same day, and one later in the month, issue nothing and send nothing.
    for moment in (at_utc(2026, 11, 1, 0, 30), at_utc(2026, 11, 20, 8, 0)):
        with time_machine.travel(moment, tick=False):
            assert tasks.issue_collective_invoices.call() == []
            run_pending_jobs()
    assert len(mail.outbox) == 2 and Invoice.objects.count() == 2
    # The mail job queued again (staff's "run again") sends nothing more either.
    send_collective_invoice.enqueue(Invoice.objects.get(number="2026-000001").pk)
    run_pending_jobs()
    assert len(mail.outbox) == 2


def test_a_worker_down_on_the_first_catches_up_later_in_the_month(october):
    with time_machine.travel(vienna(2026, 11, 9, 14, 0), tick=False):
        assert tasks.issue_collective_invoices.call() == ["2026-000001", "2026-000002"]
        run_pending_jobs()
        invoice = Invoice.objects.get(number="2026-000001")
    assert invoice.due_on == date(2026, 11, 23)  # from the day it was issued
    assert len(mail.outbox) == 2


def test_the_schedule_is_configured():
    from django.conf import settings

    assert settings.JOBS_SCHEDULES["payments.tasks.issue_collective_invoices"] == 3600


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_parallel_runs_give_one_invoice_per_company_and_gapless_numbers(acme, globex, on_account):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises its writers; the race is PostgreSQL's (CI's second run)")
    third = CompanyAccount.objects.create(
        name="Initech AG",
        street_address="Ring 2",
        postcode="1010",
        city="Wien",
        billing_email="ap@initech.example",
    )
    for account in (acme, globex, third):
        for day in (3, 4):
            on_account(account, vienna(2026, 10, day, 9, 0))

    def run(_):
        try:
            with time_machine.travel(at_utc(2026, 11, 2, 8, 0), tick=False):
                return [invoice.number for invoice in collective_invoices.issue_month(OCTOBER)]
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(run, range(6)))
    assert sorted(number for result in results for number in result) == [
        "2026-000001",
        "2026-000002",
        "2026-000003",
    ]
    assert Invoice.objects.filter(kind="collective").count() == 3
    assert sorted(Invoice.objects.values_list("company_account__name", flat=True)) == [
        "Acme Handels GmbH",
        "Globex Ltd",
        "Initech AG",
    ]
    assert InvoiceYear.objects.get(year=2026).last_number == 3
    assert CollectiveInvoiceLine.objects.count() == 6
    assert all(invoice.gross_cents == Decimal(14800) for invoice in Invoice.objects.all())
