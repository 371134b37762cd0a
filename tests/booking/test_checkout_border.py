"""The share of the route in Austria stored with the booking at checkout: from the route the
checkout already estimated, a tour's from its staff setting, null for a ride all in Austria; no price
changes."""

import io
from decimal import ROUND_HALF_UP, Decimal

import pytest
from pypdf import PdfReader

from booking.models import Booking
from invoicing import invoice_pdf
from invoicing.models import Invoice
from operator_profile.models import OperatorProfile
from payments import payment_updates
from pricing import services as pricing
from pricing.models import Tour
from tests.booking.test_checkout import LEGACY, post, ride, server_amount

TOUR_PRICE = 24900  # the city tour in an executive car (tests/pricing/defaults.py)
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


def book(client, amount=None, **overrides) -> Booking:
    data = ride(**overrides)
    amount = amount or server_amount(client, data)
    response = post(client, LEGACY, {"amount": amount, "bookingData": data})
    assert response.status_code == 200, response.content
    booking = Booking.objects.get()
    assert booking.amount_cents == amount  # the share changes no price
    return booking


def test_a_ride_to_bratislava_airport_stores_its_share_in_austria(client):
    booking = book(client, to="Bratislava Airport (BTS)")
    # Hotel Sacher → BTS as the straight line (the offline provider): about 0.69–0.75 in Austria
    # (tests/places/test_border.py checks the bounds by hand).
    assert Decimal("0.687") <= booking.austria_share <= Decimal("0.747")
    assert booking.austria_share == booking.austria_share.quantize(Decimal("0.001"))


def test_a_ride_all_in_austria_stores_null(client):
    assert book(client, to="Flughafen Wien").austria_share is None


def test_a_tour_stores_the_share_staff_entered(client):
    Tour.objects.filter(slug="vienna-city-tour").update(austria_share=Decimal("0.600"))
    pricing.TARIFFS.announce()
    assert book(client, TOUR_PRICE, tourName="Vienna City Tour").austria_share == Decimal("0.600")


def test_a_tour_without_a_share_lies_all_in_austria(client):
    assert book(client, TOUR_PRICE, tourName="Vienna City Tour").austria_share is None


def test_a_booked_ride_to_bratislava_is_invoiced_with_austrian_vat_on_its_share_only(client):
    OperatorProfile.objects.filter(id=1).update(foreign_route_vat="austria_only")
    booking = book(client, to="Bratislava Airport (BTS)")
    payment_updates.mark_paid(booking.pk, method="cash", user=None, actor="test")
    invoice = Invoice.objects.get(booking=booking)
    gross = Decimal(booking.amount_cents) / 100
    in_austria = (gross * booking.austria_share).quantize(Decimal("0.01"), ROUND_HALF_UP)
    vat = in_austria - (in_austria / Decimal("1.10")).quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert (
        invoice.vat_cents == int(vat * 100) and invoice.net_cents + invoice.vat_cents == booking.amount_cents
    )
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(invoice_pdf.render(invoice))).pages)
    percent = f"{booking.austria_share * 100:.1f}".replace(".", ",").removesuffix(",0")
    assert f"Anteil der Strecke in Österreich: {percent} %" in text  # the booking's language: German
    assert "in Österreich nicht steuerbar (UStG §3a (10))" in text
