"""The official MCP conformance suite's authorization server scenario against a live gunicorn: it reads
/.well-known/oauth-authorization-server as an MCP client would and checks it (RFC 8414 and MCP's own
requirements, client ID metadata document support included). Needs the Node tools of tests/mcp_endpoint/node."""

import json

import pytest

from tests.mcp_endpoint.live import live_server
from tests.mcp_endpoint.test_node_clients import node  # skips this module too when the Node tools are missing


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with live_server(tmp_path_factory.mktemp("live_oauth"), workers=1) as running:
        yield running


def test_the_conformance_suite_accepts_the_authorization_server_metadata(server, tmp_path):
    ran = node(
        "node_modules/.bin/conformance",
        "authorization",
        "--url",
        server.base,
        "--scenario",
        "authorization-server-metadata-endpoint",
        "-o",
        str(tmp_path),
    )
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]
    checks = [check for path in tmp_path.rglob("checks.json") for check in json.loads(path.read_text())]
    assert {check["id"] for check in checks} >= {
        "authorization-server-metadata",
        "authorization-server-metadata-cimd",
    }
    assert {check["status"] for check in checks} == {"SUCCESS"}
