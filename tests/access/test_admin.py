"""The token list fits a working day: the state first, filtered by active, expired or revoked."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.conftest import bearer

pytestmark = pytest.mark.django_db
LIST = "/admin/access/apitoken/"


@pytest.fixture
def tokens(db):
    bearer("booking.read")
    bearer("booking.read", revoked_at=timezone.now())
    bearer("booking.read", expires_at=timezone.now() - timedelta(days=1))


def states(html: str) -> list[str]:
    return re.findall(r'<td class="field-state">(\w+)</td>', html)


def test_the_state_is_the_first_column(admin_client, tokens):
    html = admin_client.get(LIST).content.decode()
    headers = re.findall(r'<th scope="col" class="(?:sortable )?column-(\w+)', html)
    assert headers[:2] == ["state", "name"]
    assert sorted(states(html)) == ["active", "expired", "revoked"]


@pytest.mark.parametrize("state", ["active", "expired", "revoked"])
def test_the_filter_offers_active_expired_and_revoked(admin_client, tokens, state):
    html = admin_client.get(LIST, {"state": state}).content.decode()
    assert states(html) == [state]
    assert "revoked_at" not in html.split('id="changelist-filter"')[1].split("</nav>")[0]
