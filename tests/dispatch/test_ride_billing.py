"""Billing after the ride (dispatch/ride_billing.py, payments/after_ride.py): waiting beyond what the price
includes, per started quarter hour at the tariff staff set, and the no-show fee of the cancellation
policy; settled through a payment link for a booking paid by checkout, recorded as owed for an invoice or
cash booking; the traveller told what and why; a provider failure keeps the chauffeur's move; staff undo
withdraws what is open. Stripe is faked at the HTTP boundary (tests/payments/fake_stripe.py)."""

from datetime import timedelta
from decimal import Decimal

import pytest
import responses
import time_machine
from django.core import mail
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from booking import ride
from booking.models import Booking, BookingEvent, BookingStatus, CancellationPolicy, RideState, RideStep
from dispatch import ride_billing, ride_day
from payments import after_ride
from payments.models import Refund, Surcharge
from pricing.quote import offered
from tests.admin_forms import change_form_data
from tests.dispatch.conftest import assign
from tests.payments.fake_stripe import FakeStripe
from tests.payments.ledger_rows import own_intent, paid_through_checkout, received_cents
from tests.payments.stripe_events import API, use_stripe
from tests.queued import run_pending_jobs

pytestmark = pytest.mark.django_db
BEFORE = (RideState.ACCEPTED, RideState.ON_THE_WAY)


@pytest.fixture
def stripe(settings):
    use_stripe(settings)
    settings.PUBLIC_BASE_URL = "https://chauffeur.test"
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield FakeStripe().install(mock)


@pytest.fixture
def assigned(fleet, ride):
    """A ride paid 74 EUR by checkout, assigned to Karl, pickup in three hours at a whole minute."""

    def make(**fields) -> Booking:
        pickup = (timezone.now() + timedelta(hours=3)).replace(second=0, microsecond=0)
        booking = ride(pickup=pickup, **fields)
        assign(booking, fleet["karl"], fleet["sedan"])
        booking.refresh_from_db()
        return booking

    return make


@pytest.fixture
def paid_at_stripe(assigned, stripe):
    def make(**fields) -> Booking:
        booking = assigned(payment_provider="stripe", **fields)
        session, intent = stripe.paid_booking(booking.reference, booking.amount_cents)
        paid_through_checkout(booking, session, intent)
        booking.refresh_from_db()
        return booking

    return make


def move(booking, state, at, driver):
    with time_machine.travel(at, tick=False):
        return ride_day.advance(booking.pk, state, driver=driver, actor=f"{driver.name} (chauffeur)")


def ride_with_wait(booking, driver, *, arrived=0, on_board, capture):
    """The ride's day with the chauffeur arriving `arrived` and the passenger on board `on_board` minutes
    after the pickup time; completed half an hour later, its jobs run as the worker would."""
    pickup = booking.pickup_at
    for state in BEFORE:
        move(booking, state, pickup - timedelta(minutes=40), driver)
    move(booking, RideState.ARRIVED, pickup + timedelta(minutes=arrived), driver)
    move(booking, RideState.ON_BOARD, pickup + timedelta(minutes=on_board), driver)
    with capture(execute=True):
        move(booking, RideState.COMPLETED, pickup + timedelta(minutes=on_board + 30), driver)
    booking.refresh_from_db()
    return booking


def no_show(booking, driver, *, capture, after=16):
    pickup = booking.pickup_at
    for state in BEFORE:
        move(booking, state, pickup - timedelta(minutes=40), driver)
    move(booking, RideState.ARRIVED, pickup - timedelta(minutes=5), driver)
    with capture(execute=True):
        move(booking, RideState.NO_SHOW, pickup + timedelta(minutes=after), driver)
    booking.refresh_from_db()
    return booking


def after_ride_mails():
    """The traveller's after-ride e-mails (the operator's copies left out)."""
    return [
        message for message in mail.outbox if message.subject.startswith(("After your ride", "Nach Ihrer"))
    ]


def payment_texts(booking) -> list[str]:
    events = booking.history.filter(kind=BookingEvent.Kind.PAYMENT).order_by("pk")
    return list(events.values_list("text", flat=True))


# --- waiting ------------------------------------------------------------------------------------------


def test_waiting_within_the_included_time_costs_nothing(
    fleet, assigned, django_capture_on_commit_callbacks, sandbox
):
    booking = ride_with_wait(
        assigned(), fleet["karl"], on_board=15, capture=django_capture_on_commit_callbacks
    )
    assert booking.status == BookingStatus.COMPLETED
    assert not Surcharge.objects.exists() and received_cents(booking) == 7400
    assert payment_texts(booking) == ["Waiting time 15 min, 15 min included: nothing to pay."]
    assert after_ride_mails() == []


def test_sixteen_minutes_beyond_are_two_started_quarter_hours_at_the_rate(
    fleet, assigned, django_capture_on_commit_callbacks, sandbox
):
    booking = ride_with_wait(
        assigned(), fleet["karl"], on_board=31, capture=django_capture_on_commit_callbacks
    )
    owed = Surcharge.objects.get()
    assert (owed.reason, owed.amount_cents, owed.status) == ("waiting", 2400, "pending")  # 2 × 12.00
    assert owed.payment_url.startswith("https://chauffeur.test/")  # the sandbox's hosted page
    assert payment_texts(booking)[:3] == [
        "Waiting time 31 min, 15 min included: 16 min beyond, 2 started × 15 min × 12.00 EUR = 24.00 EUR.",
        "Owed for waiting time: 24.00 EUR; a payment link follows by e-mail.",
        "Payment link for waiting time of 24.00 EUR sent.",
    ]
    [message] = after_ride_mails()
    assert message.to == ["anna@example.com"] and message.subject == f"After your ride {booking.reference}"
    body = message.body
    assert "Your chauffeur waited 31 minutes for you; 15 minutes are included in the price." in body
    assert "The 16 minutes beyond are charged at €12.00 per started 15 minutes:" in body
    assert "2 × €12.00 = €24.00 (including 10 % VAT, €2.18)." in body
    assert f"Please pay €24.00 here:\n\n{owed.payment_url}" in body


def test_waiting_counts_from_a_late_chauffeurs_arrival(
    fleet, assigned, django_capture_on_commit_callbacks, sandbox
):
    ride_with_wait(
        assigned(), fleet["karl"], arrived=20, on_board=35, capture=django_capture_on_commit_callbacks
    )
    assert not Surcharge.objects.exists()  # 15 min from the arrival: included


def test_a_pickup_at_a_flight_includes_an_hour(fleet, assigned, django_capture_on_commit_callbacks, sandbox):
    airport = {
        "origin": "Vienna International Airport (VIE), Schwechat, Austria",
        "destination": "Hotel Sacher",
    }
    within = ride_with_wait(
        assigned(flight_number="OS 123", **airport),
        fleet["karl"],
        on_board=60,
        capture=django_capture_on_commit_callbacks,
    )
    assert not within.surcharges.exists()
    beyond = ride_with_wait(
        assigned(flight_number="OS 124", **airport),
        fleet["karl"],
        on_board=61,
        capture=django_capture_on_commit_callbacks,
    )
    assert list(beyond.surcharges.values_list("amount_cents", flat=True)) == [1200]  # 1 started quarter
    assert "(at a pickup from flight OS 124)" in after_ride_mails()[0].body


def test_a_flight_number_on_a_ride_to_the_airport_includes_no_hour(
    fleet, assigned, django_capture_on_commit_callbacks, sandbox
):
    hotel = ride_with_wait(
        assigned(flight_number="OS 123", origin="Hotel Sacher", destination="Flughafen Wien (VIE)"),
        fleet["karl"],
        on_board=16,
        capture=django_capture_on_commit_callbacks,
    )
    assert list(hotel.surcharges.values_list("amount_cents", flat=True)) == [1200]  # 15 included, 1 beyond
    (statement,) = after_ride_mails()
    assert "15 minutes are included in the price." in statement.body and "OS 123" not in statement.body


def test_the_rate_staff_set_in_the_admin_is_used(
    fleet, assigned, admin_client, django_capture_on_commit_callbacks, sandbox
):
    from pricing.models import Tariff

    url = f"/admin/pricing/tariff/{Tariff.objects.get(vehicle_class__code='executive').pk}/change/"
    data = change_form_data(admin_client.get(url))
    data["waiting_rate"] = "20.00"
    with django_capture_on_commit_callbacks(execute=True):
        assert admin_client.post(url, data).status_code == 302
    ride_with_wait(assigned(), fleet["karl"], on_board=31, capture=django_capture_on_commit_callbacks)
    assert Surcharge.objects.get().amount_cents == 4000  # 2 × 20.00


def test_an_hourly_hire_bills_no_waiting(fleet, assigned, django_capture_on_commit_callbacks, sandbox):
    booking = ride_with_wait(
        assigned(booking_type="hourly", duration_hours=Decimal("3")),
        fleet["karl"],
        on_board=45,
        capture=django_capture_on_commit_callbacks,
    )
    assert not Surcharge.objects.exists() and payment_texts(booking) == []


def test_a_ride_priced_as_an_offer_bills_no_waiting(
    fleet, assigned, django_capture_on_commit_callbacks, sandbox
):
    """Staff's offer priced the whole ride (its lines may say "with waiting"): the tariff adds nothing."""
    booked = assigned()
    offer = offered(
        booked.vehicle_class, [("Transfer as offered, with waiting", Decimal("74.00"))], Decimal("0.1")
    )
    Booking.objects.filter(pk=booked.pk).update(quote_record=offer.as_record())
    booked.refresh_from_db()
    booking = ride_with_wait(booked, fleet["karl"], on_board=45, capture=django_capture_on_commit_callbacks)
    assert booking.status == BookingStatus.COMPLETED
    assert not Surcharge.objects.exists() and payment_texts(booking) == []


@pytest.mark.parametrize("method", ["invoice", "cash"])
def test_an_invoice_or_cash_booking_gets_an_owed_record_staff_collect(
    fleet, assigned, admin_client, django_capture_on_commit_callbacks, sandbox, method
):
    booking = ride_with_wait(
        assigned(payment_method=method, payment_provider="none"),
        fleet["karl"],
        on_board=31,
        capture=django_capture_on_commit_callbacks,
    )
    owed = Surcharge.objects.get()
    assert (owed.amount_cents, owed.status, owed.method, owed.payment_url) == (2400, "pending", "manual", "")
    assert "Owed for waiting time: 24.00 EUR; to be collected by staff." in payment_texts(booking)
    body = after_ride_mails()[0].body
    said = "We will invoice you €24.00." if method == "invoice" else "Please settle €24.00 in cash"
    assert said in body and "Please pay" not in body

    page = admin_client.get(f"/admin/booking/booking/{booking.pk}/change/").content.decode()
    assert "Waiting time" in page and "owed: collect it" in page and "charge-collected" in page
    act = f"/admin/booking/booking/{booking.pk}/do/charge-collected/"
    assert admin_client.post(act, {"surcharge": owed.pk}).status_code == 302
    owed.refresh_from_db()
    booking.refresh_from_db()
    assert (owed.status, received_cents(booking)) == ("paid", 7400 + 2400)
    assert "Collected by staff for waiting time: 24.00 EUR." in payment_texts(booking)
    before = (Surcharge.objects.get().status, received_cents(Booking.objects.get()))
    assert admin_client.post(act, {"surcharge": owed.pk}, follow=True).status_code == 200  # twice: refused
    assert admin_client.post(act, {"surcharge": "x"}).status_code == 404
    assert (Surcharge.objects.get().status, received_cents(Booking.objects.get())) == before


def test_staff_waive_an_owed_amount(
    fleet, assigned, admin_client, django_capture_on_commit_callbacks, sandbox
):
    booking = ride_with_wait(
        assigned(payment_method="invoice", payment_provider="none"),
        fleet["karl"],
        on_board=31,
        capture=django_capture_on_commit_callbacks,
    )
    owed = Surcharge.objects.get()
    act = f"/admin/booking/booking/{booking.pk}/do/charge-waived/"
    assert admin_client.post(act, {"surcharge": owed.pk}).status_code == 302
    owed.refresh_from_db()
    assert owed.status == "waived" and received_cents(Booking.objects.get()) == 7400
    assert "Waived (waiting time): 24.00 EUR." in payment_texts(booking)


def test_the_traveller_reads_it_in_german(fleet, assigned, django_capture_on_commit_callbacks, sandbox):
    ride_with_wait(
        assigned(locale="de", payment_method="invoice", payment_provider="none"),
        fleet["karl"],
        on_board=31,
        capture=django_capture_on_commit_callbacks,
    )
    [message] = [message for message in mail.outbox if message.subject.startswith("Nach Ihrer Fahrt")]
    assert (
        "Ihr Chauffeur hat 31 Minuten auf Sie gewartet; 15 Minuten sind im Preis enthalten." in message.body
    )
    assert "2 × 12,00\xa0€ = 24,00\xa0€ (inkl. 10 % USt. 2,18\xa0€)." in message.body
    assert "Wir stellen Ihnen 24,00\xa0€ in Rechnung." in message.body


# --- no-show ------------------------------------------------------------------------------------------


def test_a_no_show_at_100_percent_keeps_what_was_paid_and_tells_the_traveller(
    fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks
):
    booking = no_show(paid_at_stripe(), fleet["karl"], capture=django_capture_on_commit_callbacks)
    assert booking.status == BookingStatus.COMPLETED
    assert stripe.refunded == {} and not Refund.objects.exists() and not Surcharge.objects.exists()
    assert (
        "No-show fee 100 % of 74.00 EUR = 74.00 EUR; paid 74.00 EUR: 0.00 EUR to give back, 0.00 EUR owed."
        in (payment_texts(booking))
    )
    body = after_ride_mails()[0].body
    assert "a no-show costs 100 % of the price of €74.00: €74.00." in body
    assert "There is nothing more to pay." in body and "goes back" not in body


def test_a_no_show_at_50_percent_gives_the_rest_back_through_stripe(
    fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks
):
    CancellationPolicy.objects.update_or_create(pk=1, defaults={"no_show_fee_percent": Decimal("50")})
    booking = no_show(paid_at_stripe(), fleet["karl"], capture=django_capture_on_commit_callbacks)
    [refund] = Refund.objects.all()
    assert (refund.amount_cents, refund.method, refund.status) == (3700, "provider", "succeeded")
    assert stripe.refunded == {own_intent(booking): 3700} and stripe.net() == 3700
    body = after_ride_mails()[0].body
    assert "a no-show costs 50 % of the price of €74.00: €37.00." in body
    assert "Of the €74.00 you paid, €37.00 goes back to you the way you paid." in body
    run_pending_jobs()  # a second run of anything left gives nothing back twice
    assert stripe.refunded == {own_intent(booking): 3700}


def test_a_no_show_on_an_invoice_booking_leaves_the_rest_owed_by_staff(
    fleet, assigned, django_capture_on_commit_callbacks, sandbox
):
    CancellationPolicy.objects.update_or_create(pk=1, defaults={"no_show_fee_percent": Decimal("50")})
    booking = no_show(
        assigned(payment_method="invoice", payment_provider="none"),
        fleet["karl"],
        capture=django_capture_on_commit_callbacks,
    )
    [refund] = booking.refunds.all()
    assert (refund.amount_cents, refund.method, refund.status) == (3700, "manual", "pending")


def test_a_no_show_fee_above_what_was_received_is_asked_for(
    fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks
):
    booking = paid_at_stripe()
    Booking.objects.filter(pk=booking.pk).update(amount_cents=9000)  # a change not yet paid for
    booking = no_show(booking, fleet["karl"], capture=django_capture_on_commit_callbacks)
    owed = Surcharge.objects.get()
    assert (owed.reason, owed.amount_cents, owed.status) == ("no_show", 1600, "pending")
    assert stripe.sessions[owed.provider_session_id].amount == 1600
    assert f"Please pay €16.00 here:\n\n{owed.payment_url}" in after_ride_mails()[0].body


# --- failures, undo, refusals ---------------------------------------------------------------------------


def test_a_provider_failure_keeps_the_move_and_shows_the_problem(
    fleet, assigned, settings, django_capture_on_commit_callbacks
):
    use_stripe(settings)
    booking = assigned(payment_provider="stripe")
    with responses.RequestsMock() as down:
        down.add(responses.POST, f"{API}/v1/checkout/sessions", status=500, json={"error": {"message": "x"}})
        booking = ride_with_wait(
            booking, fleet["karl"], on_board=31, capture=django_capture_on_commit_callbacks
        )
    assert booking.status == BookingStatus.COMPLETED
    assert ride.progress(booking).state == RideState.COMPLETED  # the chauffeur's move is kept
    owed = Surcharge.objects.get()
    assert (owed.amount_cents, owed.status, owed.payment_url) == (2400, "pending", "")
    failed = [text for text in payment_texts(booking) if text.startswith("Billing after the ride")]
    assert len(failed) == 1 and "it is tried again" in failed[0]
    assert after_ride_mails() == []
    assert any("billing after the ride failed" in message.body for message in mail.outbox)  # the operator
    job = DBTaskResult.objects.get(task_path="payments.tasks.settle_after_ride")
    assert job.status == "READY" and job.run_after > timezone.now()  # tried again after its backoff

    later = time_machine.travel(job.run_after + timedelta(seconds=1))
    with later, responses.RequestsMock(assert_all_requests_are_fired=False) as up:
        FakeStripe().install(up)
        run_pending_jobs()
    owed.refresh_from_db()
    assert owed.payment_url.startswith("https://checkout.stripe.test/")
    assert len(after_ride_mails()) == 1


def test_undo_withdraws_the_open_charge(fleet, paid_at_stripe, stripe, django_capture_on_commit_callbacks):
    booking = ride_with_wait(
        paid_at_stripe(), fleet["karl"], on_board=31, capture=django_capture_on_commit_callbacks
    )
    owed = Surcharge.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        ride_day.undo_last(booking.pk, actor="eva (staff)")
    owed.refresh_from_db()
    assert owed.status == "waived" and stripe.sessions[owed.provider_session_id].status == "expired"
    assert "Waived (waiting time): 24.00 EUR; the end of the ride was undone." in payment_texts(booking)
    assert Booking.objects.get().status == BookingStatus.CONFIRMED


def test_a_move_undone_before_its_billing_ran_is_billed_no_more(
    fleet, assigned, django_capture_on_commit_callbacks, sandbox
):
    booking = assigned()
    pickup = booking.pickup_at
    for state, minutes in [
        *((state, -40) for state in BEFORE),
        (RideState.ARRIVED, 0),
        (RideState.ON_BOARD, 31),
    ]:
        move(booking, state, pickup + timedelta(minutes=minutes), fleet["karl"])
    move(booking, RideState.COMPLETED, pickup + timedelta(minutes=60), fleet["karl"])  # its job waits
    ride_day.undo_last(booking.pk, actor="eva (staff)")
    run_pending_jobs()
    assert Surcharge.objects.get().status == "waived" and after_ride_mails() == []


def test_a_refused_no_show_bills_nothing(fleet, assigned, django_capture_on_commit_callbacks, sandbox):
    booking = assigned()
    pickup = booking.pickup_at
    for state in BEFORE:
        move(booking, state, pickup - timedelta(minutes=40), fleet["karl"])
    move(booking, RideState.ARRIVED, pickup, fleet["karl"])
    before = (booking.history.count(), DBTaskResult.objects.count())
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(ride_day.RideMoveRefused):
        move(booking, RideState.NO_SHOW, pickup + timedelta(minutes=10), fleet["karl"])
    assert not Surcharge.objects.exists() and not Refund.objects.exists()
    assert (booking.history.count(), DBTaskResult.objects.count()) == before


def test_a_provider_failure_is_told_to_staff_once_per_move(fleet, assigned, sandbox):
    booking = assigned()
    step = RideStep.objects.create(booking=booking, state=RideState.COMPLETED, at=timezone.now(), actor="x")
    for _attempt in range(3):
        after_ride._tell_staff_once(booking.pk, step.pk, ValueError("down"))
    assert len([text for text in payment_texts(booking) if "tried again" in text]) == 1


# --- the waiting charge as a rule -------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(minutes=st.integers(min_value=0, max_value=6 * 60), more=st.integers(min_value=0, max_value=120))
def test_the_waiting_charge_is_monotonic_and_free_up_to_the_included_time(make_booking, minutes, more):
    booking = make_booking(pickup_at=timezone.now())
    less = ride_billing.price_waiting(booking, timedelta(minutes=minutes))
    longer = ride_billing.price_waiting(booking, timedelta(minutes=minutes + more, seconds=59))
    assert longer.amount >= less.amount >= 0
    if minutes <= less.included_minutes:
        assert less.amount == 0
    assert less.amount == less.blocks * less.rate and less.blocks * 15 >= less.beyond_minutes


def test_seconds_beyond_a_whole_minute_are_not_billed(make_booking):
    booking = make_booking(pickup_at=timezone.now())
    assert ride_billing.price_waiting(booking, timedelta(minutes=15, seconds=59)).amount == 0
    priced = ride_billing.price_waiting(booking, timedelta(minutes=46))
    assert (priced.beyond_minutes, priced.blocks, priced.amount, priced.vat) == (
        31,
        3,
        Decimal("36.00"),
        Decimal("3.27"),
    )
