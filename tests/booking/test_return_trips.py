"""Return trips on /api/v1 and MCP: the way back is a second ride of its own, checked out and paid with the
way out on one payment page; until paid the two move together, once paid each is cancelled and refunded on
its own. Against a Stripe that keeps its own books (tests/payments/fake_stripe.py)."""

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from apikit.errors import DomainError
from booking.links import manage_url
from booking.models import Booking
from dispatch import changes
from invoicing import invoice_pdf
from invoicing.models import CreditNote, Invoice
from payments import payment_updates
from payments.models import Payment, PaymentShare, ProcessedPaymentEvent, Refund
from payments.providers import payment_provider
from privacy import records
from tests.booking.test_checkout import post, ride, server_amount
from tests.conftest import assert_problem
from tests.payments import fake_stripe
from tests.payments.fake_stripe import FakeSession
from tests.payments.stripe_events import deliver, event_payload

pytestmark = pytest.mark.django_db

V1 = "/api/v1/checkout"


@pytest.fixture
def stripe(settings):
    with fake_stripe.installed(settings) as books:
        yield books


def way_back_at(days: int = 5) -> str:
    return (
        (timezone.localtime() + timedelta(days=days))
        .replace(hour=18, minute=30, second=0, microsecond=0)
        .isoformat()
    )


def in_hours(moment: str, hours: int) -> str:
    return (timezone.datetime.fromisoformat(moment) + timedelta(hours=hours)).isoformat()


def trip(**way_back) -> dict:
    return ride(wayBack={"pickupDatetime": way_back_at(), **way_back})


def trip_amount(client, data: dict) -> int:
    back = data["wayBack"]
    reversed_ride = {**data, "from": back.get("from") or data["to"], "to": back.get("to") or data["from"]}
    return server_amount(client, data) + server_amount(client, reversed_ride)


def check_out(client, agent, data: dict):
    return post(client, V1, {"amount": trip_amount(client, data), "bookingData": data}, **agent)


def test_a_return_trip_is_two_rides_on_one_payment_page(client, agent, stripe):
    data = trip(flightNumber="OS 88")
    response = check_out(client, agent, data)

    assert response.status_code == 201, response.content
    answer = response.json()
    way_out = Booking.objects.get(reference=answer["reference"])
    way_back = Booking.objects.get(reference=answer["wayBack"]["reference"])
    assert answer["wayBack"]["amount"] == way_back.amount_cents
    assert (way_back.origin, way_back.destination, way_back.flight_number) == (
        "Flughafen Wien",
        "Hotel Sacher",
        "OS 88",
    )
    assert (
        way_back.way_out == way_out
        and timezone.localtime(way_back.pickup_at).isoformat() == data["wayBack"]["pickupDatetime"]
    )
    assert (way_back.vehicle_class, way_back.email) == (way_out.vehicle_class, way_out.email)
    (session,) = stripe.sessions.values()
    assert session.amount == way_out.amount_cents + way_back.amount_cents
    (page,) = Payment.objects.all()
    assert sorted(page.shares.values_list("booking__reference", "amount_cents")) == sorted(
        [(way_out.reference, way_out.amount_cents), (way_back.reference, way_back.amount_cents)]
    )

    stripe.pay(client, session.id)

    (invoice,) = Invoice.objects.all()  # one payment, one invoice listing both rides
    assert (invoice.booking, invoice.gross_cents) == (way_out, session.amount)
    for booking in (way_out, way_back):
        booking.refresh_from_db()
        assert booking.status == "paid"
        shown = client.get(f"/api/v1/bookings/{booking.reference}", **agent).json()
        assert shown["returnTrip"] == {"wayOut": way_out.reference, "wayBack": way_back.reference}
        assert shown["paymentStatus"] == "paid"
    assert Payment.objects.get().state == "received" and stripe.net() == session.amount


def test_a_single_ride_answers_as_before(client, agent, stripe):
    data = ride()
    response = post(client, V1, {"amount": server_amount(client, data), "bookingData": data}, **agent)
    assert response.status_code == 201
    assert "wayBack" not in response.json()
    assert "returnTrip" not in client.get(f"/api/v1/bookings/{response.json()['reference']}", **agent).json()


def test_cancelling_the_way_back_refunds_its_share_and_keeps_the_way_out(client, agent, stripe):
    answer = check_out(client, agent, trip()).json()
    (session,) = stripe.sessions.values()
    stripe.pay(client, session.id)

    cancelled = post(client, f"/api/v1/bookings/{answer['wayBack']['reference']}/cancel", {}, **agent)

    assert cancelled.status_code == 200, cancelled.content
    way_out = Booking.objects.get(reference=answer["reference"])
    way_back = Booking.objects.get(reference=answer["wayBack"]["reference"])
    assert (way_out.status, way_back.status) == ("paid", "cancelled")
    assert stripe.refunded == {session.intent: way_back.amount_cents}  # free days ahead: all of its share
    (refund,) = Refund.objects.all()
    assert (refund.booking, refund.amount_cents, refund.payment.provider_session_id) == (
        way_back,
        way_back.amount_cents,
        session.id,
    )
    (note,) = CreditNote.objects.all()
    assert (note.booking, note.gross_cents) == (way_back, way_back.amount_cents)
    assert note.invoice == Invoice.objects.get(booking=way_out)  # its part of the trip's invoice
    assert note.content["reference"] == way_back.reference
    # the way out's terms are its own: its whole price may still come back
    terms = client.get(f"/api/v1/bookings/{way_out.reference}", **agent).json()["cancellation"]
    assert terms["refundEur"] * 100 == way_out.amount_cents


def test_an_unpaid_trip_is_cancelled_as_a_whole_and_its_page_closed(
    client, agent, stripe, django_capture_on_commit_callbacks
):
    answer = check_out(client, agent, trip()).json()

    with django_capture_on_commit_callbacks(execute=True):
        cancelled = post(client, f"/api/v1/bookings/{answer['wayBack']['reference']}/cancel", {}, **agent)

    assert cancelled.status_code == 200
    assert set(Booking.objects.values_list("status", flat=True)) == {"cancelled"}
    assert stripe.open_sessions() == [] and stripe.net() == 0


def test_an_expired_page_expires_both_rides(client, agent, stripe):
    check_out(client, agent, trip())
    (session,) = stripe.sessions.values()
    session.status = "expired"
    way_back = Booking.objects.get(way_out__isnull=False)

    payment_updates.reconcile(way_back, payment_provider)

    assert set(Booking.objects.values_list("status", flat=True)) == {"expired"}
    assert Payment.objects.get().state == "cancelled"


def test_staff_taking_the_money_pay_both_rides(
    client, agent, stripe, admin_user, django_capture_on_commit_callbacks
):
    answer = check_out(client, agent, trip()).json()
    way_back = Booking.objects.get(reference=answer["wayBack"]["reference"])

    with django_capture_on_commit_callbacks(execute=True):
        payment_updates.mark_paid(way_back.pk, method="cash", user=admin_user, actor="staff")

    assert set(Booking.objects.values_list("status", flat=True)) == {"paid"}
    assert sorted(
        PaymentShare.objects.filter(payment__kind="staff").values_list("amount_cents", flat=True)
    ) == sorted(Booking.objects.values_list("amount_cents", flat=True))
    assert stripe.open_sessions() == []


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"wayBack": {"pickupDatetime": ride()["pickupDatetime"]}}, "bookingData.wayBack"),
        ({"wayBack": {"to": "Hotel Sacher"}}, "bookingData.wayBack.pickupDatetime"),
        ({"bookingType": "hourly", "durationHours": 3, "wayBack": {"pickupDatetime": way_back_at()}}, None),
        ({"wayBack": {"pickupDatetime": way_back_at(), "stops": [{"address": "a|b"}]}}, None),
        # the way out waits 3 hours at a stop: a way back 2 hours after its pickup is before it arrives
        (
            {
                "stops": [{"address": "Stephansdom", "waitMinutes": 180}],
                "wayBack": {"pickupDatetime": in_hours(ride()["pickupDatetime"], 2)},
            },
            "bookingData.wayBack",
        ),
        ({"wayBack": {"pickupDatetime": way_back_at(), "from": "Hotel Sacher"}}, "bookingData.wayBack"),
    ],
    ids=[
        "before the way out arrives",
        "no pickup time",
        "an hourly hire",
        "a bad stop",
        "before the way out's stop is over",
        "a way back to where it starts",
    ],
)
def test_a_bad_way_back_is_refused_and_nothing_stored(client, agent, stripe, changes, field):
    data = ride(**changes)
    body = post(client, V1, {"amount": 14800, "bookingData": data}, **agent)

    problem = assert_problem(body, 400, "invalid_request", field)
    assert "wayBack" in problem["detail"], problem
    assert not Booking.objects.exists() and not stripe.sessions


def test_the_amount_of_one_ride_is_refused_with_the_trips(client, agent, stripe):
    data = trip()
    body = post(client, V1, {"amount": server_amount(client, data), "bookingData": data}, **agent)

    problem = assert_problem(body, 400, "amount_mismatch")
    assert problem["expectedAmount"] == trip_amount(client, data)
    assert not Booking.objects.exists()


def test_each_rides_page_and_confirmation_name_the_other(
    client, agent, stripe, mailoutbox, django_capture_on_commit_callbacks
):
    answer = check_out(client, agent, trip()).json()
    (session,) = stripe.sessions.values()
    with django_capture_on_commit_callbacks(execute=True):
        stripe.pay(client, session.id)
    way_out = Booking.objects.get(reference=answer["reference"])
    way_back = Booking.objects.get(reference=answer["wayBack"]["reference"])

    out_page = client.get(manage_url(way_out.reference).removeprefix("https://chauffeur.test"))
    back_page = client.get(manage_url(way_back.reference).removeprefix("https://chauffeur.test"))

    said = {
        way_out.reference: f"Die Rückfahrt, {way_back.reference}, beginnt am ",
        way_back.reference: f"Das ist die Rückfahrt zu {way_out.reference} (",
    }
    for page, booking, other in ((out_page, way_out, way_back), (back_page, way_back, way_out)):
        html = page.content.decode()
        assert page.status_code == 200 and said[booking.reference] in html, html
        assert manage_url(other.reference).replace("&", "&amp;") in html
        (mail,) = [m for m in mailoutbox if m.to == ["anna@example.com"] and booking.reference in m.subject]
        assert said[booking.reference] in mail.body
    success = client.get("/booking/success", {"session_id": session.id}).content.decode()
    assert "Ihre Hin- und Rückfahrt: zwei Fahrten, zusammen 148,00" in success, success
    # either ride's page downloads the one invoice of both; each confirmation carries it
    (invoice,) = Invoice.objects.all()
    downloads = []
    for booking in (way_out, way_back):
        token = parse_qs(urlsplit(manage_url(booking.reference)).query)["booking"][0]
        answer = client.get("/booking/manage/invoice.pdf", {"booking": token})
        assert answer.status_code == 200 and answer["Content-Type"] == "application/pdf"
        downloads.append(answer.content)
        (mail,) = [m for m in mailoutbox if m.to == ["anna@example.com"] and booking.reference in m.subject]
        assert [name for name, *_ in mail.attachments if name.endswith(".pdf")] == [invoice.file_name]
    assert downloads[0] == downloads[1] == invoice_pdf.render(invoice)


def test_staff_see_each_rides_other_on_its_back_office_page(client, agent, stripe, admin_client):
    answer = check_out(client, agent, trip()).json()
    way_out = Booking.objects.get(reference=answer["reference"])
    way_back = Booking.objects.get(reference=answer["wayBack"]["reference"])

    for booking, other, said in ((way_out, way_back, "Way back:"), (way_back, way_out, "Way back of")):
        page = admin_client.get(f"/admin/booking/booking/{booking.pk}/change/", HTTP_ACCEPT_LANGUAGE="en")
        cell = page.content.decode().split('id="return-trip">', 1)[1].split("</td>", 1)[0]
        assert said in cell and f'/admin/booking/booking/{other.pk}/change/">{other.reference}</a>' in cell


def paid_trip(client, agent, stripe) -> tuple[Booking, Booking, FakeSession]:
    answer = check_out(client, agent, trip()).json()
    (session,) = stripe.sessions.values()
    stripe.pay(client, session.id)
    return (
        Booking.objects.get(reference=answer["reference"]),
        Booking.objects.get(reference=answer["wayBack"]["reference"]),
        session,
    )


def refund_news(refund_id: str, amount: int, intent: str, reference: str | None, event: str) -> bytes:
    item = {
        "id": refund_id,
        "object": "refund",
        "amount": amount,
        "currency": "eur",
        "payment_intent": intent,
        "status": "succeeded",
        "metadata": {"reference": reference} if reference else {},
    }
    return event_payload("refund.updated", item, event)


def test_the_providers_news_of_a_rides_refund_lands_on_that_ride(client, agent, stripe):
    way_out, way_back, session = paid_trip(client, agent, stripe)
    post(client, f"/api/v1/bookings/{way_back.reference}/cancel", {}, **agent)
    refund = Refund.objects.get()

    news = refund_news(
        refund.provider_refund_id, refund.amount_cents, session.intent, way_back.reference, "e1"
    )
    assert deliver(client, news).status_code == 200

    assert ProcessedPaymentEvent.objects.get(event_id="e1").booking == way_back
    assert not way_out.history.filter(kind="refund").exists()


def test_a_refund_made_at_stripe_on_the_trips_payment_is_left_to_staff(
    client, agent, stripe, mailoutbox, django_capture_on_commit_callbacks
):
    _way_out, _way_back, session = paid_trip(client, agent, stripe)
    mailoutbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        assert deliver(client, refund_news("re_dash", 5000, session.intent, None, "e2")).status_code == 200

    assert not Refund.objects.exists()
    (alert,) = [mail for mail in mailoutbox if mail.to == ["dispatch@chauffeur.test"]]
    assert "names neither ride" in alert.body


def test_money_for_a_trip_one_of_whose_rides_was_cancelled_meanwhile_goes_back(
    client, agent, stripe, django_capture_on_commit_callbacks
):
    answer = check_out(client, agent, trip()).json()
    (session,) = stripe.sessions.values()
    Booking.objects.update(status="expired")  # the page expired, its news lost, then reopened at Stripe
    way_back = Booking.objects.get(reference=answer["wayBack"]["reference"])
    post(client, f"/api/v1/bookings/{way_back.reference}/cancel", {}, **agent)

    with django_capture_on_commit_callbacks(execute=True):
        stripe.pay(client, session.id)

    way_out = Booking.objects.get(reference=answer["reference"])
    way_back.refresh_from_db()
    assert (way_out.status, way_back.status) == ("expired", "cancelled")
    assert stripe.refunded == {session.intent: way_back.amount_cents}  # its share went back by itself
    assert Payment.objects.get().state == "received"


def test_staff_cannot_move_a_ride_out_of_the_trips_order(client, agent, stripe):
    way_out, way_back, _session = paid_trip(client, agent, stripe)

    with pytest.raises(DomainError, match="after the way out arrives"):
        changes.change_ride(
            way_out.pk, pickup=way_back.pickup_at, vehicle_class="executive", through_provider=True, actor="s"
        )
    with pytest.raises(DomainError, match="after the way out arrives"):
        changes.change_ride(
            way_back.pk, pickup=way_out.pickup_at, vehicle_class="executive", through_provider=True, actor="s"
        )
    assert [b.pickup_at for b in Booking.objects.order_by("pk")] == [way_out.pickup_at, way_back.pickup_at]


def test_the_sandbox_page_asks_and_takes_both_rides_price(client, agent, sandbox):
    answer = check_out(client, agent, trip()).json()
    way_out = Booking.objects.get(reference=answer["reference"])
    path = answer["url"].removeprefix("https://chauffeur.test")

    assert "148,00" in client.get(path).content.decode()
    client.post(path, {"action": "pay"})

    assert set(Booking.objects.values_list("status", flat=True)) == {"paid"}
    assert Payment.objects.get().amount_cents == way_out.amount_cents + answer["wayBack"]["amount"]


def test_a_way_out_waits_for_its_way_back_to_leave_the_records(client, agent, stripe):
    way_out, way_back, _session = paid_trip(client, agent, stripe)
    later = timezone.now() + timedelta(days=365 * 12)

    assert list(records.removable_bookings(later, 7)) == [way_back]
    way_back_id = way_back.pk
    records.remove_booking(way_back_id)
    assert not Booking.objects.filter(pk=way_back_id).exists()
    assert list(records.removable_bookings(later, 7)) == [Booking.objects.get(pk=way_out.pk)]
