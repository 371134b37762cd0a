"""Who may import whom (docs/development/layout.md): dependencies point from the doors to the domain, and the
project plumbing knows no domain app except in its URL table."""

import re
from pathlib import Path

import grimp
import pytest

from tests.imports import PROJECT_PACKAGES, top_level_imports

ROOT = Path(__file__).resolve().parents[1]
APPS = PROJECT_PACKAGES
DOORS = {"web", "mcp_endpoint"}  # the traveller pages and MCP: nothing in the domain imports a door
DOMAIN_BELOW_BOOKING = {
    "booking",
    "invoicing",
    "payments",
    "quote_requests",
    "accounting",
    "dispatch",
    "privacy",
    *DOORS,
}

# app → the project apps it must never import
FORBIDDEN = {
    # the project's configuration: its URL table (exempt below) wires every door in
    "config": set(APPS) - {"config", "apikit", "sitekit"},
    "apikit": set(APPS) - {"apikit"},  # the shared API plumbing knows no app
    "sitekit": set(APPS) - {"sitekit", "apikit"},  # the shared site pieces know only the API plumbing
    "pricing": {"places", "fleet", "access", "oauth", "operator_profile", *DOMAIN_BELOW_BOOKING},
    "places": {"pricing", "fleet", "access", "oauth", "operator_profile", *DOMAIN_BELOW_BOOKING},
    # flight data: a provider interface and its budget; what a flight moves is dispatch's
    "flights": set(APPS) - {"flights", "apikit", "sitekit"},
    # money depends on bookings, never the other way; the staff booking page, which hosts the dispatch
    # board, lives above both (dispatch/admin/bookings.py)
    "booking": {"invoicing", "payments", "quote_requests", "accounting", "dispatch", "privacy", *DOORS},
    # the documents issued for money: payments records the money and calls them, never the other way
    "invoicing": {"payments", "quote_requests", "accounting", "dispatch", "fleet", "privacy", *DOORS},
    "payments": {"quote_requests", "accounting", "dispatch", "fleet", "privacy", *DOORS},
    # the accountant's reports read the money and the documents; the rides know nothing of them
    "accounting": {"dispatch", "fleet", "privacy", *DOORS},
    "dispatch": {"accounting", "privacy", *DOORS},
    # what is kept how long: it removes the rows of the apps below; nothing below knows it
    "privacy": {"accounting", "corporate", *DOORS},
    # the my-data page signs travellers in as the assistants page does (oauth/sign_in.py)
    "web": {"mcp_endpoint", "dispatch", "fleet", "access"},
    "fleet": {"pricing", "places", "access", "oauth", "operator_profile", *DOMAIN_BELOW_BOOKING},
    # the API tokens and the one authenticate(): the authorization server that issues some of them is above
    "access": {"pricing", "places", "fleet", "oauth", "operator_profile", *DOMAIN_BELOW_BOOKING},
    # the authorization server: its access tokens are access's API tokens; it mails a traveller's sign-in
    # code in the operator's name (operator_profile) through the queue
    "oauth": {"pricing", "places", "fleet", *DOMAIN_BELOW_BOOKING},
    # agents change a ride through dispatch's change quotes (dispatch/change_quotes.py), under staff's rules
    "mcp_endpoint": {"web"},
    "operator_profile": {"pricing", "places", "fleet", "access", "oauth", *DOMAIN_BELOW_BOOKING},
    # the queue's plumbing: it knows its tasks only by name
    "jobqueue": set(APPS) - {"apikit", "sitekit", "jobqueue"},
    # company accounts: their admin shows bookings and collective invoices (payments holds the money)
    "corporate": {"accounting", "dispatch", "fleet", "privacy", *DOORS},
    "sms": set(APPS) - {"sms"},
    # webhooks send what booking, dispatch and payments publish: they know no booking, only API tokens
    "webhooks": set(APPS) - {"webhooks", "access", "jobqueue", "apikit", "sitekit"},
    # what travellers ask staff to quote: the board counts them; they know nothing of the rides' day
    "quote_requests": {
        "accounting",
        "dispatch",
        "privacy",
        "fleet",
        "corporate",
        *DOORS,
    },  # a provider interface: it knows nothing of bookings
}
EXEMPT = {Path("config/urls.py")}  # the URL table wires every door in


def imported_apps(path: Path) -> set[str]:
    return top_level_imports(path) & set(APPS)


@pytest.mark.parametrize("app", APPS)
def test_each_app_imports_only_what_the_layout_allows(app):
    breaches = {
        str(path.relative_to(ROOT)): sorted(imported_apps(path) & FORBIDDEN[app])
        for path in sorted((ROOT / app).rglob("*.py"))
        if path.relative_to(ROOT) not in EXEMPT
    }
    assert {path: apps for path, apps in breaches.items() if apps} == {}


def test_the_layout_names_every_app():
    assert set(FORBIDDEN) == set(APPS)
    assert {path.parent.name for path in ROOT.glob("*/apps.py")} | {"apikit"} == set(APPS)


def module_graph() -> grimp.ImportGraph:
    """Every import between our modules, those inside functions and relative ones included. grimp finds
    the apps on sys.path, where pytest's root (this checkout) comes before installed packages."""
    return grimp.build_graph(*APPS, cache_dir=None)


def circles(graph: grimp.ImportGraph) -> list[tuple[str, ...]]:
    """One circle per group of modules that import each other (strongly connected), from the group's first
    module back to it."""
    found = []
    for group in strongly_connected(graph):
        first = min(group)
        for following in sorted(graph.find_modules_directly_imported_by(first) & group):
            chain = graph.find_shortest_chain(importer=following, imported=first)
            if chain:
                found.append((first, *chain))
                break
    return sorted(found)


def strongly_connected(graph: grimp.ImportGraph) -> list[set[str]]:
    """Tarjan's groups of more than one module, without recursion (the graph is deeper than Python's stack)."""
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = lowest[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, following = work[-1]
            step = next(following, None)
            if step is None:
                work.pop()
                if work:
                    lowest[work[-1][0]] = min(lowest[work[-1][0]], lowest[module])
                if lowest[module] == index[module]:
                    group = set(stack[stack.index(module) :])
                    del stack[stack.index(module) :]
                    on_stack -= group
                    if len(group) > 1:
                        groups.append(group)
            elif step not in index:
                index[step] = lowest[step] = len(index)
                stack.append(step)
                on_stack.add(step)
                work.append((step, iter(sorted(graph.find_modules_directly_imported_by(step)))))
            elif step in on_stack:
                lowest[module] = min(lowest[module], index[step])
    return groups


def test_no_module_imports_itself_through_others():
    # A circle means neither module can be read, tested or moved without the other.
    found = [" -> ".join(circle) for circle in circles(module_graph())]
    assert not found, "modules that import themselves through others:\n" + "\n".join(found)


def test_a_circle_is_found_and_named():
    graph = grimp.ImportGraph()
    for importer, imported in [
        ("a.one", "a.two"),
        ("a.two", "a.three"),
        ("a.three", "a.one"),
        ("a.four", "a.one"),
    ]:
        graph.add_import(importer=importer, imported=imported)
    assert circles(graph) == [("a.one", "a.two", "a.three", "a.one")]


def test_the_agent_endpoint_has_no_models():
    assert not (ROOT / "mcp_endpoint" / "models.py").exists()
    assert not list((ROOT / "mcp_endpoint").rglob("admin.py"))


def test_the_readmes_layout_table_names_every_app():
    table = (
        (ROOT / "README.md").read_text(encoding="utf-8").split("## Code layout", 1)[1].split("\n## ", 1)[0]
    )
    assert re.findall(r"^\| `(\w+)/` \|", table, flags=re.M) and set(
        re.findall(r"^\| `(\w+)/` \|", table, flags=re.M)
    ) == set(APPS)
