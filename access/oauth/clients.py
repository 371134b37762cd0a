"""Which client a client ID names (docs/agents/oauth.md): a registered client (dynamic registration, or
created by staff) from the database; an https URL is a client ID metadata document, fetched and kept
fresh (access/oauth/client_metadata.py). A blocked client is nobody."""

from access.models import OAuthClient
from access.oauth import client_metadata


def client_of(client_id: str) -> OAuthClient | None:
    if not client_metadata.is_document_url(client_id):
        return OAuthClient.objects.filter(client_id=client_id, blocked_at__isnull=True).first()
    return client_metadata.client_for_document(client_id)
