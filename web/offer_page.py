"""The page an offer's link opens: the trip, staff's lines and total, and while the offer holds a button that
books it and goes to the payment page (a POST: mail scanners that open links book nothing). A forged link
is not found; an expired, withdrawn or accepted offer says so."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.functional import Promise as StrPromise
from django.utils.translation import gettext_lazy

from apikit.errors import DomainError
from booking import presentation
from booking.links import manage_url
from payments.providers.base import PaymentError
from quote_requests import offer_terms, offers
from quote_requests.models import QuoteRequest
from sitekit.i18n import language_links, supported
from sitekit.methods import allow


@allow("GET", "HEAD", "POST")
def offer_page(request: HttpRequest) -> HttpResponse:
    token = (request.POST if request.method == "POST" else request.GET).get("offer", "")
    quote_request = offer_terms.request_of(token)
    if quote_request is None:
        raise Http404("No such offer.")
    error: str | StrPromise = ""
    status = 200
    if request.method == "POST":
        try:
            return redirect(offers.accept(quote_request.pk))
        except PaymentError:  # none set up, or the provider failed (a booking made waits: the button again)
            error = gettext_lazy("The payment page could not be opened. Please try again.")
            status = 503
        except DomainError as refused:  # expired meanwhile, the route or the lead time: nothing booked
            error, status = refused.words, 400
        quote_request.refresh_from_db()
    return _shown(request, quote_request, token, error, status)


def _shown(
    request: HttpRequest, quote_request: QuoteRequest, token: str, error: str | StrPromise, status: int
) -> HttpResponse:
    language = supported(request.GET.get("lang")) or quote_request.locale
    with translation.override(language):
        standing = offer_terms.standing(quote_request)  # its words in the page's language
        sent = quote_request.offer
        assert sent is not None  # noqa: S101  (offer_terms.request_of opens only an offer sent)
        quote = standing.booking.quote if standing.booking is not None else sent.quote
        context = {
            "request": quote_request,
            "token": token,
            "standing": standing,
            "valid_until": sent.valid_until,
            "quote": quote,
            "vehicle": presentation.vehicle_name(quote.vehicle_class),
            "vat_note": presentation.quote_vat_note(quote),
            "manage_url": manage_url(standing.booking.reference) if standing.booking else "",
            "language_links": language_links(request),
            "error": error,
        }
        return render(request, "quote_requests/offer.html", context, status=status)
