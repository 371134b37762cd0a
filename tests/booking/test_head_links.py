"""HEAD on the pages a booking's links open (the customer's page, the payment's return pages, the sandbox's
payment page): answered like GET, with no body (every other path: tests/apikit/test_head.py)."""

import pytest
from django.conf import settings

from booking.links import cancel_url, manage_url
from tests.apikit.test_head import assert_head_like_get

pytestmark = pytest.mark.django_db


def test_the_booking_links_answer_head(client, make_booking, sandbox):
    booking = make_booking(provider_session_id="sbx_cs_head")
    links = [
        manage_url(booking.reference),
        cancel_url(booking.reference),
        "/booking/sandbox/sbx_cs_head",
        "/booking/success?session_id=sbx_cs_head",
    ]
    for link in links:
        assert assert_head_like_get(client, link.removeprefix(settings.PUBLIC_BASE_URL)) == 200, link
