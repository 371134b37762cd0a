"""History entries and price lines worded at display (booking/history.py, booking/presentation.py): stored
as a message or a line code with values, read in the viewer's language; the stored English text stays."""

from decimal import Decimal

import pytest
from django.utils import translation

from booking import history, presentation
from booking.models import BookingEvent
from pricing.quote import Quote
from pricing.services import quote_price

NBSP = "\u00a0"
pytestmark = pytest.mark.django_db


@pytest.fixture
def booking(make_booking):
    return make_booking()


def test_an_entry_is_stored_in_english_and_read_in_each_language(booking):
    change = history.said(
        "Changed: {changes}",
        changes=[
            history.said(
                "pickup {before} → {after}", before=history.moment(None), after=history.moment(None)
            ),
            history.said("price {before} → {after}", before=history.eur(7400), after=history.eur(11600)),
        ],
    )
    event = history.record(booking, history.Kind.CHANGE, change, actor="eva (staff)")
    stored = BookingEvent.objects.get(pk=event.pk)
    assert stored.text == "Changed: pickup none → none; price 74.00 EUR → 116.00 EUR"
    with translation.override("de"):
        assert history.wording(stored) == f"Geändert: Abholung — → —; Preis 74,00{NBSP}€ → 116,00{NBSP}€"
    with translation.override("en"):
        assert history.wording(stored) == "Changed: pickup — → —; price €74.00 → €116.00"


def test_states_in_an_entry_follow_the_reader(booking):
    event = history.record(
        booking,
        history.Kind.STATUS,
        history.said("{before} → {after}", before=history.state("paid"), after=history.state("confirmed")),
        actor="x",
    )
    assert event.text == "paid → confirmed"
    with translation.override("de"):
        assert history.wording(event) == "bezahlt → bestätigt"


def test_a_note_is_kept_as_typed_even_with_braces(booking):
    event = history.record(booking, history.Kind.NOTE, "Child seat {2}, please.", actor="x")
    assert (event.message, event.text) == ("", "Child seat {2}, please.")
    with translation.override("de"):
        assert history.wording(event) == "Child seat {2}, please."


def quote_in(language: str, **request) -> list[str]:
    quote = quote_price(vehicle_class="executive", distance_km=Decimal("21.8"), **request)
    with translation.override(language):
        return [f"{line.label}: {line.amount}" for line in presentation.quote_lines(quote)]


def test_price_lines_are_worded_from_their_numbers():
    assert quote_in("de", wait_minutes=20) == [
        "Grundpreis: 30.00",
        f"Strecke 21,8 km (21,8 km × 2,00{NBSP}€): 43.60",
        f"Wartezeit 20 Min. (2 × 15 Min. × 12,00{NBSP}€): 24.00",
        f"Aufgerundet auf 1,00{NBSP}€: 0.40",
    ]
    assert quote_in("en", booking_type="hourly", duration_hours=Decimal("2.25"))[0].startswith(
        "2.5 h × €65.00: "
    )
    assert quote_in("de", tour_slug="vienna-city-tour")[0] == "Tour: Wiener Stadtrundfahrt (3 Std.): 249.00"


def test_the_api_keeps_its_english_labels_and_old_records_read_without_params():
    quote = quote_price(vehicle_class="executive", distance_km=Decimal("21.8"))
    assert [line.label for line in quote.lines][:2] == ["Base fare", "Distance 21.8 km (21.8 km × 2.00 EUR)"]
    record = quote.as_record()
    assert record["lines"][1]["params"] == {"km": "21.8", "bands": [["21.8", "2.00"]]}
    for line in record["lines"]:
        del line["params"]
    old = Quote.from_record(record)
    assert [line.params for line in old.lines] == [{}, {}, {}]
    with translation.override("de"):
        assert presentation.quote_lines(old, values={"km": "21,8"})[1].label == "Strecke 21,8 km"


def test_a_refunds_state_and_a_surcharges_reason_are_worded_by_payments(booking):
    """Booking stores the codes; payments says what they read as (booking/money_shown.py), in English when
    written and in the reader's language when shown."""
    event = history.record(
        booking,
        history.Kind.PAYMENT,
        history.said(
            "Owed for {what}: {amount}; to be collected by staff.",
            what=history.surcharge_reason("waiting"),
            amount=history.eur(2400),
        ),
        actor="x",
    )
    refund = history.record(
        booking,
        history.Kind.REFUND,
        history.said("{state}", state=history.refund_state("pending")),
        actor="x",
    )
    assert (event.text, refund.text) == (
        "Owed for waiting time: 24.00 EUR; to be collected by staff.",
        "pending",
    )
    with translation.override("de"):
        assert history.wording(event) == f"Offen für Wartezeit: 24,00{NBSP}€; vom Personal zu kassieren."
        assert history.wording(refund) == "ausstehend"
