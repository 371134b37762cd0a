"""The admin's home as staff open it in the morning: the dispatch board and the phone booking come first,
above the apps (they were two clicks deep, below "API tokens"), for whoever may use them, in German and
English; every section has a name staff read ("Sign-in attempts", not django-axes' "Axes")."""

import re

import pytest
from django.contrib.auth.models import Permission

pytestmark = pytest.mark.django_db


def staff(django_user_model, *codenames: str):
    user = django_user_model.objects.create_user("staff", password="pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    return user


def home(client, language: str = "en") -> str:
    return client.get("/admin/", HTTP_ACCEPT_LANGUAGE=language).content.decode()


@pytest.mark.parametrize(
    "language, board, phone",
    [
        ("en", "Dispatch board", "Phone booking"),
        ("de", "Dispositionstafel", "Telefonbuchung"),
    ],
)
def test_the_dispatch_board_and_the_phone_booking_open_the_home_page(admin_client, language, board, phone):
    page = home(admin_client, language)
    links = re.findall(
        r'<a href="([^"]+)" id="(dispatch-board-link|phone-booking-link)"><strong>([^<]+)<', page
    )
    assert links == [
        ("/admin/booking/booking/dispatch/", "dispatch-board-link", board),
        ("/admin/booking/booking/add/", "phone-booking-link", phone),
    ]
    # Before every app's section (API tokens, the first, used to come before both).
    assert page.index('id="day-work"') < page.index('class="app-')
    assert admin_client.get("/admin/booking/booking/dispatch/").status_code == 200


def test_a_viewer_sees_the_board_but_books_nothing(client, django_user_model):
    client.force_login(staff(django_user_model, "view_booking"))
    page = home(client)
    assert 'id="dispatch-board-link"' in page and 'id="phone-booking-link"' not in page


def test_staff_who_may_not_see_bookings_get_neither(client, django_user_model):
    client.force_login(staff(django_user_model, "view_tariff"))
    page = home(client)
    assert 'id="day-work"' not in page and "/admin/booking/booking/dispatch/" not in page


@pytest.mark.parametrize("language, name", [("en", "Sign-in attempts"), ("de", "Anmeldeversuche")])
def test_the_sign_in_attempts_have_a_name_staff_read(admin_client, language, name):
    page = home(admin_client, language)
    sections = re.findall(r'<a href="/admin/(\w+)/" class="section"[^>]*>([^<]+)</a>', page)
    assert ("axes", name) in sections and "Axes" not in page
    assert name in admin_client.get("/admin/axes/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
