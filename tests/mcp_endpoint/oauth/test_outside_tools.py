"""Tools nobody here wrote, each completing the authorization flow against the live service with the
traveller's browser of browser.py: the MCP conformance suite's authorization-server scenarios, the MCP
Inspector's command line (its interactive OAuth with a loopback callback listener), and mcp-remote as the
Claude Desktop entry of docs/agents/connect-assistant.md configures it (a 401 now leads to the
OAuth flow; a 403 for a missing scope reaches the caller)."""

import json
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from tests.mcp_endpoint.oauth.browser import Browser
from tests.mcp_endpoint.oauth.harness import OAuthLive, node_env
from tests.mcp_endpoint.oauth.rides import checkout_arguments
from tests.processes import free_port, manage

ROOT = Path(__file__).resolve().parents[3]
NODE_TOOLS = ROOT / "tests" / "mcp_endpoint" / "node"
NODE = NODE_TOOLS / "node_modules" / ".bin" / "node"
if not NODE.exists():
    pytest.skip(
        "the Node MCP clients are not installed: `make test` installs them from tests/mcp_endpoint/node/package-lock.json "
        "when npm is on the PATH",
        allow_module_level=True,
    )
URL = re.compile(r"(https?://\S+/oauth/authorize\?\S+)")


def register(live: OAuthLive, redirect_uri: str, name: str) -> str:
    registered = requests.post(
        f"{live.base}/oauth/register",
        json={
            "client_name": name,
            "redirect_uris": [redirect_uri],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        },
        timeout=10,
    )
    assert registered.status_code == 201, registered.text
    return registered.json()["client_id"]


class Lines:
    """A process's output stream read on a thread, so the test can wait for a line with a deadline."""

    def __init__(self, stream) -> None:
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.append(line)

    def wait_for(self, pattern: re.Pattern, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines:
                if found := pattern.search(line):
                    return found[1]
            time.sleep(0.1)
        raise AssertionError(f"no line matching {pattern.pattern!r}:\n" + "".join(self.lines[-60:]))


def follow_back(callback: str) -> None:
    """The browser's last step: load the client's redirect URI (its loopback listener takes the code)."""
    assert requests.get(callback, timeout=30).status_code == 200


def offer_back(callback: str) -> bool:
    """follow_back for a client that may have stopped listening meanwhile: whether it took the code."""
    try:
        return requests.get(callback, timeout=30).status_code == 200
    except requests.ConnectionError:
        return False


# --- the MCP conformance suite ----------------------------------------------------------------------------


def test_the_conformance_suites_authorization_server_scenarios_pass(live, tmp_path):
    """`conformance authorization` holds the suite's scenarios for an authorization server (the `auth/…`
    scenarios of `conformance client` test clients and do not apply to a server): the metadata endpoint,
    and the authorization code grant with PKCE driven through a browser."""
    port = free_port()
    client_id = register(live, f"http://127.0.0.1:{port}/callback", "MCP conformance suite")
    process = subprocess.Popen(
        [
            str(NODE),
            "node_modules/.bin/conformance",
            "authorization",
            "--url",
            live.base,
            "--client-id",
            client_id,
            "--resource",
            live.mcp_url,
            "--port",
            str(port),
            "-o",
            str(tmp_path / "results"),
            "--spec-version",
            "2025-11-25",
        ],
        cwd=NODE_TOOLS,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=node_env(tmp_path / "home"),
    )
    output = Lines(process.stdout)
    authorize = output.wait_for(URL)
    follow_back(Browser(live).authorize(authorize, email="conformance@example.com"))
    assert process.wait(timeout=120) == 0, "".join(output.lines)[-4000:]

    checks = {
        check["id"]: check
        for path in (tmp_path / "results").rglob("checks.json")
        for check in json.loads(path.read_text())
    }
    assert set(checks) >= {
        "authorization-server-metadata",
        "authorization-server-metadata-cimd",
        "authorization-code-grant",
    }
    assert {check["status"] for check in checks.values()} == {"SUCCESS"}, checks


# --- the MCP Inspector's command line --------------------------------------------------------------------


def test_the_inspector_cli_runs_its_oauth_flow_and_lists_the_tools(live, tmp_path):
    """The Inspector's CLI signs in by itself when the server answers 401 (dynamic registration, a loopback
    callback listener); without a terminal it needs MCP_AUTO_OPEN_ENABLED=true, and prints the URL it asks
    the browser to open (BROWSER records it here instead of starting one)."""
    port = free_port()
    recorder = tmp_path / "browser.sh"
    recorder.write_text(f'#!/bin/sh\necho "$1" >> {tmp_path}/opened.txt\n')
    recorder.chmod(0o755)
    process = subprocess.Popen(
        [
            str(NODE),
            "node_modules/.bin/mcp-inspector",
            "--cli",
            live.mcp_url,
            "--method",
            "tools/list",
            "--format",
            "json",
            "--callback-url",
            f"http://127.0.0.1:{port}/oauth/callback",
        ],
        cwd=NODE_TOOLS,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=node_env(tmp_path / "home", MCP_AUTO_OPEN_ENABLED="true", BROWSER=str(recorder)),
    )
    errors = Lines(process.stderr)
    authorize = errors.wait_for(re.compile(r"Please navigate to: (\S+)"))
    browser = Browser(live)
    follow_back(browser.authorize(authorize, email="inspector@example.com"))
    out, _ = process.communicate(timeout=120)

    assert process.returncode == 0, "".join(errors.lines)[-4000:]
    tools = [tool["name"] for tool in json.loads(out)["result"]["tools"]]
    assert "booking.list_bookings" in tools and "booking.create_checkout" in tools
    assert "/oauth/consent" in " ".join(url for url, _, _ in browser.pages)


# --- mcp-remote, as the Claude Desktop entry configures it -------------------------------------------------


def claude_desktop_entry(page_name: str = "connect-assistant.md") -> dict:
    page = (ROOT / "docs" / "agents" / page_name).read_text(encoding="utf-8")
    (block,) = [text for text in re.findall(r"```json\n(.*?)```", page, re.S) if "mcp-remote" in text]
    (entry,) = json.loads(block)["mcpServers"].values()
    return entry


SESSION_SECONDS = 180


def through_mcp_remote(
    live: OAuthLive, tmp_path: Path, email: str, calls: list[dict], *extra: str, entry: dict | None = None
) -> tuple[dict, list[tuple[str, bool]]]:
    """The documented entry started as a desktop host starts it (over stdio, by the TypeScript SDK's stdio
    client in session.mjs): `npx -y` becomes the locked copy, the address the live server's. Every URL
    mcp-remote asks the browser to open is authorized by the traveller as it comes; the second element of
    the answer says, for each, whether mcp-remote was still listening for the code."""
    if entry is None:
        entry = claude_desktop_entry()
        assert not any("Authorization" in arg for arg in entry["args"])  # no token: OAuth does it
    assert (
        entry["command"] == "npx" and entry["args"][0] == "-y" and entry["args"][1].startswith("mcp-remote@")
    )
    args = [live.mcp_url if arg.startswith("https://") else arg for arg in entry["args"][2:]]
    recorder = tmp_path / "browser.sh"
    opened = tmp_path / "opened.txt"
    recorder.write_text(f'#!/bin/sh\necho "$1" >> {opened}\n')
    recorder.chmod(0o755)
    env = node_env(tmp_path / "home", BROWSER=str(recorder), **entry.get("env", {}))
    stdio = {
        "command": str(NODE),
        "args": ["node_modules/.bin/mcp-remote", *args, *extra],
        "env": env,
        "cwd": str(NODE_TOOLS),
    }
    # Files, not pipes: a report beyond a pipe's 64 KiB would block the client until someone reads it, and
    # mcp-remote, its child, writes to stderr too and may outlive it.
    said, report = tmp_path / "stderr.txt", tmp_path / "report.json"
    with report.open("w") as report_file, said.open("w") as said_file:
        process = subprocess.Popen(
            [str(NODE), "session.mjs", "stdio", "legacy", "", ""],
            cwd=NODE_TOOLS,
            stdin=subprocess.PIPE,
            stdout=report_file,
            stderr=said_file,
            text=True,
            env=env,
            start_new_session=True,  # its own group: a kill takes mcp-remote, its child, too
        )
    process.stdin.write(json.dumps({"calls": calls, "stdio": stdio}))
    process.stdin.close()
    authorized: list[tuple[str, bool]] = []
    browser = Browser(live)
    deadline = time.monotonic() + SESSION_SECONDS
    while process.poll() is None and time.monotonic() < deadline:
        asked = opened.read_text().split() if opened.exists() else []
        for url in asked[len(authorized) :]:
            authorized.append((url, offer_back(browser.authorize(url, email=email))))
        time.sleep(0.2)
    if process.poll() is None:  # a client that waits for nothing fails the test, never hangs the run
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        pytest.fail(
            f"mcp-remote's session did not end in {SESSION_SECONDS} s; authorized {authorized}: "
            + said.read_text()[-4000:]
        )
    out = report.read_text()
    assert process.returncode == 0, said.read_text()[-4000:]
    return json.loads(out), authorized


def test_mcp_remote_meets_the_401_signs_the_traveller_in_and_books(live, tmp_path):
    email = "remote@example.com"
    checkout = checkout_arguments(live.base, "Remote Traveller")
    calls = [
        {"name": "booking.create_checkout", "arguments": checkout},
        {"name": "booking.list_bookings", "arguments": {}},
    ]

    report, authorized = through_mcp_remote(live, tmp_path, email, calls)

    assert "connect" not in report, report
    assert [taken for _, taken in authorized] == [True]
    assert "booking.list_bookings" in [tool["name"] for tool in report["tools"]]
    booked, listed = (call["result"] for call in report["calls"])
    assert booked["isError"] is False and listed["isError"] is False, report["calls"]
    reference = booked["structuredContent"]["reference"]
    assert [b["reference"] for b in listed["structuredContent"]["bookings"]] == [reference]
    owner = live.shell(
        f"from booking.models import Booking; print(Booking.objects.get(reference={reference!r}).email)"
    )
    assert owner == email


def test_mcp_remote_with_a_read_only_consent_meets_the_403_when_booking(live, tmp_path):
    """A consent for booking.read only (the scope pinned with mcp-remote's --static-oauth-client-metadata):
    booking answers 403 insufficient_scope. mcp-remote takes the challenge as a step-up and sends the browser
    to authorize again (once or more), but its pinned scope wins over the challenged one, so it asks for
    booking.read again;
    the retried call meets the 403 once more and the caller reads mcp-remote's own "Unauthorized" error.
    Nothing is booked."""
    email = "remote.reader@example.com"
    checkout = checkout_arguments(live.base, "Reader Traveller")
    calls = [
        {"name": "booking.list_bookings", "arguments": {}},
        {"name": "booking.create_checkout", "arguments": checkout},
    ]

    report, authorized = through_mcp_remote(
        live, tmp_path, email, calls, "--static-oauth-client-metadata", '{"scope": "booking.read"}'
    )

    listed, refused = report["calls"]
    assert listed["result"]["isError"] is False
    assert refused["error"]["code"] == -32001 and "Unauthorized" in refused["error"]["message"], refused
    # the sign-in, then the step-up(s) it attempted after the 403: how many, and whether it still waited
    # for the code when the traveller was back, varies from run to run; the caller's answer does not
    assert len(authorized) >= 2 and authorized[0][1] is True
    assert all(parse_qs(urlsplit(url).query)["scope"] == ["booking.read"] for url, _ in authorized)
    count = live.shell(
        f"from booking.models import Booking; print(Booking.objects.filter(email={email!r}).count())"
    )
    assert count == "0"


def test_mcp_remote_with_the_static_token_entry_meets_the_403(live, tmp_path):
    """Issue 27: the static-token entry of docs/agents/clients.md (a read-only admin-issued token in the
    header) calling the checkout. The 403 challenge now leads mcp-remote to a step-up it can complete: it
    registers (no more "Dynamic Client Registration rejected (HTTP 404)"), the traveller signs in and allows
    booking.read and booking.write; but the configured header still carries the static token on the retry,
    so the 403 comes back and the caller reads mcp-remote's "403 insufficient_scope" error. Nothing is booked
    and nothing is booked under the traveller who signed in."""
    issued = manage("issue_token", "mcp-remote reader", "--scope", "booking.read", **live.env)
    token = issued.stdout.strip().splitlines()[-1]
    entry = claude_desktop_entry("clients.md")
    entry["env"] = {name: value.replace("cbt_your_token", token) for name, value in entry["env"].items()}
    checkout = checkout_arguments(live.base, "Static Reader")
    calls = [{"name": "booking.create_checkout", "arguments": checkout}]

    report, authorized = through_mcp_remote(live, tmp_path, "static.reader@example.com", calls, entry=entry)

    (refused,) = report["calls"]
    assert refused["error"]["code"] == -32001, refused
    assert "403 insufficient_scope after step-up re-authorization" in refused["error"]["message"]
    ((step_up, _),) = authorized
    assert parse_qs(urlsplit(step_up).query)["scope"] == [
        "booking.read booking.write"
    ]  # the challenge's scopes
    count = live.shell(
        "from booking.models import Booking; print(Booking.objects.filter(name='Static Reader').count())"
    )
    assert count == "0"


def test_every_entry_of_the_connector_page_names_the_endpoint_and_no_token():
    """docs/agents/connect-assistant.md: each configuration (JSON blocks, the Claude Code command) points at
    the endpoint and carries no token or header: the assistant signs in through OAuth."""
    page = (ROOT / "docs" / "agents" / "connect-assistant.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(json|text)\n(.*?)```", page, re.S)  # text: the command, which tests cannot run
    assert [kind for kind, _ in blocks].count("json") == 3 and [kind for kind, _ in blocks].count("text") == 1
    for kind, text in blocks:
        if kind == "json":
            json.loads(text)
        assert "https://chauffeur.example.com/api/mcp" in text
        assert "Authorization" not in text and "cbt_" not in text and "header" not in text.lower()
