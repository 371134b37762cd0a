"""revoke_grant (the admin's and the revocation endpoint's): every token of the consent stops, on every
process once the commit moves the shared token version, and its codes and refresh tokens are spent."""

from datetime import timedelta

import pytest
from django.utils import timezone

from access import tokens
from access.models import ApiToken
from oauth.grants import revoke_grant
from oauth.models import AuthorizationCode, OAuthGrant, RefreshToken
from tests.oauth.conftest import MCP

pytestmark = pytest.mark.django_db


def test_revoking_a_grant_stops_its_tokens_and_spends_its_codes_and_refresh_tokens(
    oauth_client, django_capture_on_commit_callbacks
):
    grant = OAuthGrant.objects.create(
        client=oauth_client,
        subject="traveller",
        traveller_email="anna@example.com",
        scopes=["booking.read"],
        resource=MCP,
    )
    other = OAuthGrant.objects.create(
        client=oauth_client, subject="agency", scopes=["booking.read"], resource=MCP
    )
    plains = []
    for owner in (grant, grant, other):
        plain, prefix, digest = tokens.new_secret()
        ApiToken.objects.create(name="t", prefix=prefix, digest=digest, scopes=["booking.read"], grant=owner)
        plains.append(plain)
    later = timezone.now() + timedelta(days=1)
    RefreshToken.objects.create(grant=grant, digest="r" * 64, expires_at=later)
    AuthorizationCode.objects.create(
        grant=grant, digest="c" * 64, redirect_uri="x", code_challenge="y", resource=MCP, expires_at=later
    )
    assert all(tokens.authenticate(plain) for plain in plains)  # kept by this process now
    with django_capture_on_commit_callbacks(execute=True):
        revoke_grant(grant, actor="staff member eva")
    grant.refresh_from_db()
    assert grant.revoked_at is not None
    assert [tokens.authenticate(plain) is None for plain in plains] == [True, True, False]
    assert (
        RefreshToken.objects.get().used_at is not None and AuthorizationCode.objects.get().used_at is not None
    )
    assert OAuthGrant.objects.get(pk=other.pk).revoked_at is None
    first = grant.revoked_at
    revoke_grant(grant, actor="again")  # twice is harmless and keeps the first time
    grant.refresh_from_db()
    assert grant.revoked_at == first
