"""A company's payment on account is money in the ledger (payments/account_payments.py): a received payment
of kind "account", at the start of the day the bank received it (Vienna), recorded by its staff, shared
over the collective invoice's rides, the oldest first, never beyond what a ride still owes, each ride's
history saying what it received; a refused one writes nothing; the rides are locked (by pk) before the invoice. Its rides count it as received, but it is
no ride's to refund. As a property: over any sequence of payments, each one's shares add up to its amount,
no ride gets more than its line, and the invoice is paid exactly when every ride is."""

from datetime import date

import pytest
import time_machine
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apikit.errors import DomainError
from booking import history
from booking.models import Booking, BookingEvent
from invoicing.models import Invoice
from payments import account_payments, collective_invoices, ledger
from payments.models import AccountPayment, Payment, PaymentShare
from tests.corporate.conftest import vienna

pytestmark = pytest.mark.django_db
OCTOBER = date(2026, 10, 1)


def issued(acme) -> Invoice:
    with time_machine.travel(vienna(2026, 11, 2, 8, 0), tick=False):
        invoice, created = collective_invoices.issue(acme, OCTOBER)
    assert created and invoice is not None
    return invoice


@pytest.fixture
def invoice(acme, on_account) -> Invoice:
    """Three rides of 74 EUR: CB-LATE picked up last though made first, CB-B and CB-A at the same time."""
    on_account(acme, vienna(2026, 10, 9, 9, 0), reference="CB-LATE")
    on_account(acme, vienna(2026, 10, 5, 9, 0), reference="CB-B")
    on_account(acme, vienna(2026, 10, 5, 9, 0), reference="CB-A")
    made = issued(acme)
    assert made.gross_cents == 3 * 7400
    return made


def shares(payment: Payment) -> list[tuple[str, int]]:
    return list(payment.shares.order_by("pk").values_list("booking__reference", "amount_cents"))


def test_a_payment_is_a_received_payment_shared_oldest_ride_first(invoice):
    clara = User.objects.create_user("clara")
    first = account_payments.record(
        invoice.pk, amount_cents=10000, received_on=date(2026, 11, 9), note="part", user=clara
    )
    payment = first.payment
    assert (payment.kind, payment.state, payment.amount_cents, payment.recorded_by) == (
        Payment.Kind.ACCOUNT,
        Payment.State.RECEIVED,
        10000,
        clara,
    )
    assert payment.received_at == vienna(2026, 11, 9, 0, 0)
    assert (first.received_on, first.amount_cents, first.note) == (date(2026, 11, 9), 10000, "part")
    assert shares(payment) == [("CB-A", 7400), ("CB-B", 2600)]
    second = account_payments.record(invoice.pk, amount_cents=8000, received_on=date(2026, 11, 10))
    assert shares(second.payment) == [("CB-B", 4800), ("CB-LATE", 3200)]
    assert account_payments.standing(invoice).open_cents == 4200


def test_its_rides_received_it_but_may_not_refund_it(invoice):
    account_payments.record(invoice.pk, amount_cents=10000, received_on=date(2026, 11, 9))
    rides = {ride.reference: ride for ride in Booking.objects.all()}
    assert {ref: ledger.received_cents(ride) for ref, ride in rides.items()} == {
        "CB-A": 7400,
        "CB-B": 2600,
        "CB-LATE": 0,
    }
    assert [ledger.refundable_cents(ride) for ride in rides.values()] == [0, 0, 0]
    assert [ledger.open_payments(ride, provider_only=False) for ride in rides.values()] == [[], [], []]
    assert ledger.own_payment(rides["CB-A"]) is None
    assert [share.payment.kind for share in ledger.shares_of(rides["CB-A"])] == [Payment.Kind.ACCOUNT]


def test_each_rides_history_says_what_of_the_payment_it_received(invoice):
    clara = User.objects.create_user("clara")
    account_payments.record(invoice.pk, amount_cents=10000, received_on=date(2026, 11, 9), user=clara)
    account_payments.record(invoice.pk, amount_cents=500, received_on=date(2026, 11, 10))
    lines = list(BookingEvent.objects.filter(kind=BookingEvent.Kind.PAYMENT).order_by("pk"))
    on_invoice = f"part of the company's payment on collective invoice {invoice.number}."
    assert [(line.booking.reference, line.text, line.actor) for line in lines] == [
        ("CB-A", f"Received 74.00 EUR on account, {on_invoice}", "clara (staff)"),
        ("CB-B", f"Received 26.00 EUR on account, {on_invoice}", "clara (staff)"),
        ("CB-B", f"Received 5.00 EUR on account, {on_invoice}", "staff"),
    ]
    with translation.override("de"):
        assert history.wording(lines[0]) == (
            f"74,00\u00a0€ auf Rechnung erhalten, Teil der Zahlung der Firma zur Sammelrechnung {invoice.number}."
        )


def test_a_refused_payment_writes_nothing(invoice):
    account_payments.record(invoice.pk, amount_cents=22000, received_on=date(2026, 11, 9))
    before = list(PaymentShare.objects.values_list("pk", "amount_cents"))
    told = BookingEvent.objects.count()
    with pytest.raises(DomainError):
        account_payments.record(invoice.pk, amount_cents=201, received_on=date(2026, 11, 9))
    assert Payment.objects.count() == AccountPayment.objects.count() == 1
    assert list(PaymentShare.objects.values_list("pk", "amount_cents")) == before
    assert BookingEvent.objects.count() == told


def test_recording_locks_the_rides_in_pk_order_before_the_invoice(invoice):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite takes no row locks")
    with CaptureQueriesContext(connection) as queries:
        account_payments.record(invoice.pk, amount_cents=100, received_on=date(2026, 11, 9))
    locking = [query["sql"] for query in queries if "FOR UPDATE" in query["sql"]]
    rides, invoices = Booking._meta.db_table, Invoice._meta.db_table
    assert len(locking) == 2, locking
    assert locking[0].startswith('SELECT "' + rides + '"."id"'), locking
    assert locking[0].endswith("ORDER BY 1 ASC FOR UPDATE"), locking  # by pk, the column selected
    assert f'FROM "{invoices}"' in locking[1], locking


def test_the_staff_page_of_a_ride_shows_the_payment_on_account(invoice, admin_client):
    account_payments.record(invoice.pk, amount_cents=10000, received_on=date(2026, 11, 9))
    ride = Booking.objects.get(reference="CB-B")
    page = admin_client.get(f"/admin/booking/booking/{ride.pk}/change/", HTTP_ACCEPT_LANGUAGE="en")
    text = page.content.decode()
    assert "<td>09.11.2026 00:00 · €26.00 · payment on account · received</td>" in text
    assert "<tr><th>Received</th><td>€26.00</td></tr>" in text
    assert 'id="refund-form"' not in text  # nothing of it to give back


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    prices=st.lists(st.integers(1, 20000), min_size=1, max_size=4),
    amounts=st.lists(st.integers(1, 30000), min_size=1, max_size=6),
)
def test_any_payments_share_out_exactly_and_never_beyond_a_ride(prices, amounts, acme, on_account):
    with transaction.atomic():
        rollback = transaction.savepoint()
        for n, price in enumerate(prices):
            on_account(acme, vienna(2026, 10, 1 + n % 3, 9, 0), reference=f"CB-P{n}", amount_cents=price)
        invoice = issued(acme)
        lines = dict(invoice.lines.values_list("booking_id", "gross_cents"))
        for amount in amounts:
            open_before = account_payments.standing(invoice).open_cents
            rows_before = PaymentShare.objects.count()
            try:
                made = account_payments.record(invoice.pk, amount_cents=amount, received_on=date(2026, 11, 9))
            except DomainError:
                assert amount > open_before
                assert PaymentShare.objects.count() == rows_before
                continue
            assert sum(made.payment.shares.values_list("amount_cents", flat=True)) == amount
        received = {pk: ledger.received_cents(Booking.objects.get(pk=pk)) for pk in lines}
        assert all(received[pk] <= gross for pk, gross in lines.items())
        assert sum(received.values()) == account_payments.standing(invoice).paid_cents
        paid = account_payments.standing(invoice).status == "paid"
        assert paid == (received == lines)
        transaction.savepoint_rollback(rollback)
