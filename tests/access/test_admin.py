"""The token list fits a working day: the state first, filtered by active, expired or revoked."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from access.models import ApiToken
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


def test_the_token_pages_in_german(admin_client, tokens):
    german = {"HTTP_ACCEPT_LANGUAGE": "de"}
    listing = admin_client.get(LIST, **german).content.decode()
    assert sorted(states(listing)) == ["abgelaufen", "aktiv", "widerrufen"]
    assert "Ausgewählte Tokens widerrufen" in listing and "Revoke the selected" not in listing
    form = admin_client.get(LIST + "add/", **german).content.decode()
    assert "booking.read: Strecke, Preis, Adressen, Verfügbarkeit" in form
    assert "Anfragen je 60 Sekunden für diesen Token" in form and "Requests per" not in form
    issued = admin_client.post(
        LIST + "add/",
        {
            "name": "Reisebüro",
            "scopes": ["booking.write"],
            "expires_at_0": "",
            "expires_at_1": "",
            "rate_limit": "",
        },
        **german,
    ).content.decode()
    assert "Der Token für <strong>Reisebüro</strong> (booking.write) lautet:" in issued
    assert "Jetzt kopieren und sicher übergeben" in issued and "Copy it now" not in issued
    revoked = admin_client.post(
        LIST,
        {"action": "revoke_selected", "_selected_action": [token.pk for token in ApiToken.objects.all()]},
        follow=True,
        **german,
    )
    (said,) = [str(message) for message in revoked.context["messages"]]
    assert said.startswith("Widerrufen am ") and "Reisebüro" in said
    assert not ApiToken.objects.filter(revoked_at__isnull=True).exists()
