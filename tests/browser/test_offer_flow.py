"""An offer's whole day in a real Chromium: a dispatcher answers a quote request in the German back office
(the offer's line, class and validity, then "send the offer"; the demo's request, not priced yet, is
refused), and the traveller opens the offer's page, books it and pays in the sandbox; opened again,
the page says it is booked. No page reports a console error."""

import json
import re

import pytest

from tests.back_office import PASSWORD, STAFF, back_office
from tests.browser.conftest import ARTIFACTS, DESKTOP, axe_violations, watch_console
from tests.processes import manage

ASKED = """
import json
from datetime import datetime, time, timedelta
from django.utils import timezone
from quote_requests.models import QuoteRequest
pickup = datetime.combine(timezone.localdate() + timedelta(days=8), time(10), tzinfo=timezone.get_default_timezone())
asked = QuoteRequest.objects.create(reference="QR-BRWSR1", origin="Hotel Sacher", destination="Salzburg Hauptbahnhof",
    pickup_at=pickup, passengers=5, luggage=4, name="Eva Huber", email="eva@example.com", locale="de",
    channel="website")
print(json.dumps({"pk": asked.pk, "day": (timezone.localdate() + timedelta(days=5)).strftime("%d.%m.%Y")}))
"""
LINK = "from quote_requests.models import QuoteRequest; print(QuoteRequest.objects.get(reference='QR-BRWSR1').offer_link())"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with back_office(tmp_path_factory.mktemp("offers")) as running:
        yield running


def shell(served, code: str) -> str:
    done = manage("shell", "--no-imports", "-c", code, **served.env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_staff_send_an_offer_and_the_traveller_books_and_pays_it(served, chromium):
    asked = json.loads(shell(served, ASKED))
    context = chromium.new_context(locale="de-AT", viewport=DESKTOP, timezone_id="Europe/Vienna")
    staff = context.new_page()
    errors = watch_console(staff)
    staff.goto(f"{served.base}/admin/login/")
    staff.fill("#id_username", STAFF)
    staff.fill("#id_password", PASSWORD)
    staff.click("input[type=submit]")
    staff.wait_for_url(f"{served.base}/admin/")

    # the demo's request, which no one priced: nothing is sent
    staff.goto(f"{served.base}/admin/quote_requests/quoterequest/?q=events%40example.com")
    staff.check("input.action-select")
    staff.select_option("select[name=action]", "send_offer")
    staff.click("button[name=index]")
    assert "Wählen Sie für das Angebot eine angebotene Fahrzeugklasse." in staff.inner_text(".messagelist")

    staff.goto(f"{served.base}/admin/quote_requests/quoterequest/{asked['pk']}/change/")
    staff.select_option("#id_offer_vehicle_class", "business-van")
    staff.fill("#id_offer_valid_until", asked["day"])
    staff.fill("#id_offer_lines-0-label", "Business Van Wien – Salzburg, mit Wartezeit")
    staff.fill("#id_offer_lines-0-amount", "640.00")
    found = axe_violations(staff)
    assert found == [], found
    staff.click("input[name=_save]")
    staff.wait_for_url(re.compile(r"/admin/quote_requests/quoterequest/$"))
    staff.goto(f"{served.base}/admin/quote_requests/quoterequest/?q=QR-BRWSR1")
    staff.check("input.action-select")
    staff.select_option("select[name=action]", "send_offer")
    staff.click("button[name=index]")
    assert "QR-BRWSR1: Das Angebot ist unterwegs." in staff.inner_text(".messagelist")

    traveller = context.new_page()
    errors += watch_console(traveller)
    link = shell(served, LINK)
    traveller.goto(link)
    assert traveller.inner_text("#amount").replace("\xa0", " ") == "640,00 €"
    assert "Gültig bis" in traveller.inner_text("#offer-standing")
    assert axe_violations(traveller) == []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    traveller.screenshot(path=str(ARTIFACTS / "offer-page.png"), full_page=True)
    traveller.click("#accept-offer")
    traveller.wait_for_url(re.compile(r"/booking/sandbox/sbx_cs_\w+$"))
    traveller.click("#pay")
    traveller.wait_for_url(re.compile(r"/booking/success\?session_id="))
    traveller.goto(link)
    assert traveller.inner_text("#offer-standing") == "Sie haben dieses Angebot gebucht."
    traveller.click("#manage")
    assert traveller.inner_text("#amount").replace("\xa0", " ") == "640,00 €"
    context.close()
    assert errors == []
