"""The documents of billing after the ride: waiting time and a no-show fee paid get a
supplementary invoice, what a no-show gives back gets a credit note, a waived charge gets nothing; the
booking's documents add up to what was paid. The rides and Stripe are those of test_ride_billing.py."""

from decimal import Decimal

import pytest
from django.db import transaction

from booking.models import Booking, CancellationPolicy
from invoicing import invoices
from invoicing.models import CreditNote, Invoice
from payments import document_balance
from payments.models import Surcharge
from tests.dispatch import test_ride_billing as billing
from tests.dispatch.test_ride_billing import no_show, ride_with_wait
from tests.invoicing.test_credit_notes import pdf_text

pytestmark = pytest.mark.django_db
stripe, assigned, paid_at_stripe = billing.stripe, billing.assigned, billing.paid_at_stripe  # the fixtures


def invoiced(booking: Booking) -> Booking:
    with transaction.atomic():
        invoices.issue(booking)
    return booking


def adds_up(booking: Booking) -> document_balance.Balance:
    booking.refresh_from_db()
    balance = document_balance.balance(booking)
    assert balance.adds_up, balance
    return balance


def test_waiting_time_paid_online_gets_a_supplementary_invoice(
    client, fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks
):
    booking = invoiced(paid_at_stripe())
    ride_invoice = Invoice.objects.get()
    booking = ride_with_wait(booking, fleet["karl"], on_board=31, capture=django_capture_on_commit_callbacks)
    owed = Surcharge.objects.get()
    assert Invoice.objects.count() == 1  # owed, not paid: nothing invoiced yet
    stripe.pay(client, owed.provider_session_id)
    extra = Invoice.objects.get(kind="supplementary")
    assert (extra.surcharge, extra.gross_cents, extra.vat_cents, extra.net_cents) == (owed, 2400, 218, 2182)
    text = pdf_text(extra)
    for printed in (
        f"Invoice {extra.number}",
        f"Supplementary to invoice {ride_invoice.number} of",
        f"Booking reference: {booking.reference}",
        "Waiting time beyond what was included €24.00",
        "Net amount €21.82",
        "VAT 10 % €2.18",
        "Total amount €24.00",
    ):
        assert printed in text, printed
    assert adds_up(booking).invoiced_cents == 7400 + 2400


def test_waiting_time_collected_by_staff_gets_a_german_supplementary_invoice_and_waived_gets_none(
    admin_client, fleet, assigned, django_capture_on_commit_callbacks, sandbox
):
    booking = invoiced(assigned(payment_method="invoice", payment_provider="none", locale="de"))
    booking = ride_with_wait(booking, fleet["karl"], on_board=31, capture=django_capture_on_commit_callbacks)
    owed = Surcharge.objects.get()
    act = f"/admin/booking/booking/{booking.pk}/do/charge-collected/"
    assert admin_client.post(act, {"surcharge": owed.pk}).status_code == 302
    extra = Invoice.objects.get(kind="supplementary")
    text = pdf_text(extra)
    assert "Wartezeit über die inkludierte Zeit hinaus 24,00 €" in text and "USt 10 % 2,18 €" in text
    assert "Nachtrag zur Rechnung" in text
    adds_up(booking)


def test_a_waived_waiting_charge_gets_no_document(
    admin_client, fleet, assigned, django_capture_on_commit_callbacks, sandbox
):
    booking = invoiced(assigned(payment_method="invoice", payment_provider="none"))
    booking = ride_with_wait(booking, fleet["karl"], on_board=31, capture=django_capture_on_commit_callbacks)
    owed = Surcharge.objects.get()
    admin_client.post(f"/admin/booking/booking/{booking.pk}/do/charge-waived/", {"surcharge": owed.pk})
    assert Surcharge.objects.get().status == "waived"
    assert Invoice.objects.count() == 1 and not CreditNote.objects.exists()
    adds_up(booking)


def test_what_a_no_show_gives_back_gets_a_credit_note(
    fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks
):
    CancellationPolicy.objects.update_or_create(pk=1, defaults={"no_show_fee_percent": Decimal("50")})
    booking = invoiced(paid_at_stripe(locale="de"))
    booking = no_show(booking, fleet["karl"], capture=django_capture_on_commit_callbacks)
    note = CreditNote.objects.get()
    assert (note.gross_cents, note.vat_cents, note.reason, note.invoice.kind) == (3700, 336, "refund", "ride")
    text = pdf_text(note)
    assert f"Gutschrift {note.number}" in text and f"Korrigiert Rechnung {note.invoice.number}" in text
    assert "Gutschrift gesamt 37,00 €" in text and "USt 10 % 3,36 €" in text
    assert adds_up(booking).documented_cents == 3700


def test_a_no_show_fee_paid_online_gets_a_supplementary_invoice(
    client, fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks
):
    booking = invoiced(paid_at_stripe())
    Booking.objects.filter(pk=booking.pk).update(amount_cents=9000)  # a change not yet paid for
    booking = no_show(booking, fleet["karl"], capture=django_capture_on_commit_callbacks)
    owed = Surcharge.objects.get()
    stripe.pay(client, owed.provider_session_id)
    extra = Invoice.objects.get(kind="supplementary")
    assert (extra.surcharge, extra.gross_cents) == (owed, 1600)
    assert "No-show fee €16.00" in pdf_text(extra)
    assert adds_up(booking).invoiced_cents == 9000
