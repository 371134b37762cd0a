"""Revoking a consent: its grant, every access token issued under it (on every worker at once: revoke_all
moves the shared token version) and its refresh tokens and codes."""

import logging

from django.db import transaction
from django.utils import timezone

from access import tokens
from access.models import OAuthGrant

logger = logging.getLogger(__name__)


def revoke_grant(grant: OAuthGrant, *, actor: str) -> None:
    """`actor` names who or what revoked it (a staff member, the client, replay detection) in the log."""
    with transaction.atomic():
        locked = OAuthGrant.objects.select_for_update().get(pk=grant.pk)
        now = timezone.now()
        if locked.revoked_at is None:
            OAuthGrant.objects.filter(pk=grant.pk).update(revoked_at=now)
            logger.info("OAuth grant %s revoked by %s", grant.pk, actor)
        grant.revoked_at = locked.revoked_at or now
        tokens.revoke_all(grant.access_tokens.all())
        grant.refresh_tokens.filter(used_at__isnull=True).update(used_at=now)
        grant.codes.filter(used_at__isnull=True).update(used_at=now)
