"""The admin as Vienna staff use it: in the operator's name, in German or English (the browser's language,
or the switch in its header), with Vienna's dates."""

import re

import pytest

from booking.models import Booking

pytestmark = pytest.mark.django_db


def test_the_header_carries_the_operators_name_not_djangos(admin_client):
    page = admin_client.get("/admin/").content.decode()
    assert "Vienna Chauffeur · Back office" in page and "Django administration" not in page
    assert re.search(r"<title>[^<]*\| Vienna Chauffeur</title>", page)


def test_a_german_browser_gets_the_admin_in_german(admin_client):
    page = admin_client.get("/admin/booking/booking/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert 'lang="de"' in page and "Vienna Chauffeur · Büro" in page
    assert "Abmelden" in page  # Django's own catalogue ("Log out")
    assert "Dispositionstafel" in page  # ours ("Dispatch board")
    assert "Heute" in page and "Nächste 7 Tage" in page  # the pickup filter


def test_the_switch_in_the_header_changes_the_language_and_keeps_the_page(admin_client):
    page = admin_client.get("/admin/booking/booking/").content.decode()
    assert 'id="language-switch"' in page and 'value="de"' in page
    switched = admin_client.post("/i18n/setlang/", {"language": "de", "next": "/admin/booking/booking/"})
    assert (switched.status_code, switched["Location"]) == (302, "/admin/booking/booking/")
    assert "Dispositionstafel" in admin_client.get("/admin/booking/booking/").content.decode()
    assert Booking.objects.count() == 0  # a language is all it changed


def test_the_apis_stay_english_for_a_german_browser(client):
    problem = client.get("/api/v1/price", HTTP_ACCEPT_LANGUAGE="de").json()
    assert problem["code"] == "invalid_request" and problem["title"] == "Invalid request"
