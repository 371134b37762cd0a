"""The docs site as the README says to read it: `make docs`, then site/index.html opened from disk, with no
network at all. Its search must find pages there too (Material's offline plugin: the index as a script, the
search worker through a file:// shim that the site carries itself). Skipped, saying so, before `make docs`
(`make test` builds the site first)."""

import re
from pathlib import Path

import pytest

from tests.processes import ROOT

SITE = ROOT / "site"
BUILT = SITE / ".built"
pytestmark = pytest.mark.skipif(not BUILT.exists(), reason="the docs site is not built: run `make docs`")


def pages() -> list[Path]:
    return sorted(path for path in SITE.rglob("*.html") if "assets" not in path.parts)


def test_every_page_loads_its_scripts_from_the_site_itself():
    for page in pages():
        html = page.read_text(encoding="utf-8")
        remote = re.findall(r'<(?:script|link)[^>]+(?:src|href)="(https?://[^"]+)"', html)
        assert not remote, f"{page.relative_to(SITE)} needs the network for {remote}"
    index = (SITE / "index.html").read_text(encoding="utf-8")
    assert '<script src="javascripts/iframe-worker-shim.js"' in index
    assert (SITE / "search" / "search_index.js").read_text(encoding="utf-8").startswith("var __index = {")


def test_search_finds_pages_in_the_site_opened_from_disk_without_network(open_tab):
    tab = open_tab()
    asked_the_network: list[str] = []

    def offline(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            asked_the_network.append(route.request.url)
            route.abort()

    tab.page.context.route("**/*", offline)
    tab.page.goto((SITE / "index.html").as_uri())
    tab.page.get_by_label("Search").first.click()
    tab.page.keyboard.type("connection budget", delay=80)
    result = tab.page.locator(".md-search-result__item a").first
    result.wait_for()
    tab.screenshot("docs-offline-search")
    assert "kubernetes.html" in result.get_attribute("href")
    assert asked_the_network == [] and tab.problems == []
