"""The booking page (`/`, `/de/`, `/en/`) and the same form for the operator's own website (`/embed/form`,
loaded by `embed.js`). The form is rendered here with what the page needs to start (vehicle classes, tours,
the earliest pickup, the rating, its texts in the page's language); its script then quotes and books
through the public API and the page checkout (`POST /api/page/checkout`)."""

import math
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from apikit import page_sessions
from booking import presentation, ride_stops, selectors, trips
from booking.availability import check_availability, lead_time_rules
from booking.cancellation import cancellation_rules
from booking.links import reference_from_cancel_token
from booking.models import Booking
from places.services import rating_snapshot
from pricing import services as pricing
from pricing.quote import HOURLY_BLOCK, MAX_HOURLY_HOURS
from sitekit import phones
from sitekit.i18n import supported
from sitekit.methods import safe
from sitekit.seo import page_links

# What the page's script says, in the page's language: errors by the API's codes and by field.
TEXTS = {
    "required": {
        "from": _("Enter where we pick you up."),
        "to": _("Enter where you are going."),
        "date": _("Choose the day of your pickup."),
        "time": _("Choose the time of your pickup."),
        "hours": _("Choose how many hours you need the car."),
        "tour": _("Choose a tour."),
        "vehicle": _("Choose a vehicle."),
        "name": _("Enter your name."),
        "email": _("Enter your e-mail address: your confirmation goes there."),
        "phone": _("Enter a phone number your chauffeur can reach you on."),
        "terms": _("Tick the box to accept the terms and conditions."),
        "back-date": _("Choose the day of the way back."),
        "back-time": _("Choose the time of the way back."),
    },
    "emailInvalid": _("This e-mail address looks incomplete, e.g. anna@example.com."),
    "phoneInvalid": _(
        "Enter a phone number your chauffeur can call, e.g. +43 664 1234567 (premium-rate and "
        "international-network numbers are not possible)."
    ),
    "smsUnavailable": phones.CALLS_ONLY,
    "tooEarly": _("We cannot pick you up this soon. The earliest pickup is {when}."),
    "inPast": _("This time has passed. The earliest pickup is {when}."),
    "tooFar": _("We take bookings up to {days} days ahead."),
    "useEarliest": _("Pick me up at {when}"),
    "earliest": _("Earliest pickup: {when} (Vienna time)"),
    "noSuchTime": _("This time does not exist in Vienna: the clocks change that night. Choose another."),
    "noRoute": _("We could not find a route between these places. Choose them from the suggestions."),
    "unavailable": _("Our route and address search is unavailable right now. Please try again in a minute."),
    "hireTooShort": _(
        "The drive alone takes about {hours} hours: book at least {hours} hours, or a transfer."
    ),
    "outsideTourArea": _("This tour starts and ends near Vienna; this place is too far away for it."),
    "notForTour": _("Not available for this tour"),
    "priceChanged": _("The price has changed to {price}. Please check it and press Pay again."),
    "tooMany": _("Too many requests at once. Please wait {seconds} seconds and try again."),
    "retrying": _(
        "Many requests are coming from your network right now. We will try again automatically at {time} "
        "(in {seconds} s); there is no need to reload the page."
    ),
    "paymentDown": _("Payment is unavailable right now; nothing was charged. Please try again shortly."),
    "failed": _("Something went wrong on our side. Please try again, or call us."),
    "offline": _("We could not reach the booking service. Check your connection and try again."),
    "checkFields": _("Please check the marked fields."),
    "enterRoute": _("Enter pickup and destination to see the prices."),
    "enterPickup": _("Enter the pickup to see the prices."),
    "asDirected": _("As directed: tell your chauffeur where to go. Priced by the hour."),
    "calculating": _("Calculating…"),
    "pay": _("Pay {price}"),
    "payNoPrice": _("Pay"),
    "paying": _("Opening the secure payment page…"),
    "sending": _("Sending…"),
    "checkEmail": _(
        "Check your e-mail: if your company's account allows {email}, we sent a link there. Open it within "
        "30 minutes to confirm the booking on the account. No e-mail? Pay by card, or ask your company's "
        "travel office to add your address."
    ),
    "bookOnAccount": _("Book on account"),
    "vatIdInvalid": _("Enter a VAT id (UID) of an EU country, e.g. ATU12345678."),
    "total": _("Total"),
    "vat": _("includes {rate} % VAT: {vat} (net {net})"),
    "route": _("{km} km · about {minutes} min drive"),
    "noSuggestions": _("No matching places"),
    # Plural forms by the CLDR category Intl.PluralRules gives the script (German, English: one, other).
    "suggestions": {
        category: ngettext_lazy(
            "{count} suggestion: choose with the arrow keys and Enter.",
            "{count} suggestions: choose with the arrow keys and Enter.",
            count,
        )
        for category, count in (("one", 1), ("other", 2))
    },
    "lines": presentation.LINE_LABELS,
    "notFit": _("Too small for this trip"),
    "tooSmall": _(
        "No vehicle of ours seats so many passengers with this luggage: we quote groups by hand (write the "
        "exact numbers in the notes)."
    ),
    "askQuote": _("Ask us for a quote"),
    "pickupAhead": _("This time has passed: choose a pickup time ahead."),
    "pickupTooFar": _("This is further ahead than we take bookings: please ask us nearer the time."),
    "notesTooLong": _("Shorten your notes a little, please."),
    "quoteFields": _(
        "To ask for a quote, enter the pickup, the date and time, your name and e-mail address."
    ),
    "quoteAsked": _(
        "Thank you: your request {reference} is with us. We will e-mail {email} an offer, usually within one "
        "working day; for a ride soon, please call us."
    ),
    "stopsHeading": _("Stops on the way"),
    "quoteExtras": _("Extras: {extras}"),
    "quoteFlight": _("Flight: {flight}"),
    "tooManyStops": _("No vehicle makes so many stops on the way: remove one, or call us for a quote."),
    "stopRequired": _("Enter the address of this stop, or remove it."),
    "stopInvalid": _("Enter each stop as one address from the suggestions."),
    "waitsTooLong": _(
        "The drive and the waits take about {hours} hours, longer than the tour: wait less at the stops."
    ),
    "minutes": _("{minutes} min"),
    "stop": _("Stop {number}: {address}"),
    "stopWaiting": _("{stop}, waiting {minutes} min"),
    # A return trip: the way back is a ride of its own, priced and shown beside the way out.
    "wayOut": _("Way out"),
    "wayBack": _("Way back"),
    "wayOutOn": _("Way out: {when}"),
    "wayBackOn": _("Way back: {when}"),
    "tripTotal": _("Total for both rides"),
    "wayBackTooEarly": _("The way back's pickup must be after the way out arrives ({arrival})."),
    "wayBackRefused": _("We cannot book this way back. Choose another time for it, or call us."),
    "extrasRefused": _(
        "No vehicle takes these extras: choose fewer, and count each child in a child seat among the "
        "passengers."
    ),
}


# The waits a traveller may plan at a stop, in minutes (the API takes any up to MAX_STOP_WAIT_MINUTES).
STOP_WAITS = (0, 15, 30, 45, 60, 90, 120)


@safe
def booking_page(request: HttpRequest) -> HttpResponse:
    """The page in the language of its URL (/de/, /en/), or at / in the browser's (Accept-Language)."""
    language = translation.get_language()
    context = form_context(language, resumed=_resumed(request.GET.get("booking", "")))
    context["language_links"] = [(code, name, f"/{code}/") for code, name in settings.LANGUAGES]
    context["config"]["pageSession"] = page_sessions.issue(request)
    context["seo"] = page_links(language, "", default_path="/")
    response = render(request, "booking/page.html", context)
    response["Cache-Control"] = "no-store"  # its page session is this visitor's alone
    return response


@safe
def embed_form(request: HttpRequest) -> HttpResponse:
    """The form alone, for `embed.js` on the operator's website (CORS_ALLOWED_ORIGINS); its links and
    assets carry this service's address."""
    language = supported(request.GET.get("lang")) or translation.get_language()
    with translation.override(language):
        context = form_context(language, resumed=None)
        context.update(embedded=True, base=settings.PUBLIC_BASE_URL, script=static("booking/booking.js"))
        context["config"]["pageSession"] = page_sessions.issue(request)
        response = render(request, "booking/form.html", context)
    response["Cache-Control"] = "no-store"  # the earliest pickup moves with the clock; the session is its own
    return response


def form_context(language: str, *, resumed: Booking | None) -> dict:
    earliest = rounded_up(check_availability(pickup=timezone.now()).earliest_pickup)
    classes = pricing.offered_vehicle_classes()
    extras = [_extra_choice(listed, language) for listed in pricing.offered_extras()]
    most_stops = max((pricing.current_snapshot().tariffs[c.code].max_stops for c in classes), default=0)
    config = {
        "lang": language,
        "earliest": timezone.localtime(earliest).isoformat(timespec="minutes"),
        "maxDaysAhead": lead_time_rules().max_ahead.days,
        "minHours": float(min(pricing.current_snapshot().tariffs[c.code].minimum_hours for c in classes))
        if classes
        else 2.0,
        "classes": [vehicle.code for vehicle in classes],
        "extras": [{"code": extra["code"], "name": extra["name"]} for extra in extras],
        "maxStops": most_stops,
        "texts": TEXTS,
        "resume": resume_choices(resumed) if resumed else None,
    }
    first = config["minHours"]
    steps = int((MAX_HOURLY_HOURS - Decimal(str(first))) / HOURLY_BLOCK) + 1
    hour_choices = [Decimal(str(first)) + step * HOURLY_BLOCK for step in range(steps)]
    return {
        "hour_choices": [(f"{hours.normalize():f}", presentation.number(hours)) for hours in hour_choices],
        "classes": classes,
        "tours": _tours(language),
        # one beyond the largest class ("8+"): a group no car takes is offered a quote from staff
        "passenger_choices": range(1, max((vehicle.passengers for vehicle in classes), default=1) + 2),
        "luggage_choices": range(max((vehicle.luggage for vehicle in classes), default=0) + 2),
        "extras": extras,
        "stop_slots": [str(number) for number in range(1, most_stops + 1)],  # "stop-"|add:number in the form
        "wait_choices": STOP_WAITS,
        "rating": rating_snapshot(),
        "config": config,
        "earliest": earliest,
        "cancellation": cancellation_words(),
    }


def cancellation_words() -> dict:
    """The cancellation policy as the form states it before Pay."""
    rules = cancellation_rules()
    return {
        "hours": int(rules.free_before.total_seconds() // 3600),
        "percent": presentation.number(rules.late_fee_percent),
    }


def rounded_up(moment: datetime, minutes: int = 5) -> datetime:
    """The earliest pickup as a traveller would pick it, never before it: 18:26 or 18:25:30 become 18:30."""
    local = timezone.localtime(moment)
    whole = local.replace(second=0, microsecond=0)
    if whole < local:
        whole += timedelta(minutes=1)
    return whole + timedelta(minutes=-whole.minute % minutes)


def resume_choices(booking: Booking) -> dict:
    """The choices a booking was made with, to fill the form again after a cancelled payment; a return
    trip's from its way out, with the way back's time and flight."""
    booking, *way_back = trips.legs(booking)
    return {**_ride_choices(booking), **(_way_back_choices(way_back[0]) if way_back else {})}


def _way_back_choices(way_back: Booking) -> dict:
    pickup = timezone.localtime(way_back.pickup_at)
    return {
        "return": True,
        "back-date": pickup.date().isoformat(),
        "back-time": pickup.strftime("%H:%M"),
        "back-flight": way_back.flight_number,
    }


def _ride_choices(booking: Booking) -> dict:
    pickup = timezone.localtime(booking.pickup_at) if booking.pickup_at else None
    kind = "tour" if booking.tour_slug else "hourly" if booking.booking_type == "hourly" else "transfer"
    return {
        "kind": kind,
        "from": booking.origin,
        "to": booking.destination,
        "date": pickup.date().isoformat() if pickup else "",
        "time": pickup.strftime("%H:%M") if pickup else "",
        "hours": f"{booking.duration_hours.normalize():f}" if booking.duration_hours else "",
        "tour": booking.tour_slug,
        "vehicle": booking.vehicle_class,
        "name": booking.name,
        "email": booking.email,
        "phone": booking.phone,
        "sms": booking.text_messages,
        "flight": booking.flight_number,
        "notes": booking.notes,
        **({"passengers": str(booking.passengers)} if booking.passengers else {}),
        **({"luggage": str(booking.luggage)} if booking.luggage is not None else {}),
        **{f"extra-{extra.code}": str(extra.quantity) for extra in booking.quote.extras},
        **{
            name: value
            for number, stop in enumerate(ride_stops.of(booking), start=1)
            for name, value in ((f"stop-{number}", stop.address), (f"wait-{number}", str(stop.wait_minutes)))
        },
    }


def _resumed(token: str) -> Booking | None:
    reference = reference_from_cancel_token(token) if token else None
    return selectors.booking_for_reference(reference) if reference else None


def _extra_choice(listed: pricing.ExtraListed, language: str) -> dict:
    offer = listed.offer
    return {
        "code": offer.code,
        "name": offer.name_de if language == "de" else offer.name_en,
        "price_words": presentation.extra_price(offer),
        "choices": range(max(listed.maxima.values()) + 1),
    }


def _tours(language: str) -> list[dict]:
    return [
        {
            "slug": tour.slug,
            "name": tour.name_de if language == "de" else tour.name_en,
            "hours": tour.included_hours,
            "hours_count": math.ceil(tour.included_hours),  # the plural form: 1 hour, 1.5 hours
            "description": tour.description_de if language == "de" else tour.description_en,
        }
        for tour in pricing.current_snapshot().tours.values()
        if tour.active
    ]
