"""Who may import whom (docs/development/layout.md): dependencies point from the doors to the domain, and the
project plumbing knows no domain app except in its URL table."""

import re
from pathlib import Path

import pytest

from tests.imports import PROJECT_PACKAGES, top_level_imports

ROOT = Path(__file__).resolve().parents[1]
APPS = PROJECT_PACKAGES
DOORS = {"web", "agents"}  # the traveller pages and MCP: nothing in the domain imports a door
DOMAIN_BELOW_BOOKING = {"booking", "payments", "dispatch", *DOORS}

# app → the project apps it must never import
FORBIDDEN = {
    "chauffeur": set(APPS) - {"chauffeur"},
    "pricing": {"places", "fleet", "access", "company", *DOMAIN_BELOW_BOOKING},
    "places": {"pricing", "fleet", "access", "company", *DOMAIN_BELOW_BOOKING},
    "booking": {*DOORS},
    "payments": {"dispatch", "fleet", *DOORS},
    "dispatch": {*DOORS},
    "web": {"agents", "dispatch", "fleet", "access"},
    "fleet": {"pricing", "places", "access", "company", *DOMAIN_BELOW_BOOKING},
    # access mails a traveller's sign-in code in the operator's name: the operator profile is company's
    "access": {"pricing", "places", "fleet", *DOMAIN_BELOW_BOOKING},
    "agents": {"web", "dispatch"},
    "company": {"pricing", "places", "fleet", "access", *DOMAIN_BELOW_BOOKING},
    "jobs": set(APPS) - {"chauffeur", "jobs"},  # the queue's plumbing: it knows its tasks only by name
    # company accounts: their admin shows bookings and collective invoices (payments holds the money)
    "business": {"dispatch", "fleet", *DOORS},
    "sms": set(APPS) - {"sms"},  # a provider interface: it knows nothing of bookings
}
# Booking's own rules never call on dispatch; only its admin page (which hosts the dispatch board, the
# phone booking and the change of a ride as its sub-pages) and the demo-data command do.
MAY_USE_DISPATCH = (Path("booking/admin"), Path("booking/management"))
EXEMPT = {Path("chauffeur/urls.py")}  # the URL table wires every door in


def imported_apps(path: Path) -> set[str]:
    return top_level_imports(path) & set(APPS)


@pytest.mark.parametrize("app", APPS)
def test_each_app_imports_only_what_the_layout_allows(app):
    breaches = {
        str(path.relative_to(ROOT)): sorted(imported_apps(path) & forbidden_in(path.relative_to(ROOT), app))
        for path in sorted((ROOT / app).rglob("*.py"))
        if path.relative_to(ROOT) not in EXEMPT
    }
    assert {path: apps for path, apps in breaches.items() if apps} == {}


def forbidden_in(path: Path, app: str) -> set[str]:
    if app == "booking" and not any(path.is_relative_to(folder) for folder in MAY_USE_DISPATCH):
        return FORBIDDEN[app] | {"dispatch"}
    return FORBIDDEN[app]


def test_the_layout_names_every_app():
    assert set(FORBIDDEN) == set(APPS)
    assert {path.parent.name for path in ROOT.glob("*/apps.py")} | {"chauffeur"} == set(APPS)


def python_lines(app: str) -> int:
    """Lines of an app's Python, its migrations left out (tests live under tests/, outside the apps)."""
    return sum(
        len(path.read_text(encoding="utf-8").splitlines())
        for path in (ROOT / app).rglob("*.py")
        if "migrations" not in path.parts
    )


def test_no_app_holds_more_than_35_percent_of_the_code():
    # Issue 26: an app that grows past a third of the code mixes things that change apart; split it.
    lines = {app: python_lines(app) for app in APPS}
    total = sum(lines.values())
    shares = {app: round(100 * count / total, 1) for app, count in sorted(lines.items(), key=lambda i: -i[1])}
    print(f"\n{total} lines: {shares}")
    assert {app: share for app, share in shares.items() if share > 35} == {}


def test_the_agent_endpoint_has_no_models():
    assert not (ROOT / "agents" / "models.py").exists()
    assert not list((ROOT / "agents").rglob("admin.py"))


def test_the_readmes_layout_table_names_every_app():
    table = (
        (ROOT / "README.md").read_text(encoding="utf-8").split("## Code layout", 1)[1].split("\n## ", 1)[0]
    )
    assert re.findall(r"^\| `(\w+)/` \|", table, flags=re.M) and set(
        re.findall(r"^\| `(\w+)/` \|", table, flags=re.M)
    ) == set(APPS)
