"""Staff answer a quote request with an offer: lines they price in the back office, a class, a validity; the
traveller gets it by e-mail with a link, and the page it opens books the trip at that price and opens the
payment page only when they click. Paid, it is a booking like any other (its invoice prints the offer's
lines, staff may move its pickup but the tariff never prices it again); an expired, withdrawn, forged or
already accepted offer books nothing."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
import responses
import time_machine
from django.core import mail
from django.utils import timezone

from apikit.errors import DomainError
from booking.links import cancel_url
from booking.models import Booking, BookingStatus
from dispatch import changes
from invoicing.models import Invoice
from payments import cancellation as cancelling
from payments import ledger
from privacy import traveller_data
from quote_requests.models import QuoteRequest
from tests.booking.test_on_account import pdf_text
from tests.mcp_endpoint.mcp import call, output_validator, tool_result
from tests.payments.fake_stripe import FakeStripe
from tests.payments.stripe_events import use_stripe
from tests.queued import run_pending_jobs
from tests.quote_requests.test_quote_requests import asked, post

pytestmark = pytest.mark.django_db

LINES = [("Business van, Vienna – Salzburg, with waiting", "890.00"), ("Motorway toll and parking", "35.50")]


@pytest.fixture
def request_asked(client, agent, sandbox) -> QuoteRequest:
    response = post(client, asked(passengers=6, luggage=6, locale="de"), agent)
    assert response.status_code == 201, response.content
    run_pending_jobs()
    mail.outbox.clear()
    return QuoteRequest.objects.get()


def priced_by_staff(
    admin_client, request: QuoteRequest, *, lines=LINES, valid_days=7, vehicle="business-van", status=None
):
    """Staff fill in the offer on the request's page, as the admin's form posts it."""
    form = {
        "status": status or QuoteRequest.objects.get(pk=request.pk).status,
        "staff_note": "",
        "offer_vehicle_class": vehicle,
        "offer_valid_until": (timezone.localdate() + timedelta(days=valid_days)).isoformat(),
        "offer_lines-TOTAL_FORMS": str(len(lines)),
        "offer_lines-INITIAL_FORMS": "0",
        "offer_lines-MIN_NUM_FORMS": "0",
        "offer_lines-MAX_NUM_FORMS": "1000",
    }
    for number, (label, amount) in enumerate(lines):
        form |= {f"offer_lines-{number}-label": label, f"offer_lines-{number}-amount": amount}
    response = admin_client.post(f"/admin/quote_requests/quoterequest/{request.pk}/change/", form)
    assert response.status_code == 302, response.content.decode()[-3000:]


def send_offer(admin_client, request: QuoteRequest) -> str:
    response = admin_client.post(
        "/admin/quote_requests/quoterequest/",
        {"action": "send_offer", "_selected_action": [request.pk]},
        follow=True,
    )
    return " ".join(str(message) for message in response.context["messages"])


def offer_link() -> str:
    (message,) = mail.outbox
    return re.search(r"https://chauffeur\.test(/booking/offer\?offer=\S+)", message.body)[1]


def test_staff_send_an_offer_and_the_traveller_books_and_pays_it(client, agent, admin_client, request_asked):
    priced_by_staff(admin_client, request_asked)
    assert "on its way" in send_offer(admin_client, request_asked)
    request_asked.refresh_from_db()
    assert request_asked.status == "answered" and request_asked.offer_sent_at is not None
    assert mail.outbox == [] and run_pending_jobs() == 1
    (offer,) = mail.outbox
    assert offer.to == ["anna@example.com"]
    assert offer.subject == f"Unser Angebot zu Ihrer Anfrage {request_asked.reference}"
    body = offer.body.replace("\xa0", " ")
    assert "Business van, Vienna – Salzburg, with waiting: 890,00 €" in body
    assert "Gesamt: 925,50 € (inkl. 10 % MwSt.: 84,14 € (netto 841,36 €))" in body
    assert "Hier ist unser Angebot" in body and "gültig bis" in body, body

    link = offer_link()
    reference = {"reference": request_asked.reference}
    seen = tool_result(call(client, agent, "booking.get_quote", reference))  # the agent that asked sees it
    output_validator(client, agent, "booking.get_quote").validate(seen["structuredContent"])
    offered = seen["structuredContent"]["offer"]
    assert [line["label"] for line in offered["lines"]] == [label for label, _ in LINES]
    assert (Decimal(str(offered["priceEur"])), offered["vehicleClass"], offered["bookingReference"]) == (
        Decimal("925.50"),
        "business-van",
        None,
    )
    assert offered["url"].endswith(link)
    page = client.get(link)
    assert page.status_code == 200 and "925,50" in page.content.decode()
    assert Booking.objects.count() == 0  # opening the link books nothing
    paying = client.post(link.split("?")[0], {"offer": link.split("offer=")[1]})
    assert paying.status_code == 302 and "/booking/sandbox/" in paying["Location"]
    booking = Booking.objects.get()
    assert (booking.amount_cents, booking.vehicle_class, booking.status) == (
        92550,
        "business-van",
        "pending_payment",
    )
    assert [line.label for line in booking.quote.lines] == [label for label, _ in LINES]
    assert booking.api_token_id == request_asked.api_token_id  # the agent that asked reads it
    again = client.post(link.split("?")[0], {"offer": link.split("offer=")[1]})  # a double click
    assert again["Location"] == paying["Location"] and Booking.objects.count() == 1

    session = paying["Location"].rsplit("/", 1)[1]
    client.post(f"/booking/sandbox/{session}", {"action": "pay"})
    booking.refresh_from_db()
    assert booking.status == BookingStatus.PAID
    printed = pdf_text(Invoice.objects.get(booking=booking))  # the offer's lines, as staff wrote them
    assert "Motorway toll and parking" in printed and "925,50" in printed, printed
    shown = client.get(link).content.decode()
    assert 'id="accept-offer"' not in shown and 'id="manage"' in shown
    listed = client.get(f"/api/v1/quote-requests/{request_asked.reference}", **agent).json()
    assert listed["offer"]["bookingReference"] == booking.reference
    refused = client.post(link.split("?")[0], {"offer": link.split("offer=")[1]})
    assert refused.status_code == 400 and Booking.objects.count() == 1


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"lines": []}, "lines"),
        ({"valid_days": -1}, "validity"),
        ({"vehicle": "first"}, "one car"),  # six passengers in a class seating three
    ],
)
def test_an_offer_staff_cannot_send_stays_unsent(admin_client, request_asked, change, said):
    priced_by_staff(admin_client, request_asked, **change)
    assert said in send_offer(admin_client, request_asked)
    request_asked.refresh_from_db()
    assert (request_asked.status, request_asked.offer_sent_at) == ("open", None)
    assert run_pending_jobs() == 0 and mail.outbox == []


def test_an_expired_or_forged_offer_books_nothing(client, admin_client, request_asked):
    priced_by_staff(admin_client, request_asked, valid_days=2)
    send_offer(admin_client, request_asked)
    run_pending_jobs()
    link = offer_link()
    assert client.get(link.replace("offer=", "offer=x")).status_code == 404
    with time_machine.travel(timezone.now() + timedelta(days=4)):
        shown = client.get(link).content.decode()
        assert "abgelaufen" in shown
        refused = client.post(link.split("?")[0], {"offer": link.split("offer=")[1]})
    assert refused.status_code == 400 and Booking.objects.count() == 0


def test_a_booked_offer_keeps_its_price_when_staff_move_the_pickup(
    client, admin_client, request_asked, admin_user
):
    priced_by_staff(admin_client, request_asked)
    send_offer(admin_client, request_asked)
    run_pending_jobs()
    link = offer_link()
    client.post(link.split("?")[0], {"offer": link.split("offer=")[1]})
    booking = Booking.objects.get()
    later = booking.pickup_at + timedelta(hours=2)

    def moved(vehicle_class: str) -> None:
        changes.change_ride(
            booking.pk,
            pickup=later,
            vehicle_class=vehicle_class,
            through_provider=True,
            actor="staff",
            user=admin_user,
        )

    moved("business-van")
    booking.refresh_from_db()
    assert (booking.pickup_at, booking.amount_cents) == (later, 92550)
    with pytest.raises(DomainError, match="keep the class"):
        moved("first")
    booking.refresh_from_db()
    assert (booking.vehicle_class, booking.amount_cents) == ("business-van", 92550)
    assert booking.quote.price == Decimal("925.50")


def test_leaving_the_payment_page_leads_back_to_the_offer_which_books_anew(
    client, admin_client, request_asked
):
    priced_by_staff(admin_client, request_asked)
    send_offer(admin_client, request_asked)
    run_pending_jobs()
    link = offer_link()
    client.post(link.split("?")[0], {"offer": link.split("offer=")[1]})
    first = Booking.objects.get()
    left = client.get(cancel_url(first.reference).removeprefix("https://chauffeur.test")).content.decode()
    first.refresh_from_db()
    assert first.status == BookingStatus.EXPIRED  # nothing can be charged on it any more
    assert (
        f'id="resume" href="https://chauffeur.test{link}"' in left
    )  # back to the offer, not the tariff's form
    again = client.post(link.split("?")[0], {"offer": link.split("offer=")[1]})
    assert again.status_code == 302
    second = Booking.objects.exclude(pk=first.pk).get()
    assert (second.status, second.amount_cents) == (BookingStatus.PENDING_PAYMENT, 92550)
    request_asked.refresh_from_db()
    assert request_asked.booking == second


def sent_and_opened(client, admin_client, request: QuoteRequest) -> tuple[str, dict]:
    """The offer priced, sent and its link: the page's path and the form its button posts."""
    priced_by_staff(admin_client, request)
    send_offer(admin_client, request)
    run_pending_jobs()
    link = offer_link()
    return link.split("?")[0], {"offer": link.split("offer=")[1]}


def test_the_link_books_the_offer_as_sent_whatever_staff_edit_until_they_send_again(
    client, admin_client, request_asked
):
    path, form = sent_and_opened(client, admin_client, request_asked)
    request_asked.offer_lines.all().delete()  # edited after sending, not sent again
    copied = traveller_data.copy_of("anna@example.com")["quoteRequests"][0]["offer"]
    assert (copied["price"], [line["label"] for line in copied["lines"]]) == (
        "925.50",
        [label for label, _ in LINES],
    )
    page = client.get(path, form).content.decode()
    assert "925,50" in page and "Motorway toll" in page
    client.post(path, form)
    assert Booking.objects.get().amount_cents == 92550


def test_a_cancelled_booking_of_the_offer_is_not_booked_again_until_staff_send_a_new_one(
    client, admin_client, request_asked
):
    path, form = sent_and_opened(client, admin_client, request_asked)
    paying = client.post(path, form)
    client.post(f"/booking/sandbox/{paying['Location'].rsplit('/', 1)[1]}", {"action": "pay"})
    booking = Booking.objects.get()
    cancelling.cancel(booking.pk, actor="staff")
    assert "storniert" in client.get(path, form).content.decode()
    assert client.post(path, form).status_code == 400 and Booking.objects.count() == 1
    request_asked.offer_lines.all().delete()  # as staff tick "delete" on the old lines
    priced_by_staff(admin_client, request_asked, lines=[("Business van, new date", "700.00")])
    assert "on its way" in send_offer(admin_client, request_asked)
    again = client.post(path, form)
    assert again.status_code == 302
    assert Booking.objects.exclude(pk=booking.pk).get().amount_cents == 70000


def test_withdrawing_the_request_closes_the_open_payment_page(
    client, admin_client, request_asked, django_capture_on_commit_callbacks
):
    path, form = sent_and_opened(client, admin_client, request_asked)
    client.post(path, form)
    with django_capture_on_commit_callbacks(execute=True):  # once the admin's change is committed
        priced_by_staff(admin_client, request_asked, status="closed")
    request_asked.refresh_from_db()
    assert request_asked.booking is not None  # the admin's form left the booking as it was
    booking = Booking.objects.get()
    assert booking.status == BookingStatus.EXPIRED  # nobody can pay it any more
    assert "zurückgezogen" in client.get(path, form).content.decode()


def test_without_a_payment_provider_the_offer_says_so_and_books_nothing(
    client, admin_client, request_asked, settings
):
    path, form = sent_and_opened(client, admin_client, request_asked)
    settings.PAYMENT_PROVIDER = "none"
    refused = client.post(path, form)
    assert (
        refused.status_code == 503
        and "Die Zahlungsseite konnte nicht geöffnet werden" in refused.content.decode()
    )
    assert Booking.objects.count() == 0


def test_a_payment_page_that_has_closed_by_now_is_not_given_again(client, admin_client, request_asked):
    path, form = sent_and_opened(client, admin_client, request_asked)
    first = client.post(path, form)["Location"]
    with time_machine.travel(timezone.now() + timedelta(days=2)):  # the page closed, its word not yet come
        second = client.post(path, form)["Location"]
    assert second != first
    old, new = Booking.objects.order_by("pk")
    assert (old.status, new.status) == (BookingStatus.EXPIRED, BookingStatus.PENDING_PAYMENT)


def test_a_payment_page_whose_answer_was_lost_opens_anew_when_the_button_is_pressed_again(
    client, admin_client, request_asked, settings
):
    path, form = sent_and_opened(client, admin_client, request_asked)
    use_stripe(settings)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        stripe = FakeStripe(answers_lost=1).install(mock)  # Stripe made the first page; its answer was lost
        lost = client.post(path, form)
        assert lost.status_code == 503 and Booking.objects.get().status == BookingStatus.PENDING_PAYMENT
        with time_machine.travel(timezone.now() + timedelta(minutes=2)):  # a later page closes later
            again = client.post(path, form)

    assert again.status_code == 302, again.content.decode()[-2000:]
    booking = Booking.objects.get()  # the same booking, on the page the traveller was given
    first, second = stripe.sessions.values()
    assert again["Location"] == f"https://checkout.stripe.test/{second.id}"
    assert ledger.checkout_session(booking) == second.id and first.reference == second.reference
