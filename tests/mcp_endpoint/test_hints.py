"""What the agent endpoint tells a model that meets a refusal: a hint naming the tool to call next or what
to change, never a REST path, an HTTP method or a header it cannot see; and each refused HTTP method in
its own words."""

import re

import pytest

from apikit.problems import PROBLEM_KINDS, Problem, problem_body
from mcp_endpoint.views import NOT_ALLOWED, QUERY_HINT
from tests.mcp_endpoint.mcp import MCP, call, error_of, rpc, tool_problem

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]

REST_WORDS = re.compile(r"/api|openapi|\b(GET|POST|PUT|PATCH|DELETE|HEAD)\b|header", re.IGNORECASE)


@pytest.mark.parametrize("code", list(PROBLEM_KINDS))
def test_no_hint_a_tool_caller_reads_names_a_rest_path_a_method_or_a_header(code):
    hint = problem_body(Problem(code, "Refused."), for_tools=True)["hint"]
    assert not REST_WORDS.search(str(hint)), (code, hint)


def test_the_rest_api_keeps_its_own_hints():
    assert problem_body(Problem("not_found", "No such resource."))["hint"] == (
        "GET /api/v1 lists every operation of this API."
    )


def test_a_booking_not_found_tells_the_model_which_tool_lists_its_bookings(client, agent):
    problem = tool_problem(call(client, agent, "booking.get_booking", {"reference": "CB-NOSUCH"}))
    assert problem["code"] == "not_found" and "booking.list_bookings" in problem["hint"]


def test_a_query_with_too_many_parameters_is_told_what_the_endpoint_reads(client, agent, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    query = "&".join(f"p{number}=1" for number in range(10))
    data = error_of(rpc(client, agent, "ping", path=f"{MCP}?{query}"), 400, -32600, request_id=1)
    assert data["hint"] == QUERY_HINT and not REST_WORDS.search(QUERY_HINT.replace("toolNames", ""))


@pytest.mark.parametrize("method", ["DELETE", "PUT", "PATCH", "TRACE"])
def test_each_refused_method_is_answered_in_its_own_words(client, agent, method):
    message = error_of(client.generic(method, MCP, **agent), 405, -32600)
    body = client.generic(method, MCP, **agent).json()["error"]["message"]
    assert message == {} and body.startswith(NOT_ALLOWED.get(method, f"{method} is not supported here."))
    assert ("session" in body) == (method == "DELETE")
