"""An API token's own endpoints: added (its URL checked; whose bookings it hears of, and who manages it:
webhooks/owners.py), listed, read, removed and resumed by the token or another of its OAuth grant. Anyone
else's endpoint is not found, as an unknown id: another assistant of the same traveller's too."""

from django.db import transaction
from django.db.models import Q
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from access.models import ApiToken
from apikit.errors import DomainError
from webhooks import addresses, owners, sending
from webhooks.models import Delivery, Endpoint

MAX_PER_OWNER = 10
MAX_LISTED = 100


class UnknownEndpoint(DomainError):
    code = "not_found"


def add(token: ApiToken, *, url: str, event_types: list[str], description: str = "") -> Endpoint:
    try:
        addresses.checked(url)
    except addresses.EndpointRefused as refusal:
        raise DomainError(refusal.reason, field="url") from None
    with transaction.atomic():
        # counted under a lock on the manager's token rows (a grant's: all of them): two requests at once
        # cannot both add the last one
        same = Q(grant_id=token.grant_id) if token.grant_id is not None else Q(pk=token.pk)
        list(ApiToken.objects.select_for_update().filter(same).order_by("pk").values_list("pk", flat=True))
        if of(token).count() >= MAX_PER_OWNER:
            raise DomainError(
                format_lazy(_("At most {count} endpoints per token: remove one first."), count=MAX_PER_OWNER),
                field="url",
            )
        return Endpoint.objects.create(
            url=url,
            event_types=event_types,
            description=description,
            owner=owners.of_token(token),
            manager=owners.of_manager(token),
            api_token=token,
        )


def of(token: ApiToken):
    return Endpoint.objects.filter(manager=owners.of_manager(token)).order_by("created_at", "pk")


def find(token: ApiToken, public_id: str) -> Endpoint:
    endpoint = of(token).filter(public_id=public_id).first()
    if endpoint is None:
        raise UnknownEndpoint(format_lazy(_("No webhook endpoint {id} of this token."), id=public_id[:40]))
    return endpoint


def deliveries(token: ApiToken, public_id: str, *, state: str | None = None) -> list[Delivery]:
    """The endpoint's latest deliveries (MAX_LISTED), the newest event first: what its owner debugs with."""
    listed = find(token, public_id).deliveries.select_related("event").order_by("-event_id")
    if state is not None:
        listed = listed.filter(state=state)
    return list(listed[:MAX_LISTED])


def forget_traveller(email: str) -> int:
    """A traveller's erasure: the endpoints their assistants added (and what waited for them) go."""
    return Endpoint.objects.filter(owner=owners.of_traveller(email)).delete()[1].get("webhooks.Endpoint", 0)


def forget_grant(grant_pk: int) -> int:
    """A consent whose traveller is forgotten (its end long past): the endpoints its assistant added go."""
    return Endpoint.objects.filter(manager=owners.of_grant(grant_pk)).delete()[1].get("webhooks.Endpoint", 0)


def remove(token: ApiToken, public_id: str) -> None:
    find(token, public_id).delete()  # its deliveries go with it


def resume(token: ApiToken, public_id: str) -> Endpoint:
    endpoint = find(token, public_id)
    if endpoint.paused_at is not None:
        sending.resume(endpoint)
    return endpoint
