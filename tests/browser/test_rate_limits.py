"""The booking page under the real rate limits (docs/web/embedding.md, "page sessions"): travellers typing like people (about
three keys a second) and comparing hours, tours and classes, three of them at once from one address, never
meet a 429; a script hammering the page's endpoints with a valid page session is still limited; and a page
that does meet the limit says so in words and recovers by itself. Three travellers run at once through
Playwright's async API (the sync one would type for one page at a time)."""

import asyncio
import json
import os
import re

import pytest
import requests

from tests.browser.conftest import CHROMIUM, CHROMIUM_FLAGS, DESKTOP, live_service, pickup_day

REDIS_URL = os.environ.get("REDIS_URL", "")
KEY_DELAY_MS = 330  # about three keys a second
RIDE = {"from": "Hotel Sacher Wien", "to": "Flughafen Wien"}
NETWORK_429 = "the server responded with a status of 429"  # Chromium's own log line for a 429 it saw


def limits_env() -> dict:
    """Without Redis one worker, so that its in-process count is the whole count; with Redis (the
    PostgreSQL/Redis run) two workers share it."""
    return {"workers": 2, "REDIS_URL": REDIS_URL} if REDIS_URL else {"workers": 1}


@pytest.fixture(scope="module")
def limited(tmp_path_factory, website_port):
    """The project's own limits: 60 in 60 s for API clients, page sessions as config/settings.py sets."""
    with live_service(
        tmp_path_factory.mktemp("limited"), "tests.browser.limited_settings", website_port, **limits_env()
    ) as running:
        yield running


@pytest.fixture(scope="module")
def tight(tmp_path_factory, website_port):
    """Page sessions of 8 calls in 10 s: the limit is met while typing."""
    folder = tmp_path_factory.mktemp("tight")
    with live_service(folder, "tests.browser.tight_limits_settings", website_port, **limits_env()) as running:
        yield running


class Traveller:
    """One person in a browser context of their own: what their page answered and reported."""

    def __init__(self, page):
        self.page, self.problems, self.responses = page, [], []
        page.on("console", lambda message: message.type == "error" and self.problems.append(message.text))
        page.on("pageerror", lambda error: self.problems.append(str(error)))
        page.on("response", lambda response: "/api/" in response.url and self.responses.append(response))

    def calls(self, path: str) -> int:
        return sum(1 for response in self.responses if response.url.split("?")[0].endswith(path))

    async def choose(self, field: str, typed: str) -> None:
        await self.page.click(f"#cb-{field}")
        await self.page.keyboard.type(typed, delay=KEY_DELAY_MS)
        await self.page.wait_for_selector(f"#cb-{field}-list li[role=option]")
        await self.page.keyboard.press("ArrowDown")
        await self.page.keyboard.press("Enter")

    async def prices(self) -> dict[str, str]:
        await self.page.wait_for_selector("#cb-quote[aria-busy=false] .cb-lines")
        slots = await self.page.query_selector_all("[data-price-for]")
        return {
            await slot.get_attribute("data-price-for"): (await slot.inner_text()).replace("\xa0", " ")
            for slot in slots
        }


async def browse(browser, base: str, locale: str, path: str) -> tuple[Traveller, dict]:
    """Type both places like a person, then compare classes, hours (back and forth) and tours."""
    context = await browser.new_context(locale=locale, viewport=DESKTOP, timezone_id="Europe/Vienna")
    context.set_default_timeout(30_000)
    traveller = Traveller(await context.new_page())
    page = traveller.page
    await page.goto(base + path)
    await traveller.choose("from", "Hotel Sacher")
    await traveller.choose("to", "Flughafen Wien")
    await page.fill("#cb-date", pickup_day())
    await page.fill("#cb-time", "10:00")
    seen = {"transfer": await traveller.prices()}
    for code in seen["transfer"]:  # comparing classes asks nothing: every price came with the route
        await page.click(f"label.cb-card:has(input[value='{code}'])")
    await page.check("input[name=kind][value=hourly]")
    for hours in ["2", "3", "4.5", "8", "3", "2"]:
        await page.select_option("#cb-hours", hours)
        seen[f"hourly {hours}"] = await traveller.prices()
    await page.check("input[name=kind][value=tour]")
    for tour in await page.eval_on_selector_all("#cb-tour option", "options => options.map(o => o.value)"):
        await page.select_option("#cb-tour", tour)
        seen[f"tour {tour}"] = await traveller.prices()
    quotes = traveller.calls("/api/page/quote")
    await page.check("input[name=kind][value=transfer]")
    seen["transfer again"] = await traveller.prices()
    seen["quote calls for the transfer again"] = traveller.calls("/api/page/quote") - quotes
    await context.close()
    return traveller, seen


def amount(text: str) -> float:
    return (
        float(re.sub(r"[^\d,.]", "", text).replace(".", "").replace(",", "."))
        if "," in text
        else float(re.sub(r"[^\d.]", "", text))
    )


def test_three_travellers_behind_one_address_compare_everything_and_never_meet_a_429(limited):
    from playwright.async_api import async_playwright

    async def three():
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
            try:
                return await asyncio.gather(
                    browse(browser, limited.base, "en-GB", "/en/"),
                    browse(browser, limited.base, "de-DE", "/de/"),
                    browse(browser, limited.base, "en-GB", "/en/"),
                )
            finally:
                await browser.close()

    results = asyncio.run(three())
    for traveller, seen in results:
        statuses = [response.status for response in traveller.responses]
        assert 429 not in statuses and statuses, statuses
        assert all(
            response.headers["ratelimit-policy"].startswith('"page";') for response in traveller.responses
        )
        assert traveller.problems == []
        executive = {
            choice: amount(prices["executive"]) for choice, prices in seen.items() if isinstance(prices, dict)
        }
        assert executive["transfer"] == executive["transfer again"] == 74.0
        assert executive["hourly 2"] < executive["hourly 3"] < executive["hourly 4.5"] < executive["hourly 8"]
        assert seen["quote calls for the transfer again"] == 0  # kept in the page
        # Each choice asked once: two places, three hour values twice, two tours.
        assert traveller.calls("/api/page/quote") <= 1 + 4 + 2 + 2  # the first may be asked before the time
        assert traveller.calls("/api/v1/price") == traveller.calls("/api/v1/distance") == 0
    # 3 travellers' calls together exceed what the address alone could make as an API client.
    assert sum(len(traveller.responses) for traveller, _ in results) > 60


def page_session(base: str) -> str:
    html = requests.get(base + "/en/", timeout=10).text
    return json.loads(
        re.search(r'<script id="cb-config" type="application/json">(.*?)</script>', html, re.S)[1]
    )["pageSession"]


def test_a_script_hammering_with_a_valid_page_session_is_still_limited(limited):
    with requests.Session() as script:
        script.headers["Page-Session"] = page_session(limited.base)
        answers = [script.get(limited.base + "/api/page/quote", params=RIDE, timeout=10) for _ in range(301)]
    assert [answer.status_code for answer in answers[:300]] == [200] * 300
    refused = answers[300]
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert re.fullmatch(r'"page";r=0;t=\d+', refused.headers["RateLimit"])
    assert 1 <= int(refused.headers["Retry-After"]) <= 600
    # A forged session buys nothing: the address's 60 in 60 s as an API client.
    with requests.Session() as script:
        script.headers["Page-Session"] = "forged"
        forged = [
            script.get(limited.base + "/api/v1/places", params={"input": "Sacher"}, timeout=10)
            for _ in range(61)
        ]
    assert [answer.status_code for answer in forged] == [200] * 60 + [429]
    assert forged[0].headers["RateLimit-Policy"] == '"default";q=60;w=60'


def test_a_page_that_meets_the_limit_says_so_and_recovers_by_itself(tight):
    from playwright.async_api import async_playwright

    async def meet_the_limit():
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
            context = await browser.new_context(locale="en-GB", viewport=DESKTOP, timezone_id="Europe/Vienna")
            context.set_default_timeout(40_000)
            traveller = Traveller(await context.new_page())
            page = traveller.page
            await page.goto(tight.base + "/en/")
            await page.fill("#cb-name", "Anna Berger")
            await page.fill("#cb-email", "anna@example.com")
            await page.fill("#cb-phone", "+43 660 1234567")
            typing = asyncio.ensure_future(traveller.choose("from", "Hotel Sacher Wien"))
            await page.wait_for_selector("#cb-route:has-text('We will try again automatically at')")
            notice = await page.inner_text("#cb-route")
            await typing  # the suggestions came after the wait, without a reload
            await traveller.choose("to", "Flughafen Wien")
            await page.fill("#cb-date", pickup_day())
            await page.fill("#cb-time", "10:00")
            prices = await traveller.prices()
            await browser.close()
            return traveller, notice, prices

    traveller, notice, prices = asyncio.run(meet_the_limit())
    assert re.search(r"at \d\d:\d\d:\d\d \(in \d+ s\); there is no need to reload", notice)
    statuses = [response.status for response in traveller.responses]
    assert 429 in statuses  # the limit was met
    # ... and the page recovered: answers came again after it (a typeahead call still in flight when the
    # limit was met may be the last to arrive, so it is not the last answer that tells).
    assert 200 in statuses[statuses.index(429) + 1 :]
    assert prices["executive"] == "€74.00"
    assert [problem for problem in traveller.problems if NETWORK_429 not in problem] == []
