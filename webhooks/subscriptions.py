"""An API token's own endpoints: added (its URL checked, its owner the token's: webhooks/owners.py), listed,
read, removed and resumed. Another owner's endpoint is not found, as an unknown id."""

from django.db import transaction
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from access.models import ApiToken
from apikit.errors import DomainError
from webhooks import addresses, owners, sending
from webhooks.models import Endpoint

MAX_PER_OWNER = 10


class UnknownEndpoint(DomainError):
    code = "not_found"


def add(token: ApiToken, *, url: str, event_types: list[str], description: str = "") -> Endpoint:
    owner = owners.of_token(token)
    try:
        addresses.checked(url)
    except addresses.EndpointRefused as refusal:
        raise DomainError(refusal.reason, field="url") from None
    with transaction.atomic():
        # the owner's endpoints counted under a lock on the token's row: two requests at once add one
        ApiToken.objects.select_for_update().filter(pk=token.pk).first()
        if Endpoint.objects.filter(owner=owner).count() >= MAX_PER_OWNER:
            raise DomainError(
                format_lazy(_("At most {count} endpoints per token: remove one first."), count=MAX_PER_OWNER),
                field="url",
            )
        return Endpoint.objects.create(
            url=url, event_types=event_types, description=description, owner=owner, api_token=token
        )


def of(token: ApiToken):
    return Endpoint.objects.filter(owner=owners.of_token(token)).order_by("created_at", "pk")


def find(token: ApiToken, public_id: str) -> Endpoint:
    endpoint = of(token).filter(public_id=public_id).first()
    if endpoint is None:
        raise UnknownEndpoint(format_lazy(_("No webhook endpoint {id} of this token."), id=public_id[:40]))
    return endpoint


def forget_traveller(email: str) -> int:
    """A traveller's erasure: the endpoints their assistants added (and what waited for them) go."""
    return Endpoint.objects.filter(owner=owners.of_traveller(email)).delete()[1].get("webhooks.Endpoint", 0)


def remove(token: ApiToken, public_id: str) -> None:
    find(token, public_id).delete()  # its deliveries go with it


def resume(token: ApiToken, public_id: str) -> Endpoint:
    endpoint = find(token, public_id)
    if endpoint.paused_at is not None:
        sending.resume(endpoint)
    return endpoint
