"""Who may import whom (docs/development/layout.md): dependencies point from the doors to the domain, and the
project plumbing knows no domain app except in its URL table."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APPS = ("chauffeur", "pricing", "places", "booking", "fleet", "access", "agents", "company")

# app → the project apps it must never import
FORBIDDEN = {
    "chauffeur": {"pricing", "places", "booking", "fleet", "access", "agents", "company"},
    "pricing": {"places", "booking", "fleet", "access", "agents", "company"},
    "places": {"pricing", "booking", "fleet", "access", "agents", "company"},
    "booking": {"agents"},
    "fleet": {"pricing", "places", "booking", "access", "agents", "company"},
    "access": {"pricing", "places", "booking", "fleet", "agents", "company"},
    "agents": set(),
    "company": {"pricing", "places", "booking", "fleet", "access", "agents"},
}
EXEMPT = {Path("chauffeur/urls.py")}  # the URL table wires every door in


def imported_apps(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & set(APPS)


@pytest.mark.parametrize("app", APPS)
def test_each_app_imports_only_what_the_layout_allows(app):
    breaches = {
        str(path.relative_to(ROOT)): sorted(imported_apps(path) & FORBIDDEN[app])
        for path in sorted((ROOT / app).rglob("*.py"))
        if path.relative_to(ROOT) not in EXEMPT
    }
    assert {path: apps for path, apps in breaches.items() if apps} == {}


def test_the_agent_endpoint_has_no_models():
    assert not (ROOT / "agents" / "models.py").exists()
    assert not list((ROOT / "agents").rglob("admin.py"))
