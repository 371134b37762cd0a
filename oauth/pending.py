"""The authorization request waiting for consent, kept in the browser's session between /oauth/authorize,
the sign-in and /oauth/consent (docs/agents/oauth.md). Only validated requests are stored."""

import hashlib
import json
from dataclasses import asdict, dataclass

from django.http import HttpRequest

SESSION_KEY = "oauth.pending"


@dataclass(frozen=True)
class PendingAuthorization:
    client_id: str
    redirect_uri: str
    scopes: list[str]
    state: str
    code_challenge: str
    resource: str

    def fingerprint(self) -> str:
        """Names this request in the consent form, so a consent never approves a request another tab
        put in the session meanwhile."""
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:32]


def pending_of(request: HttpRequest) -> PendingAuthorization | None:
    stored = request.session.get(SESSION_KEY)
    if not isinstance(stored, dict):
        return None
    try:
        return PendingAuthorization(
            client_id=str(stored["client_id"]),
            redirect_uri=str(stored["redirect_uri"]),
            scopes=[str(scope) for scope in stored["scopes"]],
            state=str(stored.get("state") or ""),
            code_challenge=str(stored["code_challenge"]),
            resource=str(stored["resource"]),
        )
    except (KeyError, TypeError):
        return None


def keep(request: HttpRequest, pending: PendingAuthorization) -> None:
    request.session[SESSION_KEY] = asdict(pending)


def forget(request: HttpRequest) -> None:
    request.session.pop(SESSION_KEY, None)
