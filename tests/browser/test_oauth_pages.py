"""The OAuth pages in a real Chromium, in German and English, with zero console errors (CSP refusals
included) and, where axe-core is installed, no accessibility violation: an assistant's authorization request
leads to the traveller's sign-in, the code mailed by the job worker (read from its console mail sink) signs
in, the consent page names the traveller, and Allow hands the code back. Then the admin's OAuth clients and
grants, and the token list's OAuth filter, as a signed-in dispatcher."""

import base64
import hashlib
import re
import secrets
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from tests.back_office import PASSWORD, STAFF, back_office
from tests.browser.conftest import DESKTOP, axe_missing, axe_violations, watch_console
from tests.processes import manage

# A client, and per language a traveller's grant with an access token, for the admin pages (the code
# exchange that issues tokens is tested elsewhere).
SEED = """
from datetime import timedelta
from django.utils import timezone
from access import tokens
from access.models import ApiToken, OAuthClient, OAuthGrant
client = OAuthClient.objects.create(client_id="trip-assistant", registration="dynamic", name="Trip Assistant",
                                    redirect_uris=["{base}/healthz"])
for email in ("eva.en@example.com", "eva.de@example.com"):
    grant = OAuthGrant.objects.create(client=client, subject="traveller", traveller_email=email,
                                      scopes=["booking.read"], resource="{base}/api/mcp")
    plain, prefix, digest = tokens.new_secret()
    ApiToken.objects.create(name="OAuth: Trip Assistant", prefix=prefix, digest=digest, scopes=grant.scopes,
                            expires_at=timezone.now() + timedelta(hours=1), grant=grant, acts_for=email,
                            audience=grant.resource)
"""
LANGUAGES = {"en": "en-GB", "de": "de-AT"}
HEADINGS = {"en": "Sign in with your e-mail address", "de": "Mit Ihrer E-Mail-Adresse anmelden"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with back_office(tmp_path_factory.mktemp("oauth_pages")) as running:
        made = manage("shell", "-c", SEED.format(base=running.base), **running.env)
        assert made.returncode == 0, made.stdout + made.stderr
        yield running


def authorize_url(base: str) -> str:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = {
        "response_type": "code", "client_id": "trip-assistant", "redirect_uri": f"{base}/healthz",
        "code_challenge": challenge, "code_challenge_method": "S256", "state": "s-1", "scope": "booking.read",
    }  # fmt: skip
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
        "/admin/access/oauthclient/",
        "/admin/access/oauthgrant/",
        "/admin/access/apitoken/?kind=oauth",
    ):
        response = page.goto(served.base + path)
        assert response.status == 200, path
        checked(page, violations)
        page.locator("#result_list tbody tr").first.locator("a").first.click()
        page.wait_for_load_state()
        assert re.search(r"/\d+/change/(\?|$)", page.url), page.url
        checked(page, violations)
    page.goto(served.base + "/admin/access/oauthclient/")
    page.locator("#result_list tbody tr").first.locator("a").first.click()
    page.check("input[name=agency_scopes][value='booking.read']")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist .success")
    checked(page, violations)
    page.goto(served.base + "/admin/access/oauthgrant/")
    page.check("#result_list tbody tr >> nth=0 >> input.action-select")
    page.select_option("select[name=action]", "revoke_selected")
    page.click("button[name=index]")
    page.wait_for_selector(".messagelist .success")
    assert ("Widerrufen" if language == "de" else "Revoked") in page.inner_text(".messagelist")
    checked(page, violations)
    context.close()
    assert errors == []
    assert violations == []
