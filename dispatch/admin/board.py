"""The dispatch board: the rides of today, tomorrow or the next 7 days per driver and day, unassigned
rides first and highlighted, searched over reference, name, e-mail, phone, from and to; each ride's state
on its day, the chauffeurs late to set off highlighted, the no-shows and waiting times listed, and the
papers of chauffeurs and cars that expire soon, with the rides they would leave without valid papers. Its live
part (`?part=live`: counts, lanes, no-shows and waits) is what dispatch/static/dispatch/admin/board.js
fetches to refresh the board in place. And the CSV export of exactly that list in the staff member's
language (semicolons, and decimal commas in German, as Austrian spreadsheets expect). Every text cell is
guarded against formula injection (`guarded`)."""

import csv
import re
from datetime import datetime, timedelta
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _

from booking import presentation
from booking.models import Booking, BookingStatus, RideState
from booking.ride import RideProgress, progress
from dispatch import flight_badge, papers, planning, windows
from dispatch.models import RideDayPolicy, ride_day_policy
from fleet.models import Driver
from quote_requests import services as quote_requests
from sitekit import l10n

RANGES = {"today": (_("Today"), 0, 1), "tomorrow": (_("Tomorrow"), 1, 2), "next7": (_("Next 7 days"), 0, 7)}
MAX_SEARCH = 100
LIVE = "live"  # ?part=live: the board's live part alone
REFRESH_SECONDS = 20  # how often board.js fetches it while the tab is shown


def chosen(request: HttpRequest) -> tuple[str, str]:
    """The range and search the request asks for (unknown ranges are today's)."""
    key = request.GET.get("range", "")
    return (key if key in RANGES else "today"), request.GET.get("q", "").strip()[:MAX_SEARCH]


def found_rides(key: str, search: str):
    _label, start, end = RANGES[key]
    return planning.rides(*planning.days_from_today(start, end), search=search), start, end


def board_view(request: HttpRequest, context: dict) -> TemplateResponse:
    """The board, or with ?part=live only its live part (the same range and search)."""
    key, search = chosen(request)
    found, start, end = found_rides(key, search)
    found = list(found)
    today = timezone.localdate()
    days = [today + timedelta(days=offset) for offset in range(start, end)]
    policy, now = ride_day_policy(), timezone.now()
    expiring = papers.expiring(today, policy.paper_reminder_days)
    cards = {ride.pk: card(ride, policy, now, expiring) for ride in found}
    lanes = planning.board(found, days, [] if search else Driver.objects.filter(active=True))
    context = {
        **context,
        "title": _("Dispatch board"),
        "lanes": [(lane, [[cards[ride.pk] for ride in rides] for rides in lane.days]) for lane in lanes],
        "days": days,
        "ranges": [(name, label) for name, (label, _start, _end) in RANGES.items()],
        "range": key,
        "search": search,
        "count": len(found),
        "waiting": sum(ride.driver_id is None and ride.status == BookingStatus.PAID for ride in found),
        "late": sum(shown["late"] for shown in cards.values()),
        "waits": planning.waits(found, policy),
        "undated": planning.undated(),
        "quote_requests": quote_requests.open_requests(),
        "papers": [(shown, len(papers.rides_after(shown)), shown.expires_on < today) for shown in expiring],
        "updated": timezone.localtime(now),
        "live_url": f"{request.path}?{urlencode({'range': key, 'q': search, 'part': LIVE})}",
        "refresh_seconds": REFRESH_SECONDS,
    }
    live = request.GET.get("part") == LIVE
    template = "dispatch_live.html" if live else "dispatch.html"
    return TemplateResponse(request, f"admin/booking/booking/{template}", context)


def card(booking: Booking, policy: RideDayPolicy, now: datetime, expiring: list[papers.Expiring]) -> dict:
    window = windows.scheduled_window(booking)
    ride_day = timezone.localtime(window.end).date()
    watched = planning.watch(booking, policy, now)
    return {
        "ride": booking,
        "class_name": presentation.vehicle_name(booking.vehicle_class),
        # What the car must bring (child seats, a name sign): dispatch picks the car by it.
        "extras": ", ".join(presentation.to_bring(booking)),
        "stops": len(booking.stops or ()),
        "start": timezone.localtime(window.start),
        "end": timezone.localtime(window.end),
        # Paid and nobody drives it yet: what dispatch must act on.
        "needs_driver": booking.driver_id is None and booking.status == BookingStatus.PAID,
        "state": watched.progress.state or "",
        "state_label": ride_state_label(booking, watched.progress),
        "last_move": watched.last_move and timezone.localtime(watched.last_move),
        "late": watched.late,
        "flight": flight_badge.badge(booking),
        # Its chauffeur's or car's paper ends before the ride: dispatch renews it or reassigns the ride.
        "papers_lapse": booking.status == BookingStatus.CONFIRMED
        and any(
            shown.expires_on < ride_day
            for shown in expiring
            if shown.holder in (booking.driver, booking.vehicle)
        ),
    }


def ride_state_label(booking: Booking, progressed: RideProgress) -> str:
    """The ride's state as staff read it; "not accepted yet" only for a confirmed ride (it has a
    chauffeur), nothing for one nobody drives yet."""
    if progressed.state:
        return str(RideState(progressed.state).label)
    return str(_("not accepted yet")) if booking.status == BookingStatus.CONFIRMED else ""


COLUMNS = [
    _("reference"),
    _("state"),
    _("pickup"),
    _("until"),
    _("from"),
    _("to"),
    _("class"),
    _("service"),
    _("driver"),
    _("driver's phone"),
    _("vehicle"),
    _("customer"),
    _("phone"),
    _("e-mail"),
    _("flight"),
    _("notes"),
    _("price EUR"),
    _("payment"),
    _("ride state"),
]


def export_view(request: HttpRequest) -> HttpResponse:
    key, search = chosen(request)
    found, _start, _end = found_rides(key, search)
    stamp = timezone.localtime().strftime("%Y%m%d-%H%M")
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="rides-{key}-{stamp}.csv"'
    response.write("\ufeff")  # the BOM: spreadsheets read the file as UTF-8 (ä, ß, →)
    writer = csv.writer(response, delimiter=";")
    writer.writerow([str(column) for column in COLUMNS])
    for ride in found:
        writer.writerow(row(ride))
    return response


def row(ride: Booking) -> list[str]:
    window = windows.scheduled_window(ride)
    price = number_format(ride.quote.price, 2, use_l10n=True)  # a number: 74,00 in German, 74.00 in English
    texts = [
        ride.reference,
        ride.get_status_display(),
        l10n.short(window.start),
        l10n.short(window.end),
        ride.origin,
        ride.destination_shown,
        presentation.vehicle_name(ride.vehicle_class),
        presentation.service(ride),
        ride.driver.name if ride.driver else "",
        ride.driver.phone if ride.driver else "",
        ride.vehicle.plate if ride.vehicle else "",
        ride.name,
        ride.phone,
        ride.email,
        ride.flight_number,
        ride.notes,
    ]
    payment = ride.get_payment_method_display() if ride.paid_at else _("unpaid")
    state = ride_state_label(ride, progress(ride))
    return [guarded(str(text)) for text in texts] + [price, guarded(str(payment)), guarded(state)]


# A spreadsheet runs a cell that starts with one of these as a formula (OWASP "CSV injection"): such a cell
# gets a leading apostrophe, which makes it text. A phone number such as "+43 660 1234567" (a plus, then
# only digits and spaces) is no formula and stays as written, so staff can still dial it.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
PHONE_NUMBER = re.compile(r"\+[\d ]+")


def guarded(text: str) -> str:
    if text.startswith(FORMULA_STARTS) and not PHONE_NUMBER.fullmatch(text):
        return "'" + text
    return text
