"""Agent frameworks' own MCP clients against a live gunicorn: fastmcp, langchain-mcp-adapters with
LangChain's create_agent, openai-agents (strict schemas), pydantic-ai, mcp-use, the Vercel AI SDK and
mcp-remote. Each runs as a script (tests/mcp_endpoint/frameworks/clients/,
tests/mcp_endpoint/node/vercel_ai.mjs) in the interpreter its packages live in, configured as
docs/agents/clients.md says (`?toolNames=underscore`, the token in a header; the agents, Python's and
Vercel AI's, are that page's examples, run as written), and reports what its caller saw: the tools, a call,
a tool error, the checkout → get_booking → cancel_booking round trip, 401, and inside an agent run (the
model being the stand-in of model.py) a refused scope (403) and a spent rate limit (429) as text the model
reads, the run going on to its final answer: with the seconds to wait wherever the framework passes the
error's message or the status line on (mcp-use's transport passes neither)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp_endpoint.frameworks.model import FINAL_PREFIX, OPENAI_FUNCTION_NAME, stand_in_model
from tests.mcp_endpoint.frameworks.plans import limited_tokens as issue_limited_tokens
from tests.mcp_endpoint.frameworks.plans import plan, spend
from tests.mcp_endpoint.mcp import TOOL_NAMES

ROOT = Path(__file__).resolve().parents[3]
CLIENTS = Path(__file__).parent / "clients"
NODE_TOOLS = ROOT / "tests" / "mcp_endpoint" / "node"
NODE = NODE_TOOLS / "node_modules" / ".bin" / "node"
MCP1_PYTHON = ROOT / ".venv" / "mcp1" / "bin" / "python"  # Makefile: from requirements-mcp1.txt
DOC = ROOT / "docs" / "agents" / "clients.md"
UNDERSCORED = [name.replace(".", "_") for name in TOOL_NAMES]
MARK = "REPORT "
# What a rate-limited call (429) tells: the JSON-RPC error's message, and the status line where a client
# quotes that instead of the body.
WAIT = re.compile(r"Rate limit reached: try again in \d+ seconds")
STATUS_WAIT = re.compile(r"429 Too Many Requests: retry in \d+ seconds")

# framework: (how it is run, what its section of docs/agents/clients.md configures)
FRAMEWORKS = {
    "fastmcp": ("project", "StreamableHttpTransport("),
    "langgraph": ("mcp1", "MultiServerMCPClient("),
    "openai_agents": ("project", "MCPServerStreamableHttp("),
    "pydantic_ai": ("project", "MCPToolset("),
    "mcp_use": ("mcp1", "MCPClient.from_dict("),
    "vercel_ai": ("node", "createMCPClient("),
    "mcp_remote": ("project", "mcp-remote"),
}
AGENT_FRAMEWORKS = ["langgraph", "openai_agents", "pydantic_ai", "mcp_use", "vercel_ai"]


@pytest.fixture(scope="module")
def model():
    with stand_in_model() as running:
        yield running


@pytest.fixture(scope="module")
def limited_tokens(server):
    return iter(issue_limited_tokens(server, len(FRAMEWORKS)))


def command(framework: str) -> list[str]:
    kind = FRAMEWORKS[framework][0]
    if kind == "node":
        if not NODE.exists():
            pytest.skip(
                "the Node clients are not installed: `make test` installs tests/mcp_endpoint/node when npm is on the PATH"
            )
        return [str(NODE), str(NODE_TOOLS / f"{framework}.mjs")]
    if kind == "mcp1" and not MCP1_PYTHON.exists():
        pytest.skip(
            "the mcp 1.x frameworks' venv is missing: `make test` makes .venv/mcp1 from requirements-mcp1.txt"
        )
    python = str(MCP1_PYTHON) if kind == "mcp1" else sys.executable
    extra = [str(NODE_TOOLS)] if framework == "mcp_remote" else []
    if framework == "mcp_remote" and not NODE.exists():
        pytest.skip(
            "mcp-remote is not installed: `make test` installs tests/mcp_endpoint/node when npm is on the PATH"
        )
    return [python, str(CLIENTS / f"{framework}_client.py"), *extra]


def run(framework: str, server, model, limited_tokens) -> dict:
    given = plan(server, model.base_url, next(limited_tokens))
    given["checkout"]["bookingData"]["name"] = f"Ada Traveller ({framework})"  # a booking of its own
    spend(server, given["limited"])  # now: the script asks within the minute
    ran = subprocess.run(
        command(framework),
        input=json.dumps(given),
        capture_output=True,
        text=True,
        timeout=180,
        cwd=CLIENTS,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(NODE_TOOLS / "node_modules" / ".home"),
            "MCP_USE_ANONYMIZED_TELEMETRY": "false",
            "LANGSMITH_TRACING": "false",
        },
    )
    reports = [line[len(MARK) :] for line in ran.stdout.splitlines() if line.startswith(MARK)]
    assert ran.returncode == 0 and reports, ran.stdout[-3000:] + ran.stderr[-5000:]
    return {**json.loads(reports[-1]), "checkout": given["checkout"]}


def problem_code(text: str) -> str:
    return json.loads(text)["code"]


@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_a_framework_lists_calls_books_and_reads_each_refusal(framework, server, model, limited_tokens):
    offered_before, strict_before = len(model.tool_names), len(model.strict_calls)

    found = run(framework, server, model, limited_tokens)

    assert found["tools"] == UNDERSCORED
    assert found["call"]["priceEur"] == 110.0
    if framework != "pydantic_ai":  # it raises ModelRetry with the result's text
        assert found["error"].get("isError", True) is True
        assert problem_code(found["error"]["text"]) == "invalid_request"
    else:
        assert '"code":"invalid_request"' in found["error"]["text"]
    trip = found["round_trip"]
    assert trip["checkout"]["status"] == "pending_payment"
    assert trip["get"]["reference"] == trip["checkout"]["reference"]
    assert trip["get"]["status"] == "pending_payment"
    assert trip["get"]["name"] == found["checkout"]["bookingData"]["name"]
    assert (trip["cancel"]["reference"], trip["cancel"]["status"]) == (
        trip["checkout"]["reference"],
        "cancelled",
    )
    if (
        framework == "mcp_remote"
    ):  # 401/403 through its OAuth flow: tests/mcp_endpoint/oauth/test_outside_tools.py
        assert WAIT.search(found["limited"]), found["limited"]
    else:
        assert "401" in found["unauthorized"] or "bearer token is unknown" in found["unauthorized"]
    if framework == "langgraph":  # the exception a tool call over the limit raises quotes the status line
        assert STATUS_WAIT.search(found["limited"]), found["limited"]
    if framework == "fastmcp":
        assert found["documented"]["priceEur"] == 74.0  # its example of docs/agents/clients.md, as written
        assert "booking.write scope" in found["forbidden"]
        assert WAIT.search(found["limited"]), found["limited"]
    offered = model.tool_names[offered_before:]
    assert [name for name in offered if not OPENAI_FUNCTION_NAME.match(name)] == []
    if framework in AGENT_FRAMEWORKS:
        assert set(offered) == set(UNDERSCORED), offered
        check_agent_runs(framework, found["agent"])
    if framework == "openai_agents":  # strict: the model sent null for what it left out, and was answered
        strict = model.strict_calls[strict_before:]
        assert {"distanceKm": 20, "vehicleClass": "first", "bookingType": None}.items() <= strict[0].items()
        assert re.search(r'priceEur\\*":110', found["agent"]["valid"]["final"])


def check_agent_runs(framework: str, runs: dict) -> None:
    """What the model read back in each run (its final answer quotes it): the run was not cut short."""
    final = runs
    if framework == "mcp_use":  # the agent's answer parsed back by the script
        for tool in UNDERSCORED[:4]:
            assert isinstance(final[tool], dict) and "error" not in final[tool], (tool, final[tool])
        assert '"code":"not_found"' in json.dumps(final["error"]) or "not_found" in str(final["error"])
        # its mcp 1.x transport drops a refusal's body and status line (403 and 429 alike) and closes the
        # session: the model reads no wait (docs/agents/clients.md says so)
        for refused in (final["forbidden"], final["limited"]):
            assert refused["error"] == "RuntimeError" and "Connection closed" in refused["details"], refused
        assert not re.search(r"\d+ seconds|429", final["limited"]["details"]), final["limited"]
        return
    for name, run in runs.items():
        assert "crashed" not in run, (name, run)
        assert run["final"].startswith(FINAL_PREFIX), (name, run)
    assert re.search(r'priceEur\\*":110', runs["valid"]["final"]), runs["valid"]
    assert "invalid_request" in runs["error"]["final"]
    forbidden, limited = runs["forbidden"]["final"], runs["limited"]["final"]
    if framework == "langgraph":  # the mcp 1.x transport keeps the status line and headers, not the body
        assert "HTTP 403 Forbidden" in forbidden and 'error="insufficient_scope"' in forbidden
        assert STATUS_WAIT.search(limited), limited
    else:
        assert "booking.write scope" in forbidden
        assert WAIT.search(limited), limited


@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_the_docs_configure_each_framework_with_underscored_names(framework):
    sections = re.split(r"\n### ", DOC.read_text(encoding="utf-8"))
    (section,) = [text for text in sections if f"<!-- framework: {framework} -->" in text]
    assert "/api/mcp?toolNames=underscore" in section
    assert FRAMEWORKS[framework][1] in section
    assert "cbt_your_token" in section
