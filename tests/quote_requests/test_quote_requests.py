"""Asking for a quote, on every door: the v1 operation and the MCP tools store the request and queue its
mails (the traveller's acknowledgement in their language, the operator's copy with its back-office page),
the token that asked reads it and nobody else, refusals store nothing; staff see it on the board and in the
back office and mark it answered; the retention policy and a traveller's erasure remove it."""

from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.test import Client
from django.utils import timezone

from access import tokens
from access.models import ApiToken
from apikit.errors import DomainError
from privacy import retention, traveller_data
from quote_requests import services
from quote_requests.models import QuoteRequest
from tests.conftest import assert_problem, bearer
from tests.mcp_endpoint.mcp import call, output_validator, tool_problem, tool_result
from tests.queued import run_pending_jobs

pytestmark = pytest.mark.django_db

PATH = "/api/v1/quote-requests"


def asked(**changes) -> dict:
    pickup = (timezone.localtime() + timedelta(days=10)).replace(hour=9, minute=0, second=0, microsecond=0)
    return {
        "from": "Hotel Sacher",
        "to": "Salzburg Hauptbahnhof",
        "pickupDatetime": pickup.isoformat(),
        "passengers": 14,
        "luggage": 14,
        "details": "A group of 14: see https://example.com/agenda, two vans or a coach",
        "name": "Anna Berger",
        "email": "anna@example.com",
        "phone": "+43 660 1234567",
        "locale": "de",
        **changes,
    }


def post(client, data: dict, headers: dict):
    return client.post(PATH, data, content_type="application/json", **headers)


def test_a_request_is_stored_open_and_both_sides_are_told(client, agent, settings):
    settings.OPERATOR_EMAIL = "office@chauffeur.test"
    response = post(client, asked(), agent)
    assert response.status_code == 201, response.content
    answer = response.json()
    stored = QuoteRequest.objects.get()
    assert answer["reference"] == stored.reference and stored.reference.startswith("QR-")
    assert (answer["status"], answer["from"], answer["passengers"], answer["phone"]) == (
        "open",
        "Hotel Sacher",
        14,
        "+436601234567",
    )
    assert (stored.channel, stored.locale, stored.api_token_id) == ("api", "de", ApiToken.objects.get().pk)
    assert mail.outbox == []  # queued, not sent inside the request
    assert run_pending_jobs() == 1
    traveller, operator = sorted(mail.outbox, key=lambda message: message.to)
    assert traveller.to == ["anna@example.com"]
    assert traveller.subject == f"Ihre Angebotsanfrage {stored.reference} ist eingegangen"
    assert "Guten Tag Anna Berger" in traveller.body and "Fahrgäste: 14" in traveller.body
    assert "https: //example. com/agenda" in traveller.body  # their text is never a link
    assert operator.to == ["office@chauffeur.test"] and operator.reply_to == ["anna@example.com"]
    assert operator.subject == f"Quote request {stored.reference}: 14 passengers"  # nothing they typed
    assert f"/admin/quote_requests/quoterequest/{stored.pk}/change/" in operator.body
    assert run_pending_jobs() == 0 and len(mail.outbox) == 2  # once


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"email": ""}, "email"),
        ({"name": None}, "name"),
        ({"pickupDatetime": "2020-01-01T10:00:00+01:00"}, "pickupDatetime"),
        ({"pickupDatetime": (timezone.localtime() + timedelta(days=400)).isoformat()}, "pickupDatetime"),
        ({"vehicleClass": "limousine"}, "vehicleClass"),
        ({"phone": "+43 900 123456"}, "phone"),
        ({"details": "x" * 2001}, "details"),
    ],
)
def test_a_request_nobody_can_answer_or_place_is_refused_and_nothing_stored(client, agent, change, field):
    data = {key: value for key, value in asked(**change).items() if value is not None}
    response = post(client, data, agent)
    problem = response.json()
    assert response.status_code == 400, problem
    assert field in problem["errors"], problem
    assert QuoteRequest.objects.count() == 0 and run_pending_jobs() == 0


def test_a_retry_gets_the_request_it_made_for_ten_minutes(client, agent, admin_client):
    first = post(client, asked(), agent).json()
    again = post(client, asked(), agent)  # a timeout, a double click
    assert again.status_code == 201 and again.json() == first
    other = post(client, asked(passengers=15), agent).json()
    assert other["reference"] != first["reference"]
    assert run_pending_jobs() == 2  # one acknowledgement each, none for the retry
    QuoteRequest.objects.filter(reference=other["reference"]).update(status="answered")
    listed = admin_client.get("/admin/quote_requests/quoterequest/").content.decode()
    assert listed.index(first["reference"]) < listed.index(other["reference"])  # the open ones first
    with time_machine.travel(timezone.now() + timedelta(minutes=11)):
        anew = post(client, asked(), agent).json()  # asked again later: a request of its own
    assert anew["reference"] not in (first["reference"], other["reference"])
    assert QuoteRequest.objects.count() == 3


def test_the_page_keys_a_retry_by_its_visitor():
    data = {**asked(), "reason": "vehicle_too_small"}
    one, another = Client(REMOTE_ADDR="198.51.100.7"), Client(REMOTE_ADDR="198.51.100.8")
    first = one.post("/api/page/quote-requests", data, content_type="application/json").json()
    assert one.post("/api/page/quote-requests", data, content_type="application/json").json() == first
    theirs = another.post("/api/page/quote-requests", data, content_type="application/json").json()
    assert theirs["reference"] != first["reference"]  # the same words from someone else: their own
    assert QuoteRequest.objects.count() == 2


def test_asking_needs_a_writing_token_and_reading_needs_the_token_that_asked(client, agent):
    assert post(client, asked(), {}).status_code == 401
    assert_problem(post(client, asked(), bearer("booking.read")), 403, "insufficient_scope")
    assert QuoteRequest.objects.count() == 0
    reference = post(client, asked(), agent).json()["reference"]
    mine = client.get(f"{PATH}/{reference.lower()}", **agent)
    assert mine.status_code == 200 and mine.json()["reference"] == reference
    theirs = client.get(f"{PATH}/{reference}", **bearer("booking.read"))
    unknown = client.get(f"{PATH}/QR-AAAAAA", **agent)
    assert assert_problem(theirs, 404, "not_found")["detail"] == assert_problem(unknown, 404, "not_found")[
        "detail"
    ].replace("QR-AAAAAA", reference)


def test_a_travellers_token_may_leave_the_address_out(client):
    token, plain = tokens.issue_token(name="assistant", scopes=["booking.write", "booking.read"])
    token.acts_for = "anna@example.com"
    token.save(update_fields=["acts_for"])
    data = {key: value for key, value in asked().items() if key != "email"}
    response = post(client, data, {"HTTP_AUTHORIZATION": f"Bearer {plain}"})
    assert response.status_code == 201, response.content
    assert QuoteRequest.objects.get().email == "anna@example.com"
    nobody = post(client, data, bearer("booking.write"))  # a token for nobody in particular must say whom
    assert "email" in assert_problem(nobody, 400, "invalid_request")["errors"]
    assert QuoteRequest.objects.count() == 1


def test_a_travellers_token_asks_in_their_name_only():
    token, _plain = tokens.issue_token(name="assistant", scopes=["booking.write"])
    token.acts_for = "anna@example.com"
    data = services.QuoteAsked(
        origin="Hotel Sacher",
        pickup=timezone.now() + timedelta(days=3),
        name="Anna",
        email="ANNA@example.com ",
    )
    assert services.in_their_name(data, token).email == "anna@example.com"
    with pytest.raises(DomainError) as refused:
        services.in_their_name(services.QuoteAsked(**{**data.__dict__, "email": "eve@example.com"}), token)
    assert (refused.value.code, refused.value.field) == ("email_not_yours", "email")


def test_an_agent_asks_and_looks_the_request_up_through_mcp(client, agent):
    arguments = {**asked(), "passengers": 30, "vehicleClass": "business-van"}
    first = tool_result(call(client, agent, "booking.request_quote", arguments))
    assert first["isError"] is False, first
    output_validator(client, agent, "booking.request_quote").validate(first["structuredContent"])
    again = tool_result(call(client, agent, "booking.request_quote", arguments))  # a retry after a timeout
    assert again["structuredContent"]["reference"] == first["structuredContent"]["reference"]
    assert QuoteRequest.objects.get().channel == "agent"
    reference = {"reference": first["structuredContent"]["reference"]}
    looked_up = tool_result(call(client, agent, "booking.get_quote", reference))
    output_validator(client, agent, "booking.get_quote").validate(looked_up["structuredContent"])
    assert looked_up["structuredContent"] == client.get(f"{PATH}/{reference['reference']}", **agent).json()
    refused = tool_problem(
        call(client, agent, "booking.request_quote", {**arguments, "email": "not an address"})
    )
    assert refused["code"] == "invalid_request" and "email" in refused["errors"]
    assert QuoteRequest.objects.count() == 1


def test_staff_see_open_requests_on_the_board_and_answer_them(client, agent, admin_client):
    reference = post(client, asked(), agent).json()["reference"]
    stored = QuoteRequest.objects.get()
    board = admin_client.get("/admin/booking/booking/dispatch/", {"range": "next7", "part": "live"}).content
    assert b'id="quote-requests"' in board and b"1 quote request to answer" in board
    listed = admin_client.get(
        "/admin/quote_requests/quoterequest/", {"status__exact": "open"}
    ).content.decode()
    assert reference in listed
    page = f"/admin/quote_requests/quoterequest/{stored.pk}/change/"
    shown = admin_client.get(page).content.decode()
    assert "A group of 14" in shown and 'name="origin"' not in shown  # what they asked stays as asked
    response = admin_client.post(
        page,
        {
            "status": "answered",
            "staff_note": "Offered two vans, 1,200 €",
            "offer_lines-TOTAL_FORMS": "0",  # no offer on the page: answered by e-mail
            "offer_lines-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302
    stored.refresh_from_db()
    assert (stored.status, stored.staff_note, stored.origin) == (
        "answered",
        "Offered two vans, 1,200 €",
        "Hotel Sacher",
    )
    board = admin_client.get("/admin/booking/booking/dispatch/", {"range": "next7", "part": "live"}).content
    assert b'id="quote-requests"' not in board
    assert admin_client.get("/admin/quote_requests/quoterequest/add/").status_code == 403


def test_a_request_erased_before_its_mail_went_gets_none(client, agent, settings):
    settings.OPERATOR_EMAIL = "office@chauffeur.test"
    post(client, asked(), agent)
    traveller_data.erase("anna@example.com", channel="staff")
    assert run_pending_jobs() == 1 and mail.outbox == []  # done, nothing sent, nothing failed


def test_the_board_counts_only_requests_still_ahead(client, agent):
    post(client, asked(), agent)
    assert services.open_requests() == 1
    with time_machine.travel(timezone.now() + timedelta(days=11)):
        assert services.open_requests() == 0  # its pickup passed: nothing left to quote


def test_requests_go_with_the_retention_policy_and_a_travellers_erasure(client, agent):
    post(client, asked(), agent)
    post(client, asked(email="bob@example.com"), agent)
    copy = traveller_data.copy_of("anna@example.com")
    assert [request["from"] for request in copy["quoteRequests"]] == ["Hotel Sacher"]
    _logged, erasure = traveller_data.erase("anna@example.com", channel="staff")
    assert erasure.quote_requests == 1
    assert list(QuoteRequest.objects.values_list("email", flat=True)) == ["bob@example.com"]
    with time_machine.travel(timezone.now() + timedelta(days=360), tick=False):
        assert retention.remove().get("quote_requests", 0) == 0
    with time_machine.travel(timezone.now() + timedelta(days=370), tick=False):
        assert {due.category.key: due.count for due in retention.preview()}["quote_requests"] == 1
        assert retention.remove()["quote_requests"] == 1
    assert QuoteRequest.objects.count() == 0


def test_the_booking_page_asks_without_a_token_and_mails_nobody_but_the_operator(client, settings):
    settings.OPERATOR_EMAIL = "office@chauffeur.test"
    data = {**asked(), "reason": "vehicle_too_small"}
    response = client.post("/api/page/quote-requests", data, content_type="application/json")
    assert response.status_code == 201, response.content
    stored = QuoteRequest.objects.get()
    assert (stored.channel, stored.reason, stored.api_token_id) == ("website", "vehicle_too_small", None)
    run_pending_jobs()
    assert [message.to for message in mail.outbox] == [["office@chauffeur.test"]]  # shown on the page instead
    refused = client.post(
        "/api/page/quote-requests", {**data, "reason": "bored"}, content_type="application/json"
    )
    assert "reason" in assert_problem(refused, 400, "invalid_request")["errors"]
    assert QuoteRequest.objects.count() == 1


def test_the_page_request_costs_a_minute_of_quoting_and_the_embedded_form_may_send_it(client, settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://www.operator.example"]
    preflight = client.options(
        "/api/page/quote-requests",
        HTTP_ORIGIN="https://www.operator.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="content-type",
    )
    assert preflight["Access-Control-Allow-Origin"] == "https://www.operator.example"
    answers = [
        client.post(
            "/api/page/quote-requests", asked(details=f"Group {number}"), content_type="application/json"
        ).status_code
        for number in range(4)
    ]
    assert answers == [201, 201, 201, 429]  # 60 requests a minute: 20 each
    assert QuoteRequest.objects.count() == 3
