"""Clients nobody here wrote, made from the live /openapi.json of one gunicorn (sandbox payments, so a
checkout succeeds): two linters (redocly's recommended rules, spectral's `spectral:oas`) find no error;
openapi-python-client and openapi-typescript with openapi-fetch generate clients that type-check (mypy
--strict, tsc --strict) and book, read, list and cancel a ride; schemathesis's stateful phase walks the
document's links (apikit/schema_links.py) and finds nothing. The Node tools come from
tests/openapi_clients/node/package-lock.json (`make test` installs them when npm is on the PATH)."""

import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import requests

from apikit.schema_links import LINKS
from tests.config.test_schemathesis_live import schemathesis_command
from tests.mcp_endpoint.live import LiveServer, live_server
from tests.processes import ROOT

HERE = Path(__file__).parent
NODE_TOOLS = HERE / "node"
NODE_BIN = NODE_TOOLS / "node_modules" / ".bin"
needs_node = pytest.mark.skipif(
    not (NODE_BIN / "node").exists(),
    reason="the Node OpenAPI tools are not installed: `make test` installs them from "
    "tests/openapi_clients/node/package-lock.json when npm is on the PATH (CI has it); without npm the "
    "linters and the TypeScript client cannot run",
)
# The project's own rulesets where they exist; otherwise each tool's recommended rules.
SPECTRAL_RULESET = ROOT / "tests" / "apikit" / "spectral.yaml"
REDOCLY_CONFIG = ROOT / "tests" / "apikit" / "redocly.yaml"
SCHEMATHESIS_EXPECTATIONS = ROOT / "tests" / "config" / "schemathesis.toml"
MAX_EXAMPLES = "50"  # stateful scenarios, of up to 12 steps each (stateful.toml)


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[LiveServer]:
    with live_server(tmp_path_factory.mktemp("openapi-clients")) as running:
        yield running


@pytest.fixture(scope="module")
def document(server, tmp_path_factory) -> Path:
    """The live document as a file, for the linters."""
    answer = requests.get(f"{server.base}/openapi.json", timeout=30)
    assert answer.status_code == 200, answer.text
    saved = tmp_path_factory.mktemp("document") / "openapi.json"
    saved.write_bytes(answer.content)
    return saved


def run(*command: str | Path, cwd: Path, timeout: int = 300, **env: str) -> subprocess.CompletedProcess:
    """A tool in its own process, Node's from the lockfile ahead of any other on the PATH; prints how long
    it took (shown with -s)."""
    path = f"{NODE_BIN}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    started = time.monotonic()
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env={**os.environ, "PATH": path, "NO_COLOR": "1", **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    shown = command[:3] if command[1] == "-m" else command[:2]
    print(" ".join(Path(str(part)).name for part in shown), f"{time.monotonic() - started:.1f} s")
    return done


def assert_booked_read_listed_and_cancelled(flow: subprocess.CompletedProcess, base: str) -> None:
    assert flow.returncode == 0, flow.stdout + flow.stderr
    steps = json.loads(flow.stdout)
    assert steps["priceEur"] == 74  # Hotel Sacher to the airport, executive (docs/api/endpoints.md)
    assert steps["checkoutStatus"] == "pending_payment"
    assert steps["paymentPage"].startswith(f"{base}/booking/sandbox/")
    assert steps["read"] == {"reference": steps["reference"], "status": "pending_payment", "priceEur": 74}
    assert steps["reference"] in steps["listed"]
    assert steps["cancelled"] == "cancelled"
    assert steps["unknown"]["code"] == "not_found"  # a problem the client parses as the document says


@needs_node
def test_redocly_finds_no_error_in_the_document(document):
    config = ["--config", REDOCLY_CONFIG] if REDOCLY_CONFIG.exists() else []
    # No telemetry and no update check: the test talks to nothing but its own files.
    linted = run(
        NODE_BIN / "redocly",
        "lint",
        document,
        *config,
        "--format",
        "stylish",
        cwd=document.parent,
        REDOCLY_TELEMETRY="off",
        REDOCLY_SUPPRESS_UPDATE_NOTICE="true",
    )
    assert linted.returncode == 0, linted.stdout + linted.stderr


@needs_node
def test_spectral_oas_finds_no_error_in_the_document(document):
    ruleset = SPECTRAL_RULESET
    if not ruleset.exists():
        ruleset = document.with_name("spectral.yaml")
        ruleset.write_text('extends: ["spectral:oas"]\n')
    linted = run(
        NODE_BIN / "spectral",
        "lint",
        document,
        "--ruleset",
        ruleset,
        "--fail-severity",
        "error",
        cwd=document.parent,
    )
    assert linted.returncode == 0, linted.stdout + linted.stderr


def test_the_generated_python_client_books_a_ride_and_type_checks(server, tmp_path):
    generated = run(
        Path(sys.executable).with_name("openapi-python-client"),
        "generate",
        "--url",
        f"{server.base}/openapi.json",
        "--meta",
        "none",
        "--output-path",
        tmp_path / "chauffeur_api_client",
        cwd=tmp_path,
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    # The generator says so when it leaves a part of the document out of the client.
    assert "Warning" not in generated.stdout + generated.stderr, generated.stdout + generated.stderr
    script = Path(shutil.copy(HERE / "booking_flow.py", tmp_path))

    flow = run(
        sys.executable, script, server.base, server.write_token, cwd=tmp_path, PYTHONPATH=str(tmp_path)
    )
    assert_booked_read_listed_and_cancelled(flow, server.base)

    # Strict, but for the generator's own fixed client.py, which hands `*args: object` on to httpx's typed
    # __exit__ whatever the document says.
    (tmp_path / "mypy.ini").write_text(
        "[mypy]\nstrict = True\ncache_dir = .mypy_cache\n\n"
        "[mypy-chauffeur_api_client.client]\ndisable_error_code = arg-type\n"
    )
    checked = run(
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        "mypy.ini",
        "chauffeur_api_client",
        script.name,
        cwd=tmp_path,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


@needs_node
def test_the_typescript_client_books_a_ride_and_type_checks(server, tmp_path):
    for name in ("booking_flow.ts", "tsconfig.json"):
        shutil.copy(NODE_TOOLS / name, tmp_path)
    (tmp_path / "package.json").write_text('{"type": "module"}\n')
    (tmp_path / "node_modules").symlink_to(NODE_TOOLS / "node_modules")
    # Without it openapi-typescript makes every request member with a `default` required when its schema is
    # a $ref (openapi-ts/openapi-typescript#2012): a member the server fills in would have to be sent.
    generated = run(
        NODE_BIN / "openapi-typescript",
        f"{server.base}/openapi.json",
        "--default-non-nullable",
        "false",
        "--output",
        "schema.d.ts",
        cwd=tmp_path,
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr

    # Node 22 runs the TypeScript as it is, its types stripped; tsc checks them.
    flow = run(NODE_BIN / "node", "booking_flow.ts", server.base, server.write_token, cwd=tmp_path)
    assert_booked_read_listed_and_cancelled(flow, server.base)
    checked = run(NODE_BIN / "tsc", "--project", "tsconfig.json", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def stateful_config(folder: Path) -> Path:
    """The dictionaries of pickup times stateful.toml uses, then stateful.toml, then the live run's
    expectations (tests/config/schemathesis.toml)."""
    vienna = ZoneInfo("Europe/Vienna")
    today = datetime.datetime.now(vienna).date()

    def days_ahead(name: str, days: range) -> str:
        times = [
            datetime.datetime.combine(
                today + datetime.timedelta(days=day), datetime.time(10), vienna
            ).isoformat()
            for day in days
        ]
        return f"[dictionaries.{name}]\nvalues = {json.dumps(times)}\n"

    config = folder / "schemathesis.toml"
    config.write_text(
        "\n".join(
            [
                days_ahead("pickups", range(3, 9)),
                days_ahead("returns", range(10, 13)),
                (HERE / "stateful.toml").read_text(),
                SCHEMATHESIS_EXPECTATIONS.read_text(),
            ]
        )
    )
    return config


def walked(har: Path) -> dict[str, set[str]]:
    """The bookings the run made, and those it read and cancelled, from its recorded exchanges."""
    seen: dict[str, set[str]] = {"booked": set(), "read": set(), "cancelled": set()}
    for exchange in json.loads(har.read_text())["log"]["entries"]:
        path = exchange["request"]["url"].split("?")[0].partition("/api/v1/")[2]
        status, body = exchange["response"]["status"], exchange["response"]["content"].get("text", "")
        if path == "checkout" and status == 201:
            seen["booked"].add(json.loads(body)["reference"])
        elif (read := re.fullmatch(r"bookings/([^/]+)", path)) and status == 200:
            seen["read"].add(read[1])
        elif (cancel := re.fullmatch(r"bookings/([^/]+)/cancel", path)) and status == 200:
            seen["cancelled"].add(cancel[1])
    return seen


def test_schemathesis_stateful_run_over_the_links_finds_nothing(server, tmp_path):
    # Only the operations the links join: tests/config/test_schemathesis_live.py tries every operation on its
    # own; here every step goes to a chain.
    linked = sorted({link.source for link in LINKS} | {link.target for link in LINKS})
    command = schemathesis_command(
        stateful_config(tmp_path),
        server.base,
        server.write_token,
        "--phases",
        "stateful",
        "--max-examples",
        MAX_EXAMPLES,
        *(argument for operation in linked for argument in ("--include-operation-id", operation)),
        "--report",
        "har",
        "--report-dir",
        str(tmp_path / "report"),
    )
    # In tmp_path: the CLI keeps a .schemathesis folder where it runs.
    stateful = run(*command, cwd=tmp_path, timeout=600)
    assert stateful.returncode == 0, stateful.stdout[-20000:] + stateful.stderr[-5000:]
    links = re.search(r"API Links:\s+(\d+) covered / (\d+) selected", stateful.stdout)
    assert links and int(links[2]) == len(LINKS), stateful.stdout[-5000:]
    print(f"stateful: {links[0]}")
    (har,) = (tmp_path / "report").glob("*.json")
    seen = walked(har)
    # A booking it made itself, then read or cancelled by its reference: links walked, not only listed.
    assert seen["booked"] & (seen["read"] | seen["cancelled"]), {
        name: len(references) for name, references in seen.items()
    }
    print("stateful:", {name: len(references) for name, references in seen.items()})
