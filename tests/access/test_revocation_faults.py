"""Revoking tokens while the shared cache is down: the revocation is the database's;
the cache only tells other processes sooner. So all tokens are revoked together, the page answers, and this
process refuses them at once (docs/operations/failure.md)."""

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache

from access import tokens
from access.models import ApiToken
from apikit.cache import CircuitBreakerError
from tests.config.test_faults import own_redis  # noqa: F401  (a redis-server of the test's own port)

# Real commits: the version moves on commit, which is where a down cache used to end the request.
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
LIST = "/admin/access/apitoken/"


def test_revoking_three_tokens_while_redis_is_down_revokes_all_three(client, own_redis):  # noqa: F811
    issued = [tokens.issue_token(name=f"Agent {n}", scopes=["booking.read"]) for n in range(3)]
    assert all(tokens.authenticate(plain) == token for token, plain in issued)  # kept by this process
    client.force_login(User.objects.create_superuser("eva", password="pw"))

    own_redis.kill()
    own_redis.wait(timeout=10)
    chosen = {"action": "revoke_selected", "_selected_action": [token.pk for token, _ in issued], "index": 0}
    response = client.post(LIST, chosen, follow=True)

    assert response.status_code == 200
    (said,) = [str(message) for message in response.context["messages"]]
    assert said.startswith("Revoked at ") and all(token.name in said for token, _ in issued)
    assert ApiToken.objects.filter(revoked_at__isnull=True).count() == 0
    assert {token.revoked_at for token in ApiToken.objects.all()} != {None}
    assert len({token.revoked_at for token in ApiToken.objects.all()}) == 1  # one transaction, one moment
    assert all(tokens.authenticate(plain) is None for _, plain in issued)  # refused here at once
    with pytest.raises(CircuitBreakerError):  # the cache is still down: the breaker answers at once
        cache.get("anything")
    assert client.get(LIST).status_code == 200


def test_a_revocation_moves_the_shared_version_once_it_commits(client):
    """With the cache up, the other processes learn of it: the version moved."""
    issued = [tokens.issue_token(name=f"Agent {n}", scopes=["booking.read"]) for n in range(3)]
    before = tokens.TOKENS.current()
    client.force_login(User.objects.create_superuser("eva", password="pw"))
    chosen = {"action": "revoke_selected", "_selected_action": [token.pk for token, _ in issued], "index": 0}
    client.post(LIST, chosen)
    assert cache.get(tokens.TOKENS.key) not in (None, before)
    assert ApiToken.objects.filter(revoked_at__isnull=True).count() == 0
