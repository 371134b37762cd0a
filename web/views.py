"""The booking pages around a payment: success, cancel, the customer's "manage my booking" (with its ride
panel and calendar entry), and the sandbox's hosted checkout. Each speaks the language asked for in its
URL (`?lang=de`), else the one the booking was made in, else the visitor's browser's."""

import logging
from urllib.parse import urlencode

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.html import escape

from apikit.errors import DomainError
from apikit.problems import Problem
from booking import calendar, cancellation, lifecycle, on_account, presentation, selectors, trips
from booking.links import (
    cancel_url,
    manage_url,
    reference_from_cancel_token,
    reference_from_manage_token,
    resume_path,
)
from booking.models import Booking
from invoicing import documents
from payments import booking_state, ledger, payment_updates
from payments import cancellation as cancelling
from payments import selectors as payment_selectors
from payments.models import Surcharge
from payments.owed import status_words, still_to_pay
from payments.providers import payment_provider
from payments.providers.sandbox import SandboxProvider
from pricing.money import from_cents
from quote_requests.models import QuoteRequest
from sitekit.i18n import language_links, supported
from sitekit.methods import allow, safe
from web import ride_panel

logger = logging.getLogger(__name__)


SUCCESS_PATH = "/booking/success"
CANCEL_PATH = "/booking/cancel"
RIDE_PANEL_PATH = "/booking/manage/ride"  # the manage page's ride panel alone, for its script
RIDE_CALENDAR_PATH = "/booking/manage/ride.ics"
INVOICE_PATH = "/booking/manage/invoice.pdf"


def too_many_requests(problem: Problem) -> HttpResponse:
    """The rate limiter's answer on a page: a short page, not JSON."""
    response = HttpResponse(
        "<!doctype html><title>Too many requests</title><h1>Too many requests</h1>"
        f"<p>{escape(problem.detail)}</p>",
        status=problem.http_status,
    )
    for name, value in problem.headers.items():
        response[name] = value
    return response


@safe
def success_page(request: HttpRequest) -> HttpResponse:
    booking = payment_selectors.booking_for_session(request.GET.get("session_id") or "-")
    if booking is None:
        raise Http404("No booking has this checkout session.")
    booking = payment_updates.reconcile(booking, payment_provider)  # the webhook may still be on its way
    return _page(request, "booking/success.html", booking)


@safe
def cancel_page(request: HttpRequest) -> HttpResponse:
    """Where the payment page's Cancel leads: its checkout is closed (nothing can be charged any more), and
    the traveller gets the filled form back."""
    reference = reference_from_cancel_token(request.GET.get("booking", ""))
    booking = selectors.booking_for_reference(reference or "-")
    if booking is None:
        raise Http404("No such booking.")
    booking = payment_updates.abandon(booking, payment_provider)
    # booked from staff's offer: back to it
    offer = QuoteRequest.objects.filter(
        reference=(booking.booking_data or {}).get("quoteRequest", "")
    ).first()
    if offer is not None and offer.sent_offer is not None:
        return _page(request, "booking/cancel.html", booking, resume_path=offer.offer_link())
    return _page(request, "booking/cancel.html", booking)


@allow("GET", "HEAD", "POST")
def manage_page(request: HttpRequest) -> HttpResponse:
    """The customer's own page of a booking, opened by the signed link of the success page and the
    e-mails: its details and state first, what is still to pay (with why and its payment link), then the
    ride's day with the chauffeur and the car once assigned, the calendar entry, the choice of text
    messages, and the cancel where the policy allows it."""
    booking = _managed(request)
    outcome, status, sms_refusal = None, 200, ""
    action = request.POST.get("action") if request.method == "POST" else None
    if action == "cancel":
        try:
            booking = cancelling.cancel(booking.pk, actor="customer (manage page)")
            outcome = "cancelled"
        except DomainError as refusal:  # the policy or the payment provider said no: nothing changed
            logger.info("Cancel of %s from its page refused: %s", booking.reference, refusal.code)
            outcome = "refused"
    elif action == "text_messages" and booking.status in lifecycle.TEXT_MESSAGES_STATES:
        wanted = request.POST.get("text_messages") == "on"
        try:
            booking = lifecycle.choose_text_messages(
                booking.pk, wanted=wanted, actor="customer (manage page)"
            )
            outcome = "sms_on" if wanted else "sms_off"
        except DomainError as refusal:  # no number, or one that gets no texts: nothing changed
            outcome, status, sms_refusal = "sms_refused", 400, refusal.words  # lazy: the page's language
    percent = presentation.number(cancellation.cancellation_rules().late_fee_percent)
    language = page_language(request, booking)
    token = request.GET.get("booking", "")
    state = booking_state.state_of(booking)
    with translation.override(language):
        panel = ride_panel.panel(state)
        owed = still_to_pay(booking)
    return _page(
        request,
        "booking/manage.html",
        booking,
        status=status,
        state=state,
        outcome=outcome,
        late_fee_percent=percent,
        panel=panel,
        owed=owed,
        panel_url=_manage_path(RIDE_PANEL_PATH, token, language),
        refresh_seconds=panel.refresh_seconds if panel else ride_panel.REFRESH_SECONDS,
        map_tile_url=settings.MAP_TILE_URL,
        map_tile_attribution=settings.MAP_TILE_ATTRIBUTION,
        calendar_url=_manage_path(RIDE_CALENDAR_PATH, token, language) if panel and booking.pickup_at else "",
        text_messages_offered=booking.status in lifecycle.TEXT_MESSAGES_STATES,
        no_phone=lifecycle.NO_PHONE,
        sms_refusal=sms_refusal,
        invoice=documents.for_booking(booking),
        invoice_url=_manage_path(INVOICE_PATH, token, language),
        documents=[
            (document, _document_path(token, language, document.number))
            for document in documents.of_booking(booking)
        ],
    )


@safe
def manage_ride_panel(request: HttpRequest) -> HttpResponse:
    """The manage page's ride panel alone, in the page's language: its script asks for it every
    REFRESH_SECONDS while the ride can still move. A booking the panel is no longer for answers the
    marker that ends the asking."""
    booking = _managed(request)
    with translation.override(page_language(request, booking)):
        context = {
            "panel": ride_panel.panel(booking_state.state_of(booking)),
            "booking": booking,
            "alone": True,  # with the booking's state, for the page's details
            "status": status_words(booking),
        }
        response = render(request, "booking/ride_panel.html", context)
    return response


@safe
def manage_ride_calendar(request: HttpRequest) -> HttpResponse:
    """The ride as a calendar entry (.ics) in the page's language, pointing back to the manage page."""
    booking = _managed(request)
    entry = calendar.ride_event(
        booking, locale=page_language(request, booking), link=manage_url(booking.reference)
    )
    if entry is None:
        raise Http404("This booking has no pickup time yet.")
    response = HttpResponse(entry, content_type=f"{calendar.MEDIA_TYPE}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{calendar.file_name(booking)}"'
    return response


@safe
def manage_invoice(request: HttpRequest) -> HttpResponse:
    """One of the booking's documents (PDF) by the manage page's signed link: `?number=` names an invoice
    or credit note of this booking (without it, the ride's invoice). None yet, another booking's number,
    or a bad link is 404."""
    booking = _managed(request)
    number = request.GET.get("number")
    document = documents.by_number(booking, number) if number else documents.for_booking(booking)
    if document is None:
        raise Http404("This booking has no such document.")
    response = HttpResponse(documents.pdf(document), content_type=documents.MEDIA_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{document.file_name}"'
    return response


def _managed(request: HttpRequest) -> Booking:
    """The booking of the manage page's signed link (`?booking=`); a guessed or tampered one is 404."""
    booking = selectors.booking_for_reference(
        reference_from_manage_token(request.GET.get("booking", "")) or "-"
    )
    if booking is None:
        raise Http404("No such booking.")
    return booking


def _manage_path(path: str, token: str, language: str) -> str:
    return f"{path}?{urlencode({'booking': token, 'lang': language})}"


def _document_path(token: str, language: str, number: str) -> str:
    return f"{INVOICE_PATH}?{urlencode({'booking': token, 'lang': language, 'number': number})}"


@allow("GET", "HEAD", "POST")
def sandbox_checkout(request: HttpRequest, session_id: str) -> HttpResponse:
    """The sandbox's hosted payment page: the booking, its price, and Pay / Cancel (CSRF-protected). Like
    Stripe's, it takes no payment once its checkout has ended. A price difference after a change has a
    page of its own, which returns to the customer's booking page."""
    provider = _sandbox()
    booking = payment_selectors.booking_for_session(session_id, provider=provider.name)
    surcharge = None if booking is not None else payment_selectors.surcharge_for_session(session_id)
    if surcharge is not None:
        booking = surcharge.booking
    if booking is None:
        raise Http404("The sandbox knows no such checkout session.")
    page = surcharge or ledger.checkout_of(booking)  # a return trip's page pays both rides
    amount_cents = page.amount_cents if page else booking.amount_cents
    # Like Stripe's, a withdrawn or paid link's page takes no payment.
    open_ = surcharge.status == Surcharge.Status.PENDING if surcharge else selectors.payable(booking)
    if request.method == "POST":
        if request.POST.get("action") == "pay" and open_:
            paid = provider.pay_event(
                session_id=session_id,
                reference=booking.reference,
                amount_cents=amount_cents,
                currency=booking.currency,
            )
            payment_updates.apply_event(paid)
            if surcharge is None:
                return redirect(f"{settings.PUBLIC_BASE_URL}{SUCCESS_PATH}?session_id={session_id}")
            return redirect(manage_url(booking.reference))
        if request.POST.get("action") == "pay":
            amount = from_cents(amount_cents)
            return _page(request, "booking/sandbox_checkout.html", booking, status=409, amount=amount)
        return redirect(manage_url(booking.reference) if surcharge else cancel_url(booking.reference))
    amount = from_cents(amount_cents)
    return _page(request, "booking/sandbox_checkout.html", booking, amount=amount, open=open_)


def _sandbox() -> SandboxProvider:
    provider = payment_provider() if settings.PAYMENT_PROVIDER == "sandbox" else None
    if not isinstance(provider, SandboxProvider):
        raise Http404("The sandbox is not the active payment provider.")
    return provider


@allow("GET", "HEAD", "POST")
def account_page(request: HttpRequest) -> HttpResponse:
    """The one-time link of a booking on account (booking/on_account.py). Opening it shows the booking and a
    button: the POST confirms it (mail scanners that open links must not book). A forged, expired or used
    link changes nothing."""
    token = (request.POST if request.method == "POST" else request.GET).get("token", "")
    booking = on_account.booking_of_link(token)
    if booking is None:  # opening a dead link is no error of the page (200); confirming with one is (400)
        status = 400 if request.method == "POST" else 200
        return render(request, "booking/account_invalid.html", status=status)
    outcome = None
    if request.method == "POST":
        result = on_account.confirm_link(token)
        if result.booking is None:
            return render(request, "booking/account_invalid.html", status=400)
        booking, outcome = result.booking, result.outcome
    return _page(request, "booking/account.html", booking, token=token, outcome=outcome)


def page_language(request: HttpRequest, booking: Booking) -> str:
    chosen = booking.locale if "locale" in (booking.booking_data or {}) else None
    return supported(request.GET.get("lang")) or supported(chosen) or translation.get_language()


def _page(request: HttpRequest, template: str, booking: Booking, status: int = 200, **extra) -> HttpResponse:
    language = page_language(request, booking)
    other_ride = trips.other_leg(booking)  # a return trip's other ride: each has its own page
    with translation.override(language):
        context = {
            "booking": booking,
            "other_ride": other_ride,
            "other_ride_url": manage_url(other_ride.reference) if other_ride else "",
            "trip_price": from_cents(trips.price_cents([booking, other_ride])) if other_ride else None,
            "status": status_words(booking),
            "vehicle": presentation.vehicle_name(booking.vehicle_class),
            "service": presentation.service(booking),
            "lines": presentation.price_lines(booking),
            "stops": presentation.stops_shown(booking),
            "vat_note": presentation.vat_note(booking),
            "open": selectors.payable(booking),
            "resume_path": resume_path(booking.reference, language),
            "manage_url": manage_url(booking.reference),
            "language_links": language_links(request),
            **extra,
        }
        return render(request, template, context, status=status)
