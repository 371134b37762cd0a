"""The operator profile: staff edit name, contacts, logo and colours in the admin, and every page shows them
at once; colours that would not read are refused, and so is a logo that is not a plain image."""

import base64
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from operator_profile.colours import contrast, text_colour_on
from operator_profile.models import OperatorProfile

pytestmark = pytest.mark.django_db

CHANGE = "/admin/company/operatorprofile/1/change/"
# A 1×1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def profile_form(**changes) -> dict:
    return {
        "name": "Wiener Chauffeur GmbH",
        "phone": "+43 1 234 56 78",
        "email": "office@chauffeur.example.com",
        "website": "https://www.chauffeur.example.com",
        "brand_colour": "#7a1f2b",
        "header_colour": "#f4e9d8",
        "country": "AT",
        "foreign_route_vat": "whole",
        **changes,
    }


def test_the_admin_edits_the_one_profile_and_every_page_shows_it_at_once(admin_client, client):
    assert client.get("/en/").content.decode().count("Vienna Chauffeur") >= 2  # seeded, cached now
    response = admin_client.post(CHANGE, profile_form())
    assert response.status_code == 302, response.content.decode()[:2000]
    page = client.get("/en/").content.decode()
    assert "Wiener Chauffeur GmbH" in page and "Vienna Chauffeur" not in page
    assert '<a class="cb-phone" href="tel:+4312345678">+43 1 234 56 78</a>' in page
    assert (
        'href="mailto:office@chauffeur.example.com"' in page
        and 'href="https://www.chauffeur.example.com"' in page
    )
    stylesheet = re.search(r'href="(/company/brand\.css\?v=\w+)"', page)[1]
    css = client.get(stylesheet)
    assert css["Content-Type"] == "text/css" and "immutable" in css["Cache-Control"]
    # The dark brand colour gets white text; the light header gets dark text.
    assert (
        "--cb-brand:#7a1f2b;--cb-on-brand:#ffffff;--cb-header:#f4e9d8;--cb-on-header:#111111"
        in css.content.decode()
    )


def test_a_brand_colour_too_light_to_read_is_refused_and_nothing_is_saved(admin_client):
    response = admin_client.post(CHANGE, profile_form(brand_colour="#ffd966"))
    assert response.status_code == 200
    assert "too light to read on white" in response.content.decode()
    assert OperatorProfile.objects.get().name == "Vienna Chauffeur"


def test_a_logo_is_uploaded_shown_and_served_with_its_type(admin_client, client):
    upload = SimpleUploadedFile("logo.png", PNG, content_type="image/png")
    assert admin_client.post(CHANGE, {**profile_form(), "logo_file": upload}).status_code == 302
    page = client.get("/de/").content.decode()
    logo = re.search(r'<img src="(/company/logo\?v=\w+)" alt="Wiener Chauffeur GmbH"', page)[1]
    served = client.get(logo)
    assert (served.status_code, served["Content-Type"], served.content) == (200, "image/png", PNG)
    assert "immutable" in served["Cache-Control"] and "sandbox" in served["Content-Security-Policy"]
    favicon = client.get("/favicon.ico")
    assert (favicon.status_code, favicon["Content-Type"], favicon.content) == (200, "image/png", PNG)
    assert admin_client.post(CHANGE, {**profile_form(), "remove_logo": "on"}).status_code == 302
    assert client.get(logo).status_code == 404 and "<img" not in client.get("/de/").content.decode()
    # Browsers still ask for /favicon.ico: no logo is an empty answer, not a 404 in the console.
    assert (client.get("/favicon.ico").status_code, client.get("/favicon.ico").content) == (204, b"")


@pytest.mark.parametrize(
    ("content", "name"),
    [
        (b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "logo.svg"),
        (b"GIF-not-really" + b"\0" * 10, "logo.txt"),
    ],
)
def test_a_logo_that_is_not_a_plain_image_is_refused(admin_client, content, name):
    upload = SimpleUploadedFile(name, content)
    response = admin_client.post(CHANGE, {**profile_form(), "logo_file": upload})
    assert "Upload a PNG, JPEG or GIF image." in response.content.decode()
    assert OperatorProfile.objects.get().logo is None


def test_there_is_one_profile_never_a_second_and_never_none(admin_client):
    assert admin_client.get("/admin/company/operatorprofile/")["Location"] == CHANGE
    assert admin_client.get("/admin/company/operatorprofile/add/").status_code == 403
    assert admin_client.get("/admin/company/operatorprofile/1/delete/").status_code == 403


def test_contrast_is_measured_as_wcag_does():
    assert round(contrast("#000000", "#ffffff"), 1) == 21.0
    assert round(contrast("#0b4f6c", "#ffffff"), 1) == 8.9  # the default brand colour
    assert text_colour_on("#10232f") == "#ffffff" and text_colour_on("#f4e9d8") == "#111111"


# --- header injection: the name and address go into every mail's From and Reply-To --------------------------


ONE_LINE = "Enter it on one line, without line breaks or control characters."


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("name", "Wiener Chauffeur\r\nBcc: everyone@example.org", ONE_LINE),
        ("name", "Wiener\nChauffeur", ONE_LINE),
        ("name", "Wiener\u2028Chauffeur", ONE_LINE),
        ("name", "Wiener\x1bChauffeur", ONE_LINE),
        ("name", "Wiener\x00Chauffeur", "Null characters are not allowed."),  # Django's own
        ("phone", "+43 1\r\n234", ONE_LINE),
        ("email", "office@chauffeur.example.com\nBcc: y@example.org", "Enter a valid email address."),
    ],
)
def test_a_line_break_or_control_character_is_refused_and_nothing_is_saved(admin_client, field, value, error):
    response = admin_client.post(CHANGE, profile_form(**{field: value}))
    assert response.status_code == 200
    assert error in response.content.decode()
    assert OperatorProfile.objects.get().name == "Vienna Chauffeur"
    assert OperatorProfile.objects.get().phone != value


def test_the_admin_sets_the_vat_on_rides_across_the_border(admin_client):
    page = admin_client.get(CHANGE).content.decode()
    assert 'type="radio" name="foreign_route_vat" value="whole"' in page and "UStG §3a (10)" in page
    assert admin_client.post(CHANGE, profile_form(foreign_route_vat="austria_only")).status_code == 302
    assert OperatorProfile.objects.get().foreign_route_vat == "austria_only"
    refused = admin_client.post(CHANGE, profile_form(foreign_route_vat="guess"))
    assert refused.status_code == 200 and "errornote" in refused.content.decode()
    assert OperatorProfile.objects.get().foreign_route_vat == "austria_only"  # unchanged
