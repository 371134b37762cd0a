"""Outside MCP clients written in TypeScript, each against a live gunicorn (tests/mcp_endpoint/live.py): the
official TypeScript SDK 1.x (`@modelcontextprotocol/sdk`, inside most agent hosts), its v2 client
(`@modelcontextprotocol/client`, which speaks 2026-07-28), the MCP Inspector's command line, and the
official conformance suite under both revisions. They are installed from tests/mcp_endpoint/node/package-lock.json
by `make test` when npm is on the PATH; the conformance suite needs Node 22 (the Inspector's command line runs
on Node 20 too), which comes from the lockfile (the `node` package), so the machine's Node version does not
matter. The SDK's change of a paid booking runs against Django's live server instead, whose Stripe is the
in-process fake that keeps its own books."""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
import requests
from django.utils import timezone

from access import tokens
from tests.booking.test_checkout import ride, server_amount
from tests.mcp_endpoint.frameworks.plans import limited_tokens
from tests.mcp_endpoint.live import LiveServer, booking_count
from tests.mcp_endpoint.mcp import TOOL_NAMES
from tests.mcp_endpoint.test_mcp_client import PICKUP, READ_CALLS
from tests.mcp_endpoint.test_sdk_changes import books_agree, dearer_then_cheaper
from tests.mcp_endpoint.token_proxy import token_proxy
from tests.payments import fake_stripe

NODE_TOOLS = Path(__file__).parent / "node"
NODE = NODE_TOOLS / "node_modules" / ".bin" / "node"
if not NODE.exists():
    pytest.skip(
        "the Node MCP clients are not installed: `make test` installs them from tests/mcp_endpoint/node/package-lock.json "
        "when npm is on the PATH (CI has it); without npm these outside-client tests cannot run",
        allow_module_level=True,
    )

# (package, connect mode, the revision it must end up speaking)
TYPESCRIPT_CLIENTS = [
    pytest.param("v1", "legacy", "2025-11-25", id="sdk-1.x"),
    pytest.param("v2", "legacy", "2025-11-25", id="client-v2-legacy"),
    pytest.param("v2", "auto", "2026-07-28", id="client-v2-auto"),
]
REFUSED_ARGUMENTS = {
    "name": "booking.calculate_price",
    "arguments": {"distanceKm": "twenty", "vehicleClass": "first"},
}


def node(*args: str, stdin: str = "", timeout: int = 120) -> subprocess.CompletedProcess:
    # The Inspector keeps a catalogue under HOME: give it one of its own.
    env = {**os.environ, "HOME": str(NODE_TOOLS / "node_modules" / ".home"), "NO_COLOR": "1"}
    return subprocess.run(
        [str(NODE), *args],
        cwd=NODE_TOOLS,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def session(server: LiveServer, sdk: str, mode: str, token: str, calls: list[dict], **plan) -> dict:
    """One connection through a TypeScript client playing `calls`; its report (tests/mcp_endpoint/node/session.mjs)."""
    ran = node("session.mjs", sdk, mode, server.mcp_url, token, stdin=json.dumps({"calls": calls, **plan}))
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


def v1(server: LiveServer, path: str, **params) -> dict:
    response = requests.get(f"{server.base}{path}", params=params, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def problem_in(result: dict) -> dict:
    """The problem an isError result carries: as text, never as structuredContent (it would break the
    tool's outputSchema, which these clients enforce)."""
    assert result["isError"] is True and "structuredContent" not in result, result
    (content,) = result["content"]
    return json.loads(content["text"])


@pytest.mark.parametrize(("sdk", "mode", "revision"), TYPESCRIPT_CLIENTS)
def test_a_typescript_client_quotes_books_and_reads_a_refusal(server, sdk, mode, revision):
    ride = {"from": "Vienna Airport", "to": "Hotel Sacher Wien"}
    route = v1(server, "/api/v1/distance", **ride)
    price = v1(
        server, "/api/v1/price", distanceKm=route["distance"], vehicleClass="first", inZoneA=route["inZoneA"]
    )
    booking_data = {
        **ride,
        "pickupDatetime": PICKUP.isoformat(),
        "vehicleClass": "first",
        "name": "Ada Traveller",
    }
    checkout = {"amount": round(price["priceEur"] * 100), "bookingData": booking_data}
    reads = [(tool, path, arguments) for tool, path, arguments in (call.values for call in READ_CALLS)]
    calls = [{"name": tool, "arguments": arguments} for tool, _, arguments in reads]
    calls += [REFUSED_ARGUMENTS, {"name": "booking.create_checkout", "arguments": checkout}]

    report = session(server, sdk, mode, server.write_token, calls)

    assert "connect" not in report, report
    assert report["protocolVersion"] == revision
    assert (report["server"]["name"], report["server"]["version"]) == ("chauffeur-booking", "0.2.0")
    assert "booking.create_checkout" in report["instructions"]
    assert [tool["name"] for tool in report["tools"]] == TOOL_NAMES
    *read_answers, refused, booked = report["calls"]
    for (tool, path, arguments), answer in zip(reads, read_answers, strict=True):
        result = answer["result"]  # the client validated structuredContent against the outputSchema
        assert result["isError"] is False, (tool, result)
        assert result["structuredContent"] == v1(server, path, **arguments), tool
    problem = problem_in(refused["result"])
    assert (problem["code"], problem["status"], list(problem["errors"])) == (
        "invalid_request",
        400,
        ["distanceKm"],
    )
    started = booked["result"]["structuredContent"]
    stored = v1(server, "/api/get-session-data", session_id=started["sessionId"])["bookingData"]
    assert (stored["reference"], stored["status"], stored["amountCents"]) == (
        started["reference"],
        "pending_payment",
        checkout["amount"],
    )


@pytest.mark.parametrize(("sdk", "mode", "revision"), TYPESCRIPT_CLIENTS)
def test_a_typescript_client_surfaces_the_scope_challenge_and_books_nothing(server, sdk, mode, revision):
    before = booking_count(server)
    checkout = {
        "amount": 7400,
        "bookingData": {
            "from": "Vienna Airport",
            "to": "Stephansplatz",
            "pickupDatetime": PICKUP.isoformat(),
            "vehicleClass": "executive",
        },
    }

    report = session(
        server, sdk, mode, server.read_token, [{"name": "booking.create_checkout", "arguments": checkout}]
    )

    (refusal,) = report["calls"]
    error = refusal["error"]
    if sdk == "v1":  # 1.x reports the HTTP status and keeps the JSON-RPC error's body in its message
        assert (error["type"], error["code"]) == ("StreamableHTTPError", 403)
        assert (
            '"code":"insufficient_scope"' in error["message"]
            and '"requiredScope":"booking.write"' in error["message"]
        )
    else:  # v2 reads the WWW-Authenticate scope challenge itself: the scope needed and the one it holds
        assert (error["type"], error["requiredScope"]) == (
            "InsufficientScopeError",
            "booking.read booking.write",
        )
    assert booking_count(server) == before


@pytest.mark.parametrize(("sdk", "mode", "revision"), TYPESCRIPT_CLIENTS)
@pytest.mark.parametrize("token", ["", "cbt_not-a-token"], ids=["no-token", "unknown-token"])
def test_a_typescript_client_without_a_valid_token_is_told_401(server, sdk, mode, revision, token):
    report = session(server, sdk, mode, token, [])

    error = report["connect"]["error"]
    # 1.x puts the HTTP status in `code`, v2 in `status`
    assert (error["code"] if sdk == "v1" else error["status"]) == 401, error
    body = error.get("data", {}).get("text") if sdk == "v2" else error["message"]
    assert '"code":"unauthorized"' in body


@pytest.mark.parametrize(("sdk", "mode", "revision"), TYPESCRIPT_CLIENTS)
def test_a_typescript_client_reports_a_rate_limited_call_with_the_seconds_to_wait(
    server, sdk, mode, revision
):
    (limited,) = limited_tokens(server, 1)
    calls = [
        {"name": "booking.calculate_price", "arguments": {"distanceKm": 20, "vehicleClass": "first"}}
    ] * 4

    report = session(server, sdk, mode, limited, calls)

    # one call a minute, counted by each of the server's two workers: at least two of four are refused
    refused = [call["error"] for call in report["calls"] if "error" in call]
    answered = [call["result"] for call in report["calls"] if "error" not in call]
    assert len(refused) >= 2 and all(result["isError"] is False for result in answered), report["calls"]
    for error in refused:
        wait = re.search(r"Rate limit reached: try again in (\d+) seconds\.", error["message"])
        assert wait and 1 <= int(wait.group(1)) <= 60, error
        if sdk == "v1":  # 1.x: the HTTP status in `code`, the whole JSON-RPC error in its message
            assert (error["type"], error["code"]) == ("StreamableHTTPError", 429), error
            assert f'"retryAfter":{wait.group(1)}' in error["message"], error
        else:
            assert error["status"] == 429, error


def test_the_documented_claude_desktop_entry_works_as_configured(server):
    """The claude_desktop_config.json entry of docs/agents/clients.md, started as a desktop host starts it
    (over stdio): only `npx -y` becomes the locked copy, and the address and token become the live server's."""
    page = (Path(__file__).parents[2] / "docs" / "agents" / "clients.md").read_text(encoding="utf-8")
    (block,) = [text for text in re.findall(r"```json\n(.*?)```", page, re.S) if "mcp-remote" in text]
    (entry,) = json.loads(block)["mcpServers"].values()
    assert entry["command"] == "npx" and entry["args"][:2] == [
        "-y",
        f"mcp-remote@{locked_version('mcp-remote')}",
    ]
    args = [server.mcp_url if arg.startswith("https://") else arg for arg in entry["args"][2:]]
    env = {name: value.replace("cbt_your_token", server.read_token) for name, value in entry["env"].items()}
    stdio = {
        "command": str(NODE),
        "args": ["node_modules/.bin/mcp-remote", *args],
        "env": env,
        "cwd": str(NODE_TOOLS),
    }

    report = session(server, "stdio", "legacy", "", [REFUSED_ARGUMENTS], stdio=stdio)

    assert "connect" not in report, report
    assert [tool["name"] for tool in report["tools"]] == TOOL_NAMES
    (refused,) = report["calls"]
    assert problem_in(refused["result"])["code"] == "invalid_request"


def locked_version(package: str) -> str:
    return json.loads((NODE_TOOLS / "package.json").read_text())["dependencies"][package]


# --- the MCP Inspector's command line ------------------------------------------------------------------


def inspector(server: LiveServer, era: str, *args: str) -> subprocess.CompletedProcess:
    return node(
        "node_modules/.bin/mcp-inspector",
        "--cli",
        server.mcp_url,
        "--header",
        f"Authorization: Bearer {server.write_token}",
        "--protocol-era",
        era,
        "--format",
        "json",
        *args,
    )


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_the_inspector_lists_portable_tools_and_reads_a_refusal(server, era):
    listed = inspector(server, era, "--method", "tools/list", "--strict")
    # --strict exits 6 on a tool schema that model providers would reject (its portability check).
    assert listed.returncode == 0, listed.stderr
    assert [tool["name"] for tool in json.loads(listed.stdout)["result"]["tools"]] == TOOL_NAMES

    refused = inspector(
        server,
        era,
        "--method",
        "tools/call",
        "--tool-name",
        REFUSED_ARGUMENTS["name"],
        "--tool-args-json",
        json.dumps(REFUSED_ARGUMENTS["arguments"]),
    )
    assert refused.returncode == 5, refused.stderr  # the Inspector's exit code for a result with isError
    assert problem_in(json.loads(refused.stdout)["result"])["code"] == "invalid_request"
    assert ("_meta" in json.loads(refused.stdout)["result"]) is (era == "modern")


# --- the official conformance suite -----------------------------------------------------------------------

# Scenarios that must run and pass whole under each revision (the rest the baseline explains).
MUST_PASS = {
    "2025-11-25": ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"],
    "2026-07-28": [
        "tools-list",
        "dns-rebinding-protection",
        "http-header-validation",
        "input-required-result-unsupported-methods",
        "input-required-result-validate-input",
    ],
}


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
def test_the_conformance_suite_passes_every_scenario_this_server_can_take(server, revision, tmp_path):
    with token_proxy(server.base, server.read_token) as proxy:
        ran = node(
            "node_modules/.bin/conformance",
            "server",
            "--url",
            f"{proxy}/api/mcp",
            "--requirements",
            revision,
            "--expected-failures",
            "conformance-baseline.yml",
            "-o",
            str(tmp_path),
            timeout=600,
        )

    # Exit 0: every failure is in the baseline, and no baselined failure has started to pass.
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]
    outcomes = {}
    for checks in tmp_path.glob("server-*/checks.json"):
        scenario = re.match(r"server-(.+)-\d{4}-\d\d-\d\dT", checks.parent.name)[1]  # minus its timestamp
        outcomes[scenario] = {check["status"] for check in json.loads(checks.read_text())}
    for scenario in MUST_PASS[revision]:
        assert "SUCCESS" in outcomes[scenario] and not outcomes[scenario] & {"FAILURE", "WARNING"}, scenario


@pytest.mark.django_db(transaction=True, serialized_rollback=True)  # seeded tariffs kept
def test_the_typescript_sdk_changes_a_paid_booking_as_the_python_sdk_does(live_server, settings, client):
    """Quote, show the difference, confirm, through the official TypeScript SDK against the service with a
    Stripe that keeps its own books: the steps and the books' checks of test_sdk_changes.py."""
    with fake_stripe.installed(settings) as stripe:
        settings.ALLOWED_HOSTS = ["*"]
        _token, plain = tokens.issue_token(name="agent", scopes=["booking.read", "booking.write"])

        def answer(name: str, arguments: dict) -> dict:
            ran = node(
                "session.mjs",
                "v1",
                "legacy",
                f"{live_server.url}/api/mcp",
                plain,
                stdin=json.dumps({"calls": [{"name": name, "arguments": arguments}]}),
            )
            assert ran.returncode == 0, ran.stderr
            (call,) = json.loads(ran.stdout)["calls"]
            assert call["result"]["isError"] is False, call
            return call["result"]["structuredContent"]

        data = ride(vehicleClass="executive")
        started = answer(
            "booking.create_checkout", {"amount": server_amount(client, data), "bookingData": data}
        )
        reference = started["reference"]
        stripe.pay(client, started["sessionId"])
        pickup = timezone.localtime(books_agree(stripe, reference).pickup_at).isoformat()

        def change(wanted: dict) -> tuple[dict, dict]:
            quoted = answer("booking.quote_change", {"reference": reference, **wanted})
            return quoted, answer(
                "booking.change_booking", {"reference": reference, "changeQuoteId": quoted["id"]}
            )

        dearer_then_cheaper(client, stripe, reference, pickup, change)
