"""What the framework scripts are given (the live server's address with the documented ?toolNames=underscore,
its tokens, a ride to book) and a token whose rate limit is already spent."""

import json
from datetime import datetime, timedelta
from datetime import time as clock
from pathlib import Path
from zoneinfo import ZoneInfo

import requests

from tests.mcp_endpoint.live import LiveServer
from tests.mcp_endpoint.mcp import VALID_ARGUMENTS
from tests.processes import manage

DOC = Path(__file__).resolve().parents[3] / "docs" / "agents" / "clients.md"
VIENNA = ZoneInfo("Europe/Vienna")
UNKNOWN_TOKEN = "cbt_not-a-token"
PRICE = {"distanceKm": 20, "vehicleClass": "first"}
BAD_PRICE = {"distanceKm": "twenty", "vehicleClass": "first"}


def documented_url(server: LiveServer) -> str:
    return f"{server.mcp_url}?toolNames=underscore"


def limited_tokens(server: LiveServer, count: int) -> list[str]:
    """`count` tokens allowed one billable call a minute (`spend` one right before its test: a budget spent
    earlier comes back a minute later)."""
    issued = manage(
        "shell",
        "-c",
        "from access.tokens import issue_token\n"
        f"for _ in range({count}):\n"
        "    print(issue_token(name='framework 429 test', scopes=['booking.read'], rate_limit=1)[1])",
        **server.env,
    )
    assert issued.returncode == 0, issued.stderr
    return issued.stdout.split()[-count:]


def spend(server: LiveServer, token: str) -> None:
    """Call until the server refuses (429): the token's budget is then spent for a minute (the framework
    tests' server has one worker, so no second worker's own counter lets a call through without Redis).
    The refusal is checked as it leaves gunicorn: the wait in the status line's reason phrase too."""
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "booking.calculate_price", "arguments": PRICE},
    }
    answers = []
    for _ in range(3):
        answer = requests.post(
            server.mcp_url,
            json=message,
            timeout=10,
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-11-25",
            },
        )
        answers.append(answer.status_code)
        if answer.status_code == 429:
            seconds = answer.headers["Retry-After"]
            assert answer.reason == f"Too Many Requests: retry in {seconds} seconds", answer.reason
            assert answer.json()["error"]["message"] == f"Rate limit reached: try again in {seconds} seconds."
            return
    raise AssertionError(f"a token allowed one call a minute was not refused: {answers}")


def plan(server: LiveServer, model_url: str, limited: str) -> dict:
    ride = {"from": "Vienna Airport", "to": "Hotel Sacher Wien"}
    route = v1(server, "/api/v1/distance", **ride)
    price = v1(
        server, "/api/v1/price", distanceKm=route["distance"], vehicleClass="first", inZoneA=route["inZoneA"]
    )
    pickup = datetime.combine(datetime.now(VIENNA).date() + timedelta(days=3), clock(10), tzinfo=VIENNA)
    booking = {**ride, "pickupDatetime": pickup.isoformat(), "vehicleClass": "first", "name": "Ada Traveller"}
    return {
        "doc": str(DOC),  # the agent examples the scripts run as written
        "url": documented_url(server),
        "write": server.write_token,
        "read": server.read_token,
        "bad": UNKNOWN_TOKEN,
        "limited": limited,
        "model": model_url,
        "price": PRICE,
        "reads": {name.replace(".", "_"): arguments for name, arguments in VALID_ARGUMENTS.items()},
        "bad_price": BAD_PRICE,
        "checkout": {"amount": round(price["priceEur"] * 100), "bookingData": booking},
    }


def v1(server: LiveServer, path: str, **params) -> dict:
    response = requests.get(f"{server.base}{path}", params=params, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def as_json(plan: dict) -> str:
    return json.dumps(plan)
