"""An event published: stored with one delivery per endpoint that hears of it, and its sending job queued,
in the caller's transaction (nothing goes out for a change rolled back). When no endpoint hears of it,
nothing is stored."""

from django.db.models import Q
from django.utils import timezone

from webhooks import owners, sending
from webhooks.events import EVENT_TYPES
from webhooks.models import Delivery, Endpoint, Event


def publish(event_type: str, *, subject: str, data: dict, audience: list[str]) -> Event | None:
    """`subject` is the booking's reference, `audience` the owner keys that open it (webhooks/owners.py)."""
    if event_type not in EVENT_TYPES:
        raise ValueError(f"Unknown webhook event {event_type!r}.")
    hearing = Q(owner=owners.EVERY_BOOKING) | (Q(owner__in=audience) & owners.still_allowed())
    endpoints = [endpoint for endpoint in Endpoint.objects.filter(hearing) if endpoint.wants(event_type)]
    if not endpoints:
        return None
    payload = {"type": event_type, "timestamp": timezone.now().isoformat(), "data": data}
    event = Event.objects.create(type=event_type, subject=subject, payload=payload)
    Delivery.objects.bulk_create(Delivery(endpoint=endpoint, event=event) for endpoint in endpoints)
    for endpoint in endpoints:  # a paused one's too: it may be resumed before this commits
        sending.send_deliveries.enqueue(endpoint.pk, subject)  # written with the event: runs after commit
    return event
