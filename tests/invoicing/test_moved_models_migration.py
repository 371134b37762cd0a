"""The issued documents moved from `payments` to `invoicing` without touching a table: invoices, credit
notes, their yearly counters, collective invoice lines and the payments on account against them, written
before the move, are all there after it with the same values; the staff permissions granted on them and the
admin's log entries follow them to the new label; the documents' mail jobs queued under their old path run
under the new one. Migrated back, the rows, grants and jobs are payments' again."""

from datetime import date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group, User
from django.contrib.contenttypes.models import ContentType
from django.utils.module_loading import import_string
from django_tasks.base import Task

from invoicing.models import CollectiveInvoiceLine, CreditNote, CreditNoteYear, Invoice, InvoiceYear
from jobqueue.models import Job
from payments.models import AccountPayment
from pricing.services import quote_price
from tests.migrating import migrate, migrate_to_latest

BEFORE_THE_MOVE = [("payments", "0011_refund_intent_from_its_payment"), ("invoicing", None)]
VIENNA = ZoneInfo("Europe/Vienna")
GRANTED = {("invoice", "view_invoice"), ("creditnote", "view_creditnote")}
OLD_JOB = "payments.mails.send_invoice"


def document(number: str, sequence: int, gross_cents: int) -> dict:
    return {
        "number": number,
        "year": 2026,
        "sequence": sequence,
        "issued_at": datetime(2026, 10, 5, 10, tzinfo=VIENNA),
        "language": "de",
        "net_cents": gross_cents * 10 // 11,
        "vat_cents": gross_cents - gross_cents * 10 // 11,
        "gross_cents": gross_cents,
        "content": {"number": number},
    }


def write_rows_before_the_move(old_apps) -> None:
    model = {
        name: old_apps.get_model("payments", name)
        for name in (
            "Invoice",
            "CreditNote",
            "InvoiceYear",
            "CreditNoteYear",
            "CollectiveInvoiceLine",
            "AccountPayment",
            "Refund",
        )
    }
    accountant = old_apps.get_model("auth", "User").objects.create(username="accountant", is_staff=True)
    account = old_apps.get_model("business", "CompanyAccount").objects.create(name="Hotel Sacher")
    quote = quote_price(vehicle_class="executive", distance_km=Decimal("21.8")).as_record()
    Booking = old_apps.get_model("booking", "Booking")
    ride, on_account = (
        Booking.objects.create(
            reference=reference,
            origin="Hotel Sacher",
            destination="Flughafen Wien",
            vehicle_class="executive",
            quote_record=quote,
            amount_cents=7400,
            booking_data={},
            status="paid",
        )
        for reference in ("CB-RIDE", "CB-ACCOUNT")
    )
    invoice = model["Invoice"].objects.create(booking=ride, kind="ride", **document("2026-000001", 1, 7400))
    refund = model["Refund"].objects.create(booking=ride, amount_cents=1100, status="succeeded")
    model["CreditNote"].objects.create(
        invoice=invoice, booking=ride, refund=refund, reason="refund", **document("G-2026-000001", 1, 1100)
    )
    collective = model["Invoice"].objects.create(
        kind="collective",
        company_account=account,
        period_start=date(2026, 9, 1),
        due_on=date(2026, 10, 15),
        **document("2026-000002", 2, 7400),
    )
    model["CollectiveInvoiceLine"].objects.create(invoice=collective, booking=on_account, gross_cents=7400)
    model["AccountPayment"].objects.create(
        invoice=collective, amount_cents=5000, received_on=date(2026, 10, 10), recorded_by=accountant
    )
    model["InvoiceYear"].objects.create(year=2026, last_number=2)
    model["CreditNoteYear"].objects.create(year=2026, last_number=1)
    # A staff group holding permissions on the moved models, and an admin log entry about an invoice.
    content_types = old_apps.get_model("contenttypes", "ContentType").objects
    permissions = old_apps.get_model("auth", "Permission").objects
    group = old_apps.get_model("auth", "Group").objects.create(name="Accounts")
    for name, codename in GRANTED:
        content_type, _ = content_types.get_or_create(app_label="payments", model=name)
        permission, _ = permissions.get_or_create(
            content_type=content_type, codename=codename, defaults={"name": codename}
        )
        group.permissions.add(permission)
    accountant.groups.add(group)
    old_apps.get_model("admin", "LogEntry").objects.create(
        user=accountant,
        content_type=content_types.get(app_label="payments", model="invoice"),
        object_id=str(invoice.pk),
        object_repr=invoice.number,
        action_flag=2,
        change_message="[]",
    )


def rows() -> dict:
    return {
        "invoices": list(
            Invoice.objects.order_by("number").values_list(
                "number", "kind", "booking__reference", "company_account__name", "gross_cents", "content"
            )
        ),
        "credit notes": list(
            CreditNote.objects.values_list(
                "number", "invoice__number", "booking__reference", "refund__amount_cents", "reason"
            )
        ),
        "lines": list(
            CollectiveInvoiceLine.objects.values_list("invoice__number", "booking__reference", "gross_cents")
        ),
        "on account": list(AccountPayment.objects.values_list("invoice__number", "payment__amount_cents")),
        "years": [
            list(InvoiceYear.objects.values_list("year", "last_number")),
            list(CreditNoteYear.objects.values_list("year", "last_number")),
        ],
    }


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_documents_move_to_invoicing_with_every_row_grant_and_job(client):
    job = import_string("invoicing.mails.send_invoice").enqueue(0)
    old_apps = migrate(BEFORE_THE_MOVE)
    try:
        assert "invoicing" not in {model._meta.app_label for model in old_apps.get_models()}
        write_rows_before_the_move(old_apps)
        Job.objects.filter(id=job.id).update(task_path=OLD_JOB)  # as the old code queued it
    finally:
        migrate_to_latest()
    ContentType.objects.clear_cache()  # the migration relabelled content types under the cache's feet

    assert rows() == {
        "invoices": [
            ("2026-000001", "ride", "CB-RIDE", None, 7400, {"number": "2026-000001"}),
            ("2026-000002", "collective", None, "Hotel Sacher", 7400, {"number": "2026-000002"}),
        ],
        "credit notes": [("G-2026-000001", "2026-000001", "CB-RIDE", 1100, "refund")],
        "lines": [("2026-000002", "CB-ACCOUNT", 7400)],
        "on account": [("2026-000002", 5000)],
        "years": [[(2026, 2)], [(2026, 1)]],
    }
    assert {table for table in (m._meta.db_table for m in (Invoice, CreditNote, InvoiceYear))} == {
        "payments_invoice",
        "payments_creditnote",
        "payments_invoiceyear",
    }
    # The grants are on the new label, none left behind on the old one.
    granted = Group.objects.get(name="Accounts").permissions.select_related("content_type")
    assert {(p.content_type.app_label, p.content_type.model, p.codename) for p in granted} == {
        ("invoicing", name, codename) for name, codename in GRANTED
    }
    assert not ContentType.objects.filter(app_label="payments", model__in=["invoice", "creditnote"]).exists()
    accountant = User.objects.get(username="accountant")
    assert accountant.has_perm("invoicing.view_invoice") and accountant.has_perm("invoicing.view_creditnote")
    assert not accountant.has_perm("invoicing.change_invoice")
    entry = LogEntry.objects.get(user=accountant)
    assert (entry.content_type.app_label, entry.content_type.model) == ("invoicing", "invoice")
    moved = Job.objects.get(id=job.id).task_path
    assert moved == "invoicing.mails.send_invoice" and isinstance(import_string(moved), Task)

    client.force_login(accountant)
    listing = client.get("/admin/invoicing/invoice/", HTTP_ACCEPT_LANGUAGE="en")
    assert listing.status_code == 200 and "2026-000001" in listing.content.decode()
    credit_notes = client.get("/admin/invoicing/creditnote/", HTTP_ACCEPT_LANGUAGE="en")
    assert credit_notes.status_code == 200 and "G-2026-000001" in credit_notes.content.decode()


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_back_before_the_move_the_documents_grants_and_jobs_are_payments_again():
    migrate_to_latest()
    Group.objects.create(name="Readers").permissions.add(
        ContentType.objects.get_for_model(Invoice).permission_set.get(codename="view_invoice")
    )
    job = import_string("invoicing.mails.send_invoice").enqueue(0)
    old_apps = migrate(BEFORE_THE_MOVE)
    try:
        group = old_apps.get_model("auth", "Group").objects.get(name="Readers")
        assert [(p.content_type.app_label, p.codename) for p in group.permissions.all()] == [
            ("payments", "view_invoice")
        ]
        assert old_apps.get_model("payments", "Invoice")._meta.db_table == "payments_invoice"
        assert old_apps.get_model("payments", "AccountPayment")._meta.get_field("invoice").related_model == (
            old_apps.get_model("payments", "Invoice")
        )
        assert Job.objects.get(id=job.id).task_path == OLD_JOB
    finally:
        migrate_to_latest()
    ContentType.objects.clear_cache()
    assert [p.content_type.app_label for p in Group.objects.get(name="Readers").permissions.all()] == [
        "invoicing"
    ]
    assert Job.objects.get(id=job.id).task_path == "invoicing.mails.send_invoice"
