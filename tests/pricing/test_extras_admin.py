"""The extras in the admin: a new one gets its code, which then never changes (booked rides and cars'
equipment name it by it)."""

import pytest

from pricing.models import Extra
from tests.admin_forms import empty_inline

pytestmark = pytest.mark.django_db

ADD = "/admin/pricing/extra/add/"


def test_staff_add_an_extra_and_its_code_stays(admin_client):
    response = admin_client.post(
        ADD,
        {
            "code": "umbrella",
            "name_de": "Regenschirm",
            "name_en": "Umbrella",
            "price": "3.00",
            "per_piece": "on",
            "maximum": "2",
            "child_seat": "",
            "active": "on",
            "order": "9",
            **empty_inline("limits"),
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    extra = Extra.objects.get(code="umbrella")
    page = admin_client.get(f"/admin/pricing/extra/{extra.pk}/change/").content.decode()
    assert 'name="code"' not in page and "umbrella" in page
    response = admin_client.post(
        f"/admin/pricing/extra/{extra.pk}/change/",
        {
            "code": "parasol",
            "name_de": "Regenschirm",
            "name_en": "Umbrella",
            "price": "4.00",
            "per_piece": "on",
            "maximum": "2",
            "child_seat": "",
            "active": "on",
            "order": "9",
            **empty_inline("limits"),
        },
    )
    assert response.status_code == 302
    extra.refresh_from_db()
    assert (extra.code, str(extra.price)) == ("umbrella", "4.00")


def test_a_code_with_capitals_or_spaces_is_refused(admin_client):
    response = admin_client.post(
        ADD,
        {
            "code": "Child Seat",
            "name_de": "x",
            "name_en": "x",
            "price": "1",
            "maximum": "1",
            "order": "0",
            **empty_inline("limits"),
        },
    )
    assert response.status_code == 200 and not Extra.objects.filter(name_en="x").exists()
