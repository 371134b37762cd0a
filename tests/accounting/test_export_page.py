"""The accountant's export page of the admin (accounting/admin/export.py): last month by default, a
preview of what the file holds, the file itself as a download; a bad period is refused on the page (never a
500, never a file), and staff who may not view invoices are turned away."""

import csv
import io
from datetime import datetime

import pytest
import time_machine
from django.contrib.auth.models import Permission

from accounting import export as export
from tests.accounting.conftest import FIRST, HEADER, LAST, VIENNA

pytestmark = pytest.mark.django_db
PAGE = "/admin/accounting-export/"


@pytest.fixture(autouse=True)
def mid_november():
    with time_machine.travel(datetime(2026, 11, 15, 12, tzinfo=VIENNA), tick=False):
        yield


def staff(django_user_model, *codenames: str):
    user = django_user_model.objects.create_user("accountant", password="pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    return user


@pytest.fixture
def accountant(client, django_user_model):
    client.force_login(staff(django_user_model, "view_invoice"))
    return client


def test_last_month_is_previewed_in_english(accountant, october):
    response = accountant.get(PAGE, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'value="2026-10-01"' in html and 'value="2026-10-31"' in html  # last month in Vienna
    summary = html.split('id="export-summary"', 1)[1].split("</table>", 1)[0]
    assert 'Invoices</th><td class="num">6</td><td class="num">€611.00' in summary
    assert 'Credit notes</th><td class="num">2</td><td class="num">€-30.00' in summary
    assert 'Refunds</th><td class="num">2</td><td class="num">€-30.00' in summary
    vat = html.split('id="export-vat"', 1)[1].split("</table>", 1)[0]
    assert '10 %</th><td class="num">€52.82' in vat  # 55.55 invoiced less 2.73 credited
    assert "Download the file (16 lines)" in html
    assert "first=2026-10-01&amp;last=2026-10-31&amp;download=1" in html


def test_the_page_in_german(accountant, october):
    html = accountant.get(PAGE, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<html lang="de"' in html
    for said in (
        "Export für die Buchhaltung",
        "Vom Tag",
        "Gutschriften",
        "Zahlungseingänge",
        "611,00\u00a0€",
    ):
        assert said in html, said


def test_the_download_is_the_bmd_file(accountant, october):
    response = accountant.get(PAGE, {"first": "2026-10-01", "last": "2026-10-31", "download": "1"})
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "text/csv; charset=cp1252"
    assert response["Content-Disposition"] == 'attachment; filename="bmd-buchungen-2026-10-01-2026-10-31.csv"'
    data = b"".join(response.streaming_content)
    assert data == b"".join(export.lines(export.entries(first=FIRST, last=LAST)))
    header, *rows = list(csv.reader(io.StringIO(data.decode("cp1252"), newline=""), delimiter=";"))
    assert header == HEADER and len(rows) == 16


@pytest.mark.parametrize(
    "query, said",
    [
        ({"first": "2026-10-31", "last": "2026-10-01"}, "The first day must not be after the last."),
        ({"first": "next tuesday"}, "Enter a valid date."),
        ({"first": "2026-02-30"}, "Enter a valid date."),
        ({"first": "2024-01-01", "last": "2026-01-01"}, "Choose at most 366 days at a time."),
        ({"last": ""}, "This field is required."),
        ({"first": "9999-12-25", "last": "9999-12-31"}, "Choose days between 2000 and 2099."),
        ({"first": "0001-01-01", "last": "0001-01-05"}, "Choose days between 2000 and 2099."),
    ],
)
def test_a_bad_period_is_refused_on_the_page_and_no_file_goes_out(accountant, october, query, said):
    response = accountant.get(PAGE, {**query, "download": "1"}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200 and not response.streaming
    html = response.content.decode()
    assert 'id="export-errors"' in html and said in html
    assert "export-summary" not in html and "download-export" not in html


def test_days_typed_the_austrian_way_are_understood(accountant, october):
    html = accountant.get(PAGE, {"first": "1.10.2026", "last": "31.10.2026"}).content.decode()
    assert "Download the file (16 lines)" in html


def test_a_vat_rate_without_an_account_is_said_on_the_page(accountant, october, settings):
    settings.ACCOUNTING_REVENUE_ACCOUNTS = {"20": "4020"}
    response = accountant.get(PAGE, {"download": "1"}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200 and not response.streaming
    assert "No revenue account is set for 10 % VAT" in response.content.decode()


def test_the_index_links_the_page_for_those_who_may_see_it(accountant, client, django_user_model):
    assert 'id="accounting-export-link"' in accountant.get("/admin/").content.decode()
    other = django_user_model.objects.create_user("dispatcher", password="pw", is_staff=True)
    other.user_permissions.set(Permission.objects.filter(codename="view_booking"))
    client.force_login(other)
    assert client.get(PAGE).status_code == 403
    index = client.get("/admin/").content.decode()
    assert "accounting-export-link" not in index and "revenue-link" in index
