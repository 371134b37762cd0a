"""The OAuth pages in a real Chromium, in German and English, with zero console errors (CSP refusals
included) and, where axe-core is installed, no accessibility violation: an assistant's authorization request
leads to the traveller's sign-in, the code mailed by the job worker (read from its console mail sink) signs
in, the consent page names the traveller, and Allow hands the code back. Then the admin's OAuth clients and
grants, and the token list's OAuth filter, as a signed-in dispatcher."""

import base64
import hashlib
import json
import re
import secrets
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from tests.back_office import PASSWORD, STAFF, back_office
from tests.browser.conftest import ARTIFACTS, DESKTOP, PHONE, axe_missing, axe_violations, watch_console
from tests.processes import manage

# A client, and per language a traveller's grant with an access token, for the admin pages (the code
# exchange that issues tokens is tested elsewhere).
SEED = """
from datetime import timedelta
from django.utils import timezone
from access import tokens
from access.models import ApiToken
from oauth.models import OAuthClient, OAuthGrant
client = OAuthClient.objects.create(client_id="trip-assistant", registration="dynamic", name="Trip Assistant",
                                    redirect_uris=["{base}/healthz"])
for email in ("eva.en@example.com", "eva.de@example.com"):
    grant = OAuthGrant.objects.create(client=client, subject="traveller", traveller_email=email,
                                      scopes=["booking.read"], resource="{base}/api/mcp")
    plain, prefix, digest = tokens.new_secret()
    ApiToken.objects.create(name="OAuth: Trip Assistant", prefix=prefix, digest=digest, scopes=grant.scopes,
                            expires_at=timezone.now() + timedelta(hours=1), grant=grant, acts_for=email,
                            audience=grant.resource)
# Per language a ride of a traveller with no assistant, done ten days ago: what the my-data page erases.
from decimal import Decimal
from booking.models import Booking
from pricing.money import to_cents
from pricing.services import quote_price
quote = quote_price(vehicle_class="executive", distance_km=Decimal("21.8"))
for language in ("en", "de"):
    Booking.objects.create(reference=f"CB-DATA{{language.upper()}}", origin="Hotel Sacher", destination="Flughafen Wien",
                           vehicle_class="executive", quote_record=quote.as_record(), amount_cents=to_cents(quote.price),
                           booking_data={{}}, status="completed", name="Rosa Data", email=f"rosa.{{language}}@example.com",
                           locale=language, pickup_at=timezone.now() - timedelta(days=10))
# A client whose name and hosts are long words, as real ones are: they must wrap on a 360 px phone.
OAuthClient.objects.create(client_id="planner", registration="dynamic", name="Reiseplanungsassistent",
                           redirect_uris=["https://callbacks.reiseplanung-assistent.example/oauth/callback"],
                           client_uri="https://www.reiseplanung-assistent.example/")
"""
LANGUAGES = {"en": "en-GB", "de": "de-AT"}
HEADINGS = {"en": "Sign in with your e-mail address", "de": "Mit Ihrer E-Mail-Adresse anmelden"}
ASSISTANTS = {"en": "Assistants you allowed", "de": "Assistenten, denen Sie Zugriff gegeben haben"}
PHONE_360 = {**PHONE, "width": 360}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with back_office(tmp_path_factory.mktemp("oauth_pages")) as running:
        made = manage("shell", "-c", SEED.format(base=running.base), **running.env)
        assert made.returncode == 0, made.stdout + made.stderr
        yield running


def authorize_url(base: str, client_id: str = "trip-assistant", redirect_uri: str = "") -> str:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri or f"{base}/healthz",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "s-1",
        "scope": "booking.read",
    }
    return f"{base}/oauth/authorize?{urlencode(query)}"


def mailed_code(served) -> str:
    """The worker runs the queued jobs once; its console mail backend is the test's mail sink."""
    ran = manage("run_worker", "--batch", **served.env)
    assert ran.returncode == 0, ran.stderr
    codes = re.findall(r"^ {4}(\d{6})$", ran.stdout, re.M)
    assert codes, ran.stdout[-2000:]
    return codes[-1]


def checked(page, violations: list[str]) -> None:
    page.wait_for_load_state("load")
    if not axe_missing():
        violations.extend(f"{page.url}: {found}" for found in axe_violations(page))


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_traveller_signs_in_and_consents(served, chromium, language):
    context = chromium.new_context(locale=LANGUAGES[language], viewport=DESKTOP, timezone_id="Europe/Vienna")
    page = context.new_page()
    errors, violations = watch_console(page), []
    page.goto(authorize_url(served.base))
    page.wait_for_url(re.compile(r"/oauth/sign-in$"))
    assert page.inner_text("h1") == HEADINGS[language]
    assert "Trip Assistant" in page.inner_text("#asking")
    checked(page, violations)

    page.fill("#id_email", "nonsense")
    page.click("#send-code")
    page.wait_for_selector("#email-error")
    checked(page, violations)
    email = f"anna.{language}@example.com"
    page.fill("#id_email", email)
    page.click("#send-code")
    page.wait_for_selector("#code-form")
    assert email in page.inner_text("#code-sent")
    checked(page, violations)

    code = mailed_code(served)
    page.fill("#id_code", "000000" if code != "000000" else "111111")
    page.click("#sign-in")
    page.wait_for_selector("#code-error")
    checked(page, violations)
    page.fill("#id_code", code)
    page.click("#sign-in")
    page.wait_for_url(re.compile(r"/oauth/consent$"))
    assert email in page.inner_text("#consent-who")
    checked(page, violations)

    page.click("#allow")
    page.wait_for_url(re.compile(r"/healthz\?"))
    answer = parse_qs(urlsplit(page.url).query)
    assert answer["state"] == ["s-1"] and answer["code"][0] and answer["iss"] == [served.base]
    context.close()
    assert errors == []
    assert violations == []


def overflow(page) -> int:
    """How many pixels the page is wider than the window (0: it fits)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def sign_in(served, page, email: str, then: str) -> None:
    page.fill("#id_email", email)
    page.click("#send-code")
    page.wait_for_selector("#code-form")
    page.fill("#id_code", mailed_code(served))
    page.click("#sign-in")
    page.wait_for_url(re.compile(then))


def phone(chromium, language: str):
    """A 360 px phone's context and page in `language`, and the lists its console errors and axe's
    findings go to."""
    context = chromium.new_context(
        locale=LANGUAGES[language], viewport=PHONE_360, timezone_id="Europe/Vienna"
    )
    page = context.new_page()
    return context, page, watch_console(page), []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_consent_page_fits_a_phone_and_says_how_long_access_lasts(served, chromium, language):
    context, page, errors, violations = phone(chromium, language)
    redirect_uri = "https://callbacks.reiseplanung-assistent.example/oauth/callback"
    page.goto(authorize_url(served.base, "planner", redirect_uri))
    page.wait_for_url(re.compile(r"/oauth/sign-in$"))
    assert overflow(page) == 0
    sign_in(
        served, page, f"maximilian.mustermann-oberhuber.{language}@reisebuero.example", r"/oauth/consent$"
    )
    for width in (360, 390):
        page.set_viewport_size({**PHONE, "width": width})
        assert overflow(page) == 0, width
    lasts = page.inner_text("#consent-lasts")
    assert ("30 Tage" if language == "de" else "30 days") in lasts
    assert page.get_attribute("#assistants-link", "href") == "/oauth/assistants"
    checked(page, violations)
    page.screenshot(path=str(ARTIFACTS / f"oauth-consent-phone-{language}.png"), full_page=True)
    context.close()
    assert errors == []
    assert violations == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_traveller_sees_the_assistants_they_allowed_and_ends_one(served, chromium, language):
    context, page, errors, violations = phone(chromium, language)
    page.goto(f"{served.base}/oauth/assistants")
    page.wait_for_selector("#for-assistants")
    checked(page, violations)
    sign_in(served, page, f"eva.{language}@example.com", r"/oauth/assistants$")
    assert page.inner_text("h1") == ASSISTANTS[language]
    assistant = page.locator(".cb-assistant")
    assert assistant.count() == 1 and "Trip Assistant" in assistant.inner_text()
    assert overflow(page) == 0
    checked(page, violations)
    page.screenshot(path=str(ARTIFACTS / f"oauth-assistants-{language}.png"), full_page=True)
    assistant.locator("button").click()
    page.wait_for_selector("#assistants-message")
    assert "Trip Assistant" in page.inner_text("#assistants-message")
    assert page.locator(".cb-assistant").count() == 0 and page.locator("#no-assistants").count() == 1
    checked(page, violations)
    context.close()
    assert errors == []
    assert violations == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_traveller_downloads_their_data_and_erases_it(served, chromium, language):
    context, page, errors, violations = phone(chromium, language)
    page.goto(f"{served.base}/my-data")
    page.wait_for_selector("#for-my-data")
    checked(page, violations)
    sign_in(served, page, f"rosa.{language}@example.com", r"/my-data$")
    assert page.inner_text("h1") == {"en": "Your data", "de": "Ihre Daten"}[language]
    assert f"CB-DATA{language.upper()}" in page.inner_text("#erasable")
    assert overflow(page) == 0
    checked(page, violations)
    with page.expect_download() as download:
        page.click("#download")
    copy = json.loads(Path(download.value.path()).read_text())
    assert [booking["name"] for booking in copy["bookings"]] == ["Rosa Data"]
    page.click("#erase")  # not confirmed: refused, nothing erased
    page.wait_for_selector("#confirm-error")
    checked(page, violations)
    page.check("#id_confirm")
    page.click("#erase")
    page.wait_for_selector("#erased")
    assert page.locator("#nothing-to-erase").count() == 1
    checked(page, violations)
    page.screenshot(path=str(ARTIFACTS / f"my-data-{language}.png"), full_page=True)
    context.close()
    assert errors == []
    assert violations == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_sign_in_page_in_each_language_by_its_switch(served, chromium, language):
    context = chromium.new_context(locale="en-GB", viewport=DESKTOP, timezone_id="Europe/Vienna")
    page = context.new_page()
    errors = watch_console(page)
    page.goto(f"{served.base}/oauth/sign-in")
    page.click(f".cb-languages a[hreflang={language}]")
    page.wait_for_selector(f"html[lang={language}]")
    assert page.inner_text("h1") == HEADINGS[language]
    context.close()
    assert errors == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_admin_oauth_pages(served, chromium, language):
    context = chromium.new_context(locale=LANGUAGES[language], viewport=DESKTOP, timezone_id="Europe/Vienna")
    page = context.new_page()
    errors, violations = watch_console(page), []
    page.goto(f"{served.base}/admin/login/")
    page.fill("#id_username", STAFF)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{served.base}/admin/")
    for path in (
        "/admin/oauth/oauthclient/",
        "/admin/oauth/oauthgrant/",
        "/admin/access/apitoken/?kind=oauth",
    ):
        response = page.goto(served.base + path)
        assert response.status == 200, path
        checked(page, violations)
        page.locator("#result_list tbody tr").first.locator("a").first.click()
        page.wait_for_load_state()
        assert re.search(r"/\d+/change/(\?|$)", page.url), page.url
        checked(page, violations)
    page.goto(served.base + "/admin/oauth/oauthclient/")
    page.locator("#result_list tbody tr").first.locator("a").first.click()
    page.check("input[name=agency_scopes][value='booking.read']")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist .success")
    checked(page, violations)
    page.goto(served.base + "/admin/oauth/oauthgrant/")
    page.check("#result_list tbody tr >> nth=0 >> input.action-select")
    page.select_option("select[name=action]", "revoke_selected")
    page.click("button[name=index]")
    page.wait_for_selector(".messagelist .success")
    assert ("Widerrufen" if language == "de" else "Revoked") in page.inner_text(".messagelist")
    checked(page, violations)
    context.close()
    assert errors == []
    assert violations == []
