"""The legal pages: imprint, terms and privacy notice in German and English, filled from the operator
profile's legal details, edited by staff in the admin as drafts and published as frozen versions; linked
from every page's footer and every e-mail; and what search engines read of the public pages."""

import re

import pytest

from operator_profile import legal
from operator_profile.models import LegalText, OperatorProfile

pytestmark = pytest.mark.django_db

ADD = "/admin/company/legaltext/add/"
MISSING_EN = "[to be completed in the operator profile]"
MISSING_DE = "[im Unternehmensprofil zu ergänzen]"
BASE = "https://chauffeur.test"


@pytest.fixture(autouse=True)
def public_address(settings):
    settings.PUBLIC_BASE_URL = BASE


def h1(page: str) -> str:
    return re.search(r"<h1>(.*?)</h1>", page)[1]


@pytest.mark.parametrize(
    ("path", "title", "words"),
    [
        ("/en/imprint", "Imprint", "Company register number"),
        ("/de/imprint", "Impressum", "Firmenbuchnummer"),
        ("/en/terms", "Terms and conditions", "Cancellation"),
        ("/de/terms", "Allgemeine Geschäftsbedingungen", "Stornierung"),
        ("/en/privacy", "Privacy notice", "Your rights"),
        ("/de/privacy", "Datenschutzerklärung", "Ihre Rechte"),
        ("/en/accessibility", "Accessibility statement", "Enforcement procedure"),
        ("/de/accessibility", "Barrierefreiheitserklärung", "Durchsetzungsverfahren"),
    ],
)
def test_a_fresh_install_shows_each_text_in_both_languages_as_a_template(
    client, path, title, words, seeded_profile
):
    response = client.get(path)
    assert response.status_code == 200
    page = response.content.decode()
    assert h1(page) == title and f"<title>{title} · " in page
    assert words in page and "Version 1" in page
    assert ("Vorlage:" if path.startswith("/de/") else "Template:") in page  # marked for the operator
    assert (MISSING_DE if path.startswith("/de/") else MISSING_EN) in page


def test_the_imprint_names_the_operators_legal_details_once_staff_entered_them(client):
    OperatorProfile.objects.filter(id=1).update(
        legal_name="Wiener Chauffeur GmbH",
        street_address="Kärntner Straße 1",
        postcode="1010",
        city="Wien",
        country="AT",
        company_register_number="FN 123456a",
        company_register_court="Handelsgericht Wien",
        vat_id="ATU12345678",
        supervisory_authority="Magistratisches Bezirksamt für den 1. Bezirk",
        chamber="Wirtschaftskammer Wien",
        phone="+43 1 234 56 78",
        email="office@chauffeur.example.com",
    )
    page = client.get("/de/imprint").content.decode()
    for detail in [
        "Wiener Chauffeur GmbH",
        "Kärntner Straße 1, 1010 Wien, Österreich",
        "FN 123456a",
        "Handelsgericht Wien",
        "ATU12345678",
        "Magistratisches Bezirksamt für den 1. Bezirk",
        "Wirtschaftskammer Wien",
        "Gewerbeordnung 1994",
        "+43 1 234 56 78",
    ]:
        assert detail in page, detail
    assert MISSING_DE not in page
    assert '<a href="mailto:office@chauffeur.example.com">' in page
    assert "Kärntner Straße 1, 1010 Wien, Austria" in client.get("/en/imprint").content.decode()


def test_staff_text_is_escaped_and_its_markup_becomes_headings_lists_and_paragraphs(admin_client, client):
    response = admin_client.post(
        ADD,
        {
            "kind": "privacy",
            "body_de": "## Kopf\n\n- eins\n- zwei\n\n<script>x</script> {legal_name}",
            "body_en": "## Head\n\nText",
            "publish": "on",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    page = client.get("/de/privacy").content.decode()
    assert "<h2>Kopf</h2>" in page and "<ul><li>eins</li><li>zwei</li></ul>" in page
    assert "&lt;script&gt;x&lt;/script&gt;" in page and "<script>x" not in page


def test_staff_publish_a_new_terms_version_and_the_old_one_stays_readable(admin_client, client):
    form = admin_client.get(ADD + "?kind=terms").content.decode()
    assert "Allgemeine Geschäftsbedingungen von {legal_name}" in form  # a new version starts from the current
    response = admin_client.post(
        ADD,
        {"kind": "terms", "body_de": "AGB Fassung zwei", "body_en": "Terms, second edition", "publish": "on"},
    )
    assert response.status_code == 302
    assert "Version 2" in client.get("/en/terms").content.decode()
    assert "Terms, second edition" in client.get("/en/terms").content.decode()
    assert "AGB Fassung zwei" in client.get("/de/terms").content.decode()
    old = client.get("/en/terms?version=1").content.decode()
    assert "Terms and conditions of" in old and "Version 1" in old
    for unknown in ["7", "x", "-1", "9" * 30]:
        assert client.get(f"/en/terms?version={unknown}").status_code == 404, unknown


def test_a_draft_is_not_shown_until_it_is_published(admin_client, client):
    assert (
        admin_client.post(ADD, {"kind": "imprint", "body_de": "Entwurf", "body_en": "Draft"}).status_code
        == 302
    )
    draft = LegalText.objects.get(version=None)
    assert "Draft" not in client.get("/en/imprint").content.decode()
    change = f"/admin/company/legaltext/{draft.pk}/change/"
    admin_client.post(
        change, {"kind": "imprint", "body_de": "Entwurf 2", "body_en": "Draft 2", "publish": "on"}
    )
    draft.refresh_from_db()
    assert draft.version == 2 and draft.published_at is not None
    assert "Draft 2" in client.get("/en/imprint").content.decode()


def test_a_published_version_cannot_be_edited_or_deleted(admin_client):
    published = legal.current(LegalText.Kind.TERMS)
    change = f"/admin/company/legaltext/{published.pk}/change/"
    form = admin_client.get(change).content.decode()
    assert 'name="body_en"' not in form  # read-only
    admin_client.post(change, {"kind": "privacy", "body_de": "x", "body_en": "y"})
    admin_client.post(f"/admin/company/legaltext/{published.pk}/delete/", {"post": "yes"})
    published.refresh_from_db()
    assert (published.kind, published.version, published.body_en[:9]) == ("terms", 1, "Template:")


def test_publishing_twice_changes_nothing():
    draft = LegalText.objects.create(kind="terms", body_de="a", body_en="b")
    first = legal.publish(draft.pk)
    again = legal.publish(draft.pk)
    assert (first.version, again.version, again.published_at) == (2, 2, first.published_at)
