"""Personal pages and answers are stored by no cache (apikit/private_answers.py): every page and answer
that shows a traveller's data or carries a capability link says `Cache-Control: private, no-store`, and so
does every other route of the project unless it is one of the few public documents that name their own
caching."""

import re
from datetime import timedelta

import pytest
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern
from django.utils import timezone

from access import tokens
from apikit.private_answers import PRIVATE, PrivateAnswersMiddleware
from apikit.public_reads import freshness_by_path
from booking import links, selectors
from booking.models import Booking, BookingStatus, PaymentMethod
from dispatch import job_links
from fleet.models import Driver
from invoicing.models import Invoice
from payments import payment_updates
from tests.booking.conftest import make_booking  # noqa: F401 (a fixture)
from tests.mcp_endpoint.mcp import call
from tests.payments import ledger_rows

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]
# Public documents with caching of their own: the operator's colours, logo and icon, the OAuth metadata;
# and the API's public reads (apikit/public_reads.py).
PUBLIC = re.compile(r"^/(company/brand\.css|company/logo|favicon\.ico|\.well-known/.*)$")


def private(response) -> bool:
    directives = {part.strip() for part in response.get("Cache-Control", "").split(",")}
    return {"private", "no-store"} <= directives


@pytest.fixture
def world(make_booking):  # noqa: F811
    """A paid booking with its invoice, its chauffeur's job link and a checkout session; a booking waiting
    for its on-account link; an API token that booked the first."""
    api_token, plain = tokens.issue_token(name="agent", scopes=["booking.read", "booking.write"])
    booking = make_booking(
        status=BookingStatus.PENDING_PAYMENT,
        name="Anna Berger",
        email="anna@example.com",
        phone="+436641234567",
        provider_session_id="cs_test_private",
        pickup_at=timezone.now() + timedelta(days=2),
        duration_s=1455,
        channel="api",
        api_token_id=api_token.pk,
    )
    with transaction.atomic():
        payment_updates.move_to_paid([selectors.locked_booking(booking.pk)], actor="test")
    driver = Driver.objects.create(name="Karl Huber", phone="+436601112223", email="karl@chauffeur.test")
    _link, key = job_links.issue(booking, driver)
    waiting = make_booking(
        status=BookingStatus.PENDING_PAYMENT, payment_method=PaymentMethod.ACCOUNT, email="bert@beispiel.at"
    )
    token = {"HTTP_AUTHORIZATION": f"Bearer {plain}"}
    return {"booking": Booking.objects.get(pk=booking.pk), "key": key, "waiting": waiting, "token": token}


def personal_paths(world) -> list[str]:
    booking = world["booking"]
    manage = links.manage_url(booking.reference).split("chauffeur.test", 1)[1]
    token = manage.split("booking=", 1)[1]
    invoice = Invoice.objects.get(booking=booking)
    account = links.account_link_url(world["waiting"]).split("chauffeur.test", 1)[1]
    return [
        manage,
        f"/booking/manage/ride?booking={token}",
        f"/booking/manage/ride.ics?booking={token}",
        f"/booking/manage/invoice.pdf?booking={token}",
        f"/booking/manage/invoice.pdf?booking={token}&number={invoice.number}",
        f"/booking/success?session_id={ledger_rows.session_of(booking)}",
        f"/booking/cancel?booking={links.booking_token(booking.reference)}",
        account,
        f"/booking/sandbox/{ledger_rows.session_of(booking)}",
        f"/chauffeur/job/{world['key']}/",
        f"/chauffeur/job/{world['key']}/calendar.ics",
        f"/chauffeur/job/{world['key']}/{booking.reference}/",
        f"/api/get-session-data?session_id={ledger_rows.session_of(booking)}",
        "/oauth/sign-in",
        "/oauth/authorize?client_id=unknown&response_type=code",
        "/oauth/consent",
    ]


def test_every_personal_page_is_private_and_stored_nowhere(client, world):
    for path in personal_paths(world):
        response = client.get(path)
        assert response.status_code < 500, path
        assert private(response), (path, response.status_code, response.get("Cache-Control"))
    assert b"Anna Berger" in client.get(personal_paths(world)[0]).content  # the pages do show her data


def test_the_apis_bookings_are_private(client, world):
    reference = world["booking"].reference
    for path in ("/api/v1/bookings", f"/api/v1/bookings/{reference}"):
        response = client.get(path, **world["token"])
        assert response.status_code == 200 and private(response), (path, response.get("Cache-Control"))
    answer = call(client, world["token"], "booking.get_booking", {"reference": reference})
    assert answer.status_code == 200 and "Anna Berger" in answer.content.decode()
    assert private(answer)


def test_the_admin_is_private(admin_client, world):
    booking = world["booking"]
    for path in (
        "/admin/",
        "/admin/booking/booking/",
        f"/admin/booking/booking/{booking.pk}/change/",
        "/admin/booking/booking/add/",
        "/admin/fleet/driver/",
        "/admin/revenue/",
        "/admin/accounting-export/",
    ):
        response = admin_client.get(path)
        assert response.status_code < 500 and private(response), (path, response.get("Cache-Control"))
    assert private(Client().get("/admin/login/"))


def routes(patterns=None, prefix: str = ""):
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver) and isinstance(pattern.pattern, RoutePattern):
            yield from routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern) and isinstance(pattern.pattern, RoutePattern):
            yield "/" + re.sub(r"<(?:\w+:)?\w+>", "x", prefix + str(pattern.pattern))


def test_every_route_is_private_unless_it_is_a_public_document(client, admin_client, world):
    walked = sorted(set(routes()))
    assert len(walked) > 50 and "/booking/manage" in walked
    for path in walked:
        for visitor in (client, admin_client):
            response = visitor.get(path)
            if (PUBLIC.match(path) or path in freshness_by_path()) and response.status_code in (200, 204):
                assert "public" in response["Cache-Control"], path
            else:
                assert private(response), (path, response.status_code, response.get("Cache-Control"))


@pytest.mark.parametrize(
    ("given", "answered"),
    [
        (None, PRIVATE),
        ("no-store", "private, no-store"),
        ("max-age=0, no-cache, no-store, must-revalidate, private", None),
        ("public, max-age=300", None),
    ],
)
def test_the_rule(rf, given, answered):
    from django.http import HttpResponse

    def view(request):
        response = HttpResponse("x")
        if given:
            response["Cache-Control"] = given
        return response

    response = PrivateAnswersMiddleware(view)(rf.get("/"))
    assert response["Cache-Control"] == (answered or given)
