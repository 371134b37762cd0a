"""The cancellation policy (booking/cancellation.py): free until N hours before the pickup, then a share of
the price, the whole price from the pickup on; hours are real elapsed time, so the free deadline is exact
across Vienna's daylight-saving changes; the same terms for staff, customers and agents."""

from datetime import datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.utils import timezone

from apikit.errors import DomainError
from booking.cancellation import CancellationRules, fee_percent, free_until
from booking.models import Booking, BookingEvent, BookingStatus, CancellationPolicy
from payments import cancellation
from payments.cancellation import terms
from payments.models import Refund

VIENNA = ZoneInfo("Europe/Vienna")
RULES = CancellationRules(free_before=timedelta(hours=24), late_fee_percent=Decimal("50"))


def vienna(*args) -> datetime:
    return datetime(*args, tzinfo=VIENNA)


# --- the rule, in Vienna time across the daylight-saving changes -------------------------------------------


def test_the_free_deadline_is_24_real_hours_before_a_pickup_after_the_spring_change():
    pickup = vienna(2026, 3, 29, 10, 0)  # the clocks went 02:00 → 03:00 that night: 23 hours after 10:00 CET
    deadline = free_until(RULES, pickup)
    assert deadline == vienna(2026, 3, 28, 9, 0) and deadline.utcoffset() == timedelta(hours=1)
    assert fee_percent(RULES, pickup=pickup, at=vienna(2026, 3, 28, 8, 59)) == 0
    assert (
        fee_percent(RULES, pickup=pickup, at=vienna(2026, 3, 28, 9, 0)) == 50
    )  # the deadline itself is late
    assert fee_percent(RULES, pickup=pickup, at=vienna(2026, 3, 28, 9, 30)) == 50  # wall clock says 24.5 h


def test_the_free_deadline_is_24_real_hours_before_a_pickup_after_the_autumn_change():
    pickup = vienna(2026, 10, 25, 10, 0)  # the clocks went 03:00 → 02:00 that night: 25 wall-clock hours
    deadline = free_until(RULES, pickup)
    assert deadline == vienna(2026, 10, 24, 11, 0) and deadline.utcoffset() == timedelta(hours=2)
    assert fee_percent(RULES, pickup=pickup, at=vienna(2026, 10, 24, 10, 30)) == 0  # wall clock says 23.5 h
    assert fee_percent(RULES, pickup=pickup, at=vienna(2026, 10, 24, 11, 0)) == 50


def test_a_pickup_inside_the_repeated_hour_is_told_apart_by_its_offset():
    first = datetime(2026, 10, 25, 2, 30, tzinfo=VIENNA)  # 02:30 CEST (fold 0)
    second = first.replace(fold=1)  # 02:30 CET, an hour later
    assert free_until(RULES, second) - free_until(RULES, first) == timedelta(hours=1)
    assert (free_until(RULES, first), free_until(RULES, second)) == (
        vienna(2026, 10, 24, 2, 30),
        vienna(2026, 10, 24, 3, 30),
    )
    at = vienna(2026, 10, 24, 3, 0)  # between the two deadlines
    assert (fee_percent(RULES, pickup=first, at=at), fee_percent(RULES, pickup=second, at=at)) == (50, 0)


def test_from_the_pickup_on_the_whole_price_is_kept_and_without_one_nothing():
    pickup = vienna(2026, 6, 1, 10, 0)
    assert fee_percent(RULES, pickup=pickup, at=pickup - timedelta(seconds=1)) == 50
    assert fee_percent(RULES, pickup=pickup, at=pickup) == 100
    assert fee_percent(RULES, pickup=None, at=pickup) == 0


# --- the terms of a booking ---------------------------------------------------------------------------------


@pytest.fixture
def paid(make_booking):
    def make(hours_ahead: float, **fields) -> Booking:
        pickup = timezone.now() + timedelta(hours=hours_ahead)
        return make_booking(
            status=BookingStatus.PAID,
            paid_at=timezone.now(),
            pickup_at=pickup,
            payment_intent_id="sbx_pi_1",
            email="anna@example.com",
            **fields,
        )

    return make


def test_terms_follow_the_policy_staff_edit(db, paid):
    booking = paid(30)  # 74.00 EUR, 30 hours ahead: free under the seeded 24 hours
    assert terms(booking) == cancellation.CancellationTerms(True, 0, 7400, terms(booking).free_until, None)
    CancellationPolicy.objects.filter(pk=1).update(free_until_hours=48, late_fee_percent=Decimal("33.33"))
    late = terms(booking)
    assert (late.fee_cents, late.refund_cents) == (2466, 4934)  # 33.33 % of 74.00, to the cent
    assert late.free_until == timezone.localtime(booking.pickup_at - timedelta(hours=48))


def test_an_unpaid_booking_costs_nothing_to_cancel(db, make_booking):
    booking = make_booking(pickup_at=timezone.now() + timedelta(hours=1))
    assert (terms(booking).allowed, terms(booking).fee_cents, terms(booking).refund_cents) == (True, 0, 0)


def test_customers_cannot_cancel_after_the_pickup_but_staff_can_at_the_same_terms(db, paid):
    booking = paid(-1)
    customer, staff = terms(booking), terms(booking, by_staff=True)
    assert (customer.allowed, customer.refusal) == (
        False,
        "The pickup time has passed: the booking can no longer be cancelled online.",
    )
    assert (staff.allowed, staff.fee_cents, staff.refund_cents) == (True, 7400, 0)


def test_what_was_refunded_already_is_not_refunded_again(db, paid):
    booking = paid(30)
    Refund.objects.create(booking=booking, amount_cents=1000, status="succeeded", method="manual")
    assert terms(booking).refund_cents == 6400


@pytest.mark.parametrize("state", [BookingStatus.COMPLETED, BookingStatus.CANCELLED])
def test_finished_bookings_cannot_be_cancelled(db, paid, state):
    booking = paid(30)
    Booking.objects.filter(pk=booking.pk).update(status=state)
    booking.refresh_from_db()
    assert terms(booking, by_staff=True).allowed is False


# --- cancelling -----------------------------------------------------------------------------------------------


def test_a_late_cancel_keeps_the_fee_refunds_the_rest_and_tells_everyone(
    db, paid, sandbox, settings, django_capture_on_commit_callbacks
):
    settings.OPERATOR_EMAIL = "dispatch@chauffeur.test"
    booking = paid(5, payment_provider="sandbox", locale="de")
    with django_capture_on_commit_callbacks(execute=True):
        cancellation.cancel(booking.pk, actor="customer")
    booking.refresh_from_db()
    assert (booking.status, booking.cancellation_fee_cents) == (BookingStatus.CANCELLED, 3700)
    assert booking.cancelled_at is not None
    refund = Refund.objects.get()
    assert (refund.amount_cents, refund.status, refund.method) == (3700, "succeeded", "provider")
    assert refund.provider_refund_id.startswith("sbx_re_")
    customer, operator = mail.outbox
    assert customer.to == ["anna@example.com"] and "storniert" in customer.subject
    assert "Stornogebühr:   37,00\xa0€" in customer.body and "Rückerstattung: 37,00\xa0€" in customer.body
    assert operator.subject == f"Cancelled booking {booking.reference}"
    kinds = list(BookingEvent.objects.filter(booking=booking).values_list("kind", "actor"))
    assert kinds == [("status", "customer"), ("refund", "customer")]


def test_cancelling_twice_changes_nothing_the_second_time(db, paid, sandbox):
    booking = paid(30, payment_provider="sandbox")
    cancellation.cancel(booking.pk, actor="customer")
    again = cancellation.cancel(booking.pk, actor="customer")
    assert again.status == BookingStatus.CANCELLED
    assert Refund.objects.count() == 1 and BookingEvent.objects.filter(kind="status").count() == 1


def test_a_refused_cancel_changes_nothing(db, paid, sandbox):
    booking = paid(-1, payment_provider="sandbox")
    with pytest.raises(DomainError) as refused:
        cancellation.cancel(booking.pk, actor="customer")
    assert refused.value.code == "not_cancellable"
    booking.refresh_from_db()
    assert (booking.status, booking.cancelled_at) == (BookingStatus.PAID, None)
    assert not Refund.objects.exists() and not BookingEvent.objects.exists()


def test_money_not_paid_online_is_owed_back_by_staff(db, paid, sandbox):
    booking = paid(30, payment_method="cash")
    cancellation.cancel(booking.pk, actor="customer")
    refund = Refund.objects.get()
    assert (refund.amount_cents, refund.status, refund.method) == (7400, "pending", "manual")


def test_staff_edit_the_policy_in_the_admin_and_the_message_names_the_change(admin_client, paid):
    from tests.admin_forms import change_form_data

    url = "/admin/booking/cancellationpolicy/1/change/"
    data = change_form_data(admin_client.get(url))
    data["late_fee_percent"] = "40"
    response = admin_client.post(url, data, follow=True)
    (message,) = [str(message) for message in response.context["messages"]]
    assert message.endswith("Late fee (% of the price): 50.00 → 40.00.")
    assert terms(paid(5)).fee_cents == 2960  # 40 % of 74.00
    assert admin_client.get("/admin/booking/cancellationpolicy/add/").status_code == 403  # one record only
