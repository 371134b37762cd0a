"""The terms before Pay: the booking page's checkout refuses a booking whose traveller did not tick the terms
(nothing stored), and a booking made records which terms version was accepted and when; API clients accept
the current terms by checking out (the contract's request is unchanged)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from booking.models import Booking
from operator_profile import legal
from operator_profile.models import LegalText
from tests.booking.test_checkout import LEGACY, V1, pickup, ride, server_amount
from tests.conftest import assert_problem

PAGE = "/api/page/checkout"

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


def page_ride() -> dict:
    return {
        "from": "Hotel Sacher",
        "to": "Flughafen Wien",
        "pickupDatetime": pickup()[:16],
        "vehicleClass": "executive",
        "name": "Anna Berger",
        "email": "anna@example.com",
        "phone": "+43 660 1234567",
        "locale": "en",
    }


def checkout(client, **extra):
    data = page_ride()
    body = {"amount": server_amount(client, data), "bookingData": data, **extra}
    return client.post(PAGE, body, content_type="application/json")


@pytest.mark.parametrize("consent", [{}, {"termsAccepted": False}, {"termsAccepted": None}])
def test_without_the_ticked_terms_the_page_checkout_names_the_field_and_stores_nothing(client, consent):
    response = checkout(client, **consent)
    body = assert_problem(response, 400, "invalid_request", "termsAccepted")
    assert body["errors"] == {"termsAccepted": ["Accept the terms and conditions to book."]}
    assert Booking.objects.count() == 0


def test_a_ticked_booking_records_the_terms_version_and_when(client):
    before = timezone.now()
    response = checkout(client, termsAccepted=True)
    assert response.status_code == 201, response.content
    booking = Booking.objects.get()
    assert booking.accepted_terms == legal.current(LegalText.Kind.TERMS)
    assert booking.accepted_terms.version == 1  # published by the migration
    assert before <= booking.terms_accepted_at <= timezone.now()


def test_a_newly_published_version_is_the_one_the_next_booking_accepts(client):
    draft = LegalText.objects.create(kind="terms", body_de="Neue AGB", body_en="New terms")
    assert checkout(client, termsAccepted=True).status_code == 201
    legal.publish(draft.pk)
    data = page_ride()
    data["pickupDatetime"] = (
        (timezone.localtime() + timedelta(days=4)).replace(hour=11, minute=0).isoformat()[:16]
    )
    second = client.post(
        PAGE,
        {"amount": server_amount(client, data), "bookingData": data, "termsAccepted": True},
        content_type="application/json",
    )
    assert second.status_code == 201, second.content
    first, latest = Booking.objects.order_by("id")
    assert (first.accepted_terms.version, latest.accepted_terms.version) == (1, 2)


@pytest.mark.parametrize("path", [LEGACY, V1])
def test_an_api_checkout_accepts_the_current_terms_without_a_new_field(client, writer, path):
    data = ride()
    response = client.post(
        path,
        {"amount": server_amount(client, data), "bookingData": data},
        content_type="application/json",
        **writer,
    )
    assert response.status_code in (200, 201), response.content
    booking = Booking.objects.get()
    assert booking.accepted_terms.version == 1 and booking.terms_accepted_at is not None


def test_staff_see_the_accepted_terms_version_on_the_booking(client, admin_client):
    assert checkout(client, termsAccepted=True).status_code == 201
    booking = Booking.objects.get()
    page = admin_client.get(f"/admin/booking/booking/{booking.pk}/change/").content.decode()
    assert f"terms version 1 accepted {timezone.localtime(booking.terms_accepted_at):%d.%m.%Y %H:%M}" in page
    assert '<a href="/en/terms?version=1">' in page
