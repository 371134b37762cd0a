"""A ride on account after its money is settled by the company's collective invoice: a staff change bills
the new price on that invoice (never a payment link to the traveller, never cash recorded beside it), and
once the ride is listed on an issued collective invoice, cancelling it, changing it or collecting or
waiving what it owes is refused, changing nothing (the invoice would still bill it: staff correct it by
hand, docs/operations/business.md)."""

from datetime import date, timedelta
from decimal import Decimal

import pytest
import time_machine
from django.utils import timezone

from apikit.errors import DomainError
from booking.models import Booking
from dispatch import changes
from invoicing.models import Invoice
from payments import cancellation, collective_invoices, surcharges
from payments.models import Surcharge
from tests.corporate.conftest import vienna
from tests.payments.ledger_rows import received_cents

pytestmark = pytest.mark.django_db


@pytest.fixture
def paid_on_account(acme, on_account):
    def make(pickup, status="paid"):
        return on_account(
            acme, pickup, status, paid_at=timezone.now(), received_cents=0, distance_km=Decimal("21.8")
        )

    return make


@pytest.mark.usefixtures("sandbox")
@pytest.mark.parametrize("through_provider", [True, False])
def test_a_dearer_change_on_account_goes_on_the_collective_invoice(
    paid_on_account, mailoutbox, django_capture_on_commit_callbacks, through_provider
):
    booking = paid_on_account(timezone.now() + timedelta(days=5))
    with django_capture_on_commit_callbacks(execute=True):
        change = changes.change_ride(
            booking.pk,
            pickup=booking.pickup_at,
            vehicle_class="business-van",
            through_provider=through_provider,
            actor="staff",
        )
    booking.refresh_from_db()
    assert change.difference_cents > 0 and booking.vehicle_class == "business-van"
    assert received_cents(booking) == 0  # nothing was taken from the traveller
    assert not Surcharge.objects.filter(booking=booking).exists()  # no link, no cash beside the invoice
    assert not any(
        "payment" in message.subject.lower() or "zahl" in message.subject.lower() for message in mailoutbox
    )
    month = booking.pickup_at.date().replace(day=1)
    with time_machine.travel(timezone.now() + timedelta(days=40)):
        invoice, _created = collective_invoices.issue(booking.company_account, month)
    assert invoice.lines.get().gross_cents == booking.amount_cents  # the new price, once


@pytest.fixture
def billed(paid_on_account):
    """An October ride on account, confirmed (not completed), owing waiting time, on October's invoice."""
    with time_machine.travel(vienna(2026, 10, 1, 9, 0)):
        booking = paid_on_account(vienna(2026, 10, 15, 10, 0), status="confirmed")
        owed = Surcharge.objects.create(booking=booking, amount_cents=2000, reason=Surcharge.Reason.WAITING)
    with time_machine.travel(vienna(2026, 11, 1, 6, 0)):
        invoice, created = collective_invoices.issue(booking.company_account, date(2026, 10, 1))
    assert created and invoice.gross_cents == booking.amount_cents + 2000
    return booking, owed, invoice


def unchanged(booking, invoice):
    return (
        Booking.objects.values().get(pk=booking.pk),
        list(Surcharge.objects.filter(booking=booking).values()),
        Invoice.objects.values().get(pk=invoice.pk),
    )


def test_a_ride_on_an_issued_collective_invoice_cannot_be_cancelled(billed):
    booking, _owed, invoice = billed
    before = unchanged(booking, invoice)
    with time_machine.travel(vienna(2026, 11, 3, 9, 0)):
        terms = cancellation.terms(booking, by_staff=True)
        assert not terms.allowed and invoice.number in str(terms.refusal)
        with pytest.raises(DomainError):
            cancellation.cancel(booking.pk, actor="staff", by_staff=True)
    assert unchanged(booking, invoice) == before


def test_a_ride_on_an_issued_collective_invoice_cannot_be_moved(billed):
    booking, _owed, invoice = billed
    before = unchanged(booking, invoice)
    with time_machine.travel(vienna(2026, 11, 3, 9, 0)), pytest.raises(DomainError) as refusal:
        changes.change_ride(
            booking.pk,
            pickup=vienna(2026, 12, 5, 10, 0),
            vehicle_class=booking.vehicle_class,
            through_provider=False,
            actor="staff",
        )
    assert invoice.number in str(refusal.value.in_words())
    assert unchanged(booking, invoice) == before


@pytest.mark.parametrize("action", [surcharges.collect, surcharges.waive])
def test_waiting_time_billed_on_a_collective_invoice_is_neither_collected_nor_waived(billed, action):
    booking, owed, invoice = billed
    before = unchanged(booking, invoice)
    with pytest.raises(DomainError) as refusal:
        action(booking.pk, owed.pk, actor="staff")
    assert invoice.number in str(refusal.value.in_words())
    assert unchanged(booking, invoice) == before


def test_waiting_time_owed_on_account_is_not_collected_beside_the_collective_invoice(paid_on_account):
    booking = paid_on_account(vienna(2026, 10, 15, 10, 0), status="completed")
    owed = Surcharge.objects.create(booking=booking, amount_cents=2000, reason=Surcharge.Reason.WAITING)
    before = (Booking.objects.values().get(pk=booking.pk), list(Surcharge.objects.values()))
    with pytest.raises(DomainError):
        surcharges.collect(booking.pk, owed.pk, actor="staff")
    assert (Booking.objects.values().get(pk=booking.pk), list(Surcharge.objects.values())) == before
    assert not Invoice.objects.exists()
    invoice, _created = collective_invoices.issue(booking.company_account, date(2026, 10, 1))
    assert invoice.gross_cents == booking.amount_cents + 2000  # billed once, on the company's invoice


def test_waiting_time_owed_after_the_collective_invoice_is_told_to_staff(
    billed, mailoutbox, django_capture_on_commit_callbacks, settings
):
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"
    from django.db import transaction

    from tests.queued import run_pending_jobs

    booking, _owed, invoice = billed
    before = Invoice.objects.values().get(pk=invoice.pk)
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        surcharges.owe(booking, 1500, reason=Surcharge.Reason.WAITING, online=False, actor="driver")
    run_pending_jobs()
    assert booking.history.filter(message__contains="{number}", params__number=invoice.number).exists()
    alert = next(message for message in mailoutbox if "invoice it by hand" in message.body)
    assert invoice.number in alert.body
    assert booking.reference in alert.subject + alert.body
    assert Invoice.objects.values().get(pk=invoice.pk) == before  # the issued invoice is never changed
