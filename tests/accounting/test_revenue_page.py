"""The monthly revenue page of the admin (accounting/admin/revenue.py): staff who may view bookings see a range
of months (the last twelve unless they choose), the tables and the chart in their language; a bad month
is refused on the page, and everyone else is turned away."""

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth.models import Permission

from payments.models import Refund

pytestmark = pytest.mark.django_db
VIENNA = ZoneInfo("Europe/Vienna")
PAGE = "/admin/revenue/"


@pytest.fixture(autouse=True)
def march_2026():
    with time_machine.travel(datetime(2026, 3, 15, 12, tzinfo=VIENNA), tick=False):
        yield


def staff(django_user_model, *codenames: str):
    user = django_user_model.objects.create_user(f"staff-{len(codenames)}", password="pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    return user


@pytest.fixture
def viewer(client, django_user_model):
    client.force_login(staff(django_user_model, "view_booking"))
    return client


@pytest.fixture
def money(make_booking):
    """A web booking paid on the last evening of January (Vienna) and a phone booking refunded in March."""
    january = make_booking(
        status="paid", paid_at=datetime(2026, 1, 31, 23, 30, tzinfo=VIENNA), channel="website"
    )
    phone = make_booking(
        status="paid", paid_at=datetime(2026, 2, 3, 9, tzinfo=VIENNA), channel="phone", vehicle_class="first"
    )
    Refund.objects.create(booking=phone, amount_cents=2000, status="succeeded")  # now: March
    return january, phone


def rows(html: str, table: str) -> list[list[str]]:
    """The cells of a table's rows, tags stripped."""
    body = html.split(f'id="{table}"', 1)[1].split("</table>", 1)[0]
    return [
        [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    ]


def test_the_last_twelve_months_in_english(viewer, money):
    response = viewer.get(PAGE, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    html = response.content.decode()
    months = [row[0] for row in rows(html, "revenue-by-month")[1:-1]]
    # The nine months without money are one line.
    assert months == ["April 2025 – December 2025", "January 2026", "February 2026", "March 2026"]
    assert 'value="2025-04"' in html and 'value="2026-03"' in html  # the range picker shows the default
    by_month = {row[0]: row[1:] for row in rows(html, "revenue-by-month")}
    assert by_month["January 2026"] == ["1", "€74.00", "€0.00", "€74.00", "€67.27", "€6.73"]
    assert by_month["April 2025 – December 2025"] == ["No payments or refunds"]
    assert by_month["March 2026"][1:4] == ["€0.00", "€20.00", "€-20.00"]  # sitekit/l10n.py's sign
    channels = rows(html, "revenue-by-channel")
    assert ["January 2026", "web", "1", "€74.00", "€67.27", "€6.73"] in channels
    assert ["March 2026", "phone", "0", "€-20.00", "€-18.18", "€-1.82"] in channels  # the refund alone
    assert channels[-1][0] == "Total"
    classes = rows(html, "revenue-by-class")
    assert ["All months", "Executive Class", "1", "€74.00", "€67.27", "€6.73"] in classes


def test_the_page_in_german(viewer, money):
    response = viewer.get(PAGE, {"first": "2026-01", "last": "2026-03"}, HTTP_ACCEPT_LANGUAGE="de")
    html = response.content.decode()
    assert '<html lang="de"' in html
    by_month = {row[0]: row[1:] for row in rows(html, "revenue-by-month")}
    assert list(by_month) == ["Monat", "Januar 2026", "Februar 2026", "März 2026", "Gesamt"]
    assert by_month["Januar 2026"][1] == "74,00\u00a0€"
    assert rows(html, "revenue-by-channel")[3][:3] == ["Februar 2026", "Telefon", "1"]  # after January's 2
    assert "Monatsumsatz" in html and "Umsatz je Monat nach Kanal" in html


def test_the_chart_is_inline_svg_with_a_text_equivalent_and_no_inline_style(viewer, money):
    _, phone = money
    response = viewer.get(PAGE, {"first": "2026-01", "last": "2026-03"})
    html = response.content.decode()
    svg = html.split('<svg id="revenue-chart"', 1)[1].split("</svg>", 1)[0]
    assert 'role="img"' in svg and 'aria-labelledby="revenue-chart-title revenue-chart-desc"' in svg
    assert '<title id="revenue-chart-title">' in svg and '<desc id="revenue-chart-desc">' in svg
    bars = re.findall(r'<rect class="channel-(\w+)"[^>]*height="([\d.]+)"><title>([^<]+)</title>', svg)
    assert [(channel, title) for channel, _, title in bars] == [
        ("website", "January 2026 · web: €74.00"),
        ("phone", f"February 2026 · phone: €{phone.amount_cents / 100:.2f}"),
        ("phone", "March 2026 · phone: €-20.00"),  # below the zero line
    ]
    page = html.split('id="revenue-page"', 1)[1]
    assert "style=" not in page and "<script" not in page  # nothing the CSP would refuse


def test_a_year_with_money_in_one_month_is_a_few_lines_not_a_page_of_zeros(viewer, make_booking):
    make_booking(status="paid", paid_at=datetime(2026, 1, 10, 9, tzinfo=VIENNA), channel="website")
    html = viewer.get(PAGE, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert [row[0] for row in rows(html, "revenue-by-month")[1:-1]] == [
        "April 2025 – Dezember 2025",
        "Januar 2026",
        "Februar 2026 – März 2026",
    ]
    assert rows(html, "revenue-by-month")[3][1:] == ["Keine Zahlungen oder Erstattungen"]
    for table in ("revenue-by-class", "revenue-by-channel"):  # January alone, with the one that had money
        assert rows(html, table)[1:3] == [
            [
                "Januar 2026",
                "Executive Class" if table == "revenue-by-class" else "Web",
                "1",
                "74,00\u00a0€",
                "67,27\u00a0€",
                "6,73\u00a0€",
            ],
            ["Monatssumme", "1", "74,00\u00a0€", "67,27\u00a0€", "6,73\u00a0€"],
        ]
    # Before: 12 lines by month and 12 × 5 in each of the two tables by class and channel.
    assert html.count("<tr") <= 25


def test_a_period_without_any_money_says_so(viewer):
    html = viewer.get(PAGE, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert [row[0] for row in rows(html, "revenue-by-month")[1:-1]] == ["April 2025 – March 2026"]
    assert ["No payments or refunds in these months."] in rows(html, "revenue-by-class")


def test_a_bad_month_is_refused_on_the_page(viewer, money):
    for query, said in [
        ({"first": "2026-13"}, "Enter a month as YYYY-MM (such as 2026-01) between 2000-01 and 2099-12."),
        ({"first": "last spring"}, "Enter a month as YYYY-MM"),
        ({"first": "2026-05", "last": "2026-01"}, "The first month must not be after the last."),
        ({"first": "2015-01", "last": "2026-01"}, "Choose at most 60 months at a time."),
        ({"last": ""}, "This field is required."),
    ]:
        response = viewer.get(PAGE, query, HTTP_ACCEPT_LANGUAGE="en")
        assert response.status_code == 200, query
        html = response.content.decode()
        assert 'class="errornote"' in html and said in html, query
        assert "revenue-by-month" not in html and "<svg id" not in html, query


def test_months_typed_the_german_way_are_understood(viewer, money):
    html = viewer.get(PAGE, {"first": "1.2026", "last": "01.2026"}).content.decode()
    assert [row[0] for row in rows(html, "revenue-by-month")[1:-1]] == ["January 2026"]


def test_staff_without_the_view_permission_are_refused(client, django_user_model, money):
    client.force_login(staff(django_user_model, "view_tariff"))
    assert client.get(PAGE).status_code == 403
    assert "revenue-link" not in client.get("/admin/").content.decode()


def test_someone_not_on_the_staff_is_sent_to_sign_in(client, django_user_model, money):
    user = staff(django_user_model, "view_booking")
    user.is_staff = False
    user.save()
    client.force_login(user)
    response = client.get(PAGE)
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert client.logout() is None and client.get(PAGE)["Location"].startswith("/admin/login/")


def test_the_admin_index_links_to_it(viewer):
    html = viewer.get("/admin/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'<a href="{PAGE}" id="revenue-link">Monthly revenue</a>' in html
