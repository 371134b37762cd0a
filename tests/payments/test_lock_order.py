"""One lock order for money (docs/operations/payments.md): the booking row first, then its price differences
and refunds. A provider's news about a price difference's page and staff's waive of it, at the same time,
on two PostgreSQL connections: with the webhook locking the difference before the booking, the two
deadlocked and PostgreSQL killed one of them."""

import threading
from datetime import timedelta

import pytest
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from booking import selectors
from booking.models import Booking
from payments import ledger, payment_updates, refunds, surcharges
from payments.models import Refund, Surcharge
from payments.providers import payment_provider
from tests.payments import ledger_rows
from tests.payments.ledger_rows import received_cents

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
SESSION = "sbx_cs_lockorder"


def waiting_on_a_lock(cursor) -> bool:
    cursor.execute("SELECT pg_stat_clear_snapshot()")  # else a transaction reads its first snapshot again
    cursor.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
    )
    return cursor.fetchone()[0] > 0


def open_difference(make_booking) -> tuple[Booking, Surcharge]:
    booking = make_booking(
        status="confirmed",
        paid_at=timezone.now(),
        payment_intent_id="sbx_pi_own",
        pickup_at=timezone.now() + timedelta(days=2),
    )
    owed = Surcharge.objects.create(
        booking=booking,
        amount_cents=4200,
        currency="EUR",
        payment_url="https://chauffeur.test/booking/sandbox/x",
    )
    ledger_rows.link_page(owed, SESSION)
    return booking, owed


def side_by_side(first, second) -> list[BaseException]:
    """`first` takes the booking's lock and, once `second` waits on a lock, goes on; what each raised."""
    failures: list[BaseException] = []
    first_holds_booking = threading.Event()

    def run(work):
        try:
            work(first_holds_booking)
        except BaseException as failure:  # a deadlock is what the test looks for
            failures.append(failure)
        finally:
            connections.close_all()  # this thread's own connection, so the test database can be dropped

    threads = [threading.Thread(target=run, args=(work,)) for work in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return failures


def test_the_webhook_of_a_difference_and_staffs_waive_never_deadlock(make_booking, settings):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite takes no row locks (one writer at a time): the deadlock is PostgreSQL's")
    settings.PAYMENT_PROVIDER, settings.PUBLIC_BASE_URL = "sandbox", "https://chauffeur.test"
    booking, owed = open_difference(make_booking)
    paid = payment_provider().pay_event(
        session_id=SESSION, reference=booking.reference, amount_cents=4200, currency="EUR"
    )

    def staff_waive(holds_booking: threading.Event) -> None:
        with transaction.atomic():
            selectors.locked_booking(booking.pk)  # what waive does first, held until the webhook waits
            holds_booking.set()
            with connection.cursor() as cursor:
                for _ in range(200):
                    if waiting_on_a_lock(cursor):
                        break
                    threading.Event().wait(0.05)
            surcharges.waive(booking.pk, owed.pk, actor="eva (staff)")

    def webhook(holds_booking: threading.Event) -> None:
        holds_booking.wait(10)
        payment_updates.apply_event(paid)

    assert side_by_side(staff_waive, webhook) == []
    owed.refresh_from_db()
    booking.refresh_from_db()
    # Waived first; the money that still came through the withdrawn link went back at once.
    assert owed.status == Surcharge.Status.WAIVED and owed.paid_at is not None
    assert received_cents(booking) == 7400 + 4200
    assert refunds.committed_cents(booking) == 4200
    assert Refund.objects.get().payment_intent_id == paid.session.payment_intent_id


def test_a_refunds_news_locks_the_booking_alone_though_it_looks_it_up_by_a_difference(make_booking):
    """Found by a price difference's payment in the ledger, the booking's row is locked, not a money row
    joined in the same statement (PostgreSQL's FOR UPDATE locks every joined row, in no order we choose)."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite takes no row locks: there is no FOR UPDATE to read")
    booking, owed = open_difference(make_booking)
    ledger_rows.received(
        booking, owed.amount_cents, kind="link", surcharge=owed, payment_intent_id="sbx_pi_difference"
    )
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        assert ledger.locked_booking_for_payment("sbx_pi_difference", None) == booking
    locking = [query["sql"] for query in queries if "FOR UPDATE" in query["sql"]]
    assert locking and all('FOR UPDATE OF "booking_booking"' in sql for sql in locking), locking
