"""A booking's personal data removed while the ride stays a record of what was sold: its route's figures,
price, states, times, chauffeur and money. The invoices and credit notes issued keep what they printed: the
law keeps them (privacy/retention.py says how long)."""

import re
from datetime import datetime

from django.db import transaction

from booking import selectors
from booking.models import Booking, BookingEvent, FlightWatch

REMOVED = "—"  # where an address stood: the ride had one, it is no longer kept

# What identifies the traveller or says where they live, travel and what they asked for.
CLEARED: dict[str, object] = {
    "name": "",
    "email": "",
    "phone": "",
    "notes": "",
    "flight_number": "",
    "flight_data": None,
    "booking_data": {},
    "billing_address": "",
    "billing_vat_id": "",
    "text_messages": False,
    "water_choice": "",
    "origin": REMOVED,
    "destination": REMOVED,
    "stops": [],  # their price lines stay, numbered, without the addresses
}


def anonymise(booking_id: int, now: datetime) -> bool:
    """Remove the booking's personal data, and every trace of it in its history (staff notes go whole);
    False when it was already removed. The booking is locked first, as every change to it is."""
    with transaction.atomic():
        booking = selectors.locked_booking(booking_id)
        if booking.anonymised_at is not None:
            return False
        traces = _traces(booking)
        cleared = dict(CLEARED)
        if booking.documents_waiting_since is None:
            cleared["invoice_draft"] = None  # an invoice still to be issued prints it; otherwise it goes
        Booking.objects.filter(pk=booking.pk).update(**cleared, anonymised_at=now)
        booking.history.filter(kind=BookingEvent.Kind.NOTE).delete()
        FlightWatch.objects.filter(booking=booking).delete()  # it names the flight
        for event in booking.history.all():
            # "By" names staff, chauffeurs and tokens: only the traveller's address is theirs to lose there.
            text, params = _without(event.text, traces), _without(event.params, traces)
            actor = _without(event.actor, [trace for trace in traces if trace == booking.email.strip()])
            if (text, actor, params) != (event.text, event.actor, event.params):
                BookingEvent.objects.filter(pk=event.pk).update(text=text, actor=actor, params=params)
    return True


def _traces(booking: Booking) -> list[str]:
    values = [booking.name, booking.email, booking.phone, booking.origin, booking.destination]
    values += [booking.flight_number, booking.billing_address]
    values += [stop.get("address", "") for stop in booking.stops or ()]
    for change in booking.history.filter(kind=BookingEvent.Kind.CHANGE):
        values += _changed_texts(change.params)  # the addresses and stops a change replaced
    # The longest first: a name inside an e-mail address goes with the address.
    return sorted({value.strip() for value in values if len(value.strip()) >= 3}, key=len, reverse=True)


def _changed_texts(params) -> list[str]:
    """The texts a change's entry names before and after (addresses, stops one by one, extras)."""
    if isinstance(params, list):
        return [text for item in params for text in _changed_texts(item)]
    if not isinstance(params, dict):
        return []
    texts = []
    for key, value in params.items():
        if key in ("before", "after") and isinstance(value, str):
            stops = value.split("; ")  # a change writes stops "Hotel Sacher (15 min); Stephansplatz"
            texts += [value, *stops, *(re.sub(r" \(\d+ min\)\Z", "", stop) for stop in stops)]
        else:
            texts += _changed_texts(value)
    return texts


def _without(value, traces: list[str]):
    if isinstance(value, str):
        for trace in traces:  # as a whole word, in any case: "Eva" goes, "Evangelia" stays
            value = re.sub(rf"(?<!\w){re.escape(trace)}(?!\w)", REMOVED, value, flags=re.IGNORECASE)
        return value
    if isinstance(value, list):
        return [_without(item, traces) for item in value]
    if isinstance(value, dict):
        return {key: _without(item, traces) for key, item in value.items()}
    return value
