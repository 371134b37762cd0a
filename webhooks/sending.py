"""Deliveries sent: signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`),
one booking's events to an endpoint in their order, a failed one retried after WEBHOOKS_RETRY_SECONDS and,
once those are spent, kept as failed with the endpoint paused and staff alerted. An attempt's answer (its
status and the start of its body) is kept for the admin.

Two workers never send one booking's stream at once: the stream's first pending delivery is row-locked
while it is sent, and a worker that finds it locked leaves the stream to the one sending (which looks for
the next delivery after each)."""

import json
import logging
from datetime import UTC, datetime, timedelta

import requests
from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django_tasks import task
from standardwebhooks import Webhook

from sitekit import public_addresses
from webhooks import addresses, alerts
from webhooks.models import Delivery, Endpoint

logger = logging.getLogger(__name__)

ANSWER_KEPT = 1000  # characters of an answer's body kept for the admin
USER_AGENT = "chauffeur-webhooks/1"


@task()
def send_deliveries(endpoint_id: int, subject: str) -> int:
    """Queued with each event, and for each retry at its time."""
    return send_stream(endpoint_id, subject)


def send_stream(endpoint_id: int, subject: str) -> int:
    """Send the endpoint's pending deliveries of one booking, oldest first, until one fails or is not due
    yet; how many went out."""
    sent = 0
    while True:
        with transaction.atomic():
            try:
                head = (
                    Delivery.objects.select_for_update(nowait=True, of=("self",))
                    .select_related("endpoint", "event")
                    .filter(endpoint_id=endpoint_id, event__subject=subject, state=Delivery.State.PENDING)
                    .order_by("event__created_at", "event_id")
                    .first()
                )
            except DatabaseError:  # another worker is sending this stream
                return sent
            if head is None or head.endpoint.paused_at is not None:
                return sent
            if head.next_attempt_at and head.next_attempt_at > timezone.now():
                return sent  # its retry is queued for then
            if not attempt(head):
                return sent
        sent += 1


def attempt(delivery: Delivery) -> bool:
    """One attempt, recorded on the delivery; whether it was delivered."""
    now = timezone.now()
    status, answer = _post(delivery)
    delivery.attempts += 1
    delivery.last_attempt_at, delivery.last_status, delivery.last_answer = now, status, answer[:ANSWER_KEPT]
    if status is not None and 200 <= status < 300:
        delivery.state, delivery.delivered_at, delivery.next_attempt_at = Delivery.State.DELIVERED, now, None
        delivery.save()
        return True
    waits = settings.WEBHOOKS_RETRY_SECONDS
    if delivery.attempts <= len(waits):
        delivery.next_attempt_at = now + timedelta(seconds=waits[delivery.attempts - 1])
        delivery.save()
        send_deliveries.using(run_after=delivery.next_attempt_at).enqueue(
            delivery.endpoint_id, delivery.event.subject
        )
        return False
    delivery.state, delivery.next_attempt_at = Delivery.State.FAILED, None
    delivery.save()
    pause(
        delivery.endpoint,
        _("%(event)s failed %(attempts)d times; the last answer: %(answer)s")
        % {
            "event": delivery.event.public_id,
            "attempts": delivery.attempts,
            "answer": f"HTTP {status}" if status is not None else answer,
        },
    )
    return False


def signed(delivery: Delivery, at: datetime) -> tuple[str, dict[str, str]]:
    """The body and the Standard Webhooks headers of an attempt at `at`."""
    body = json.dumps(delivery.event.payload, ensure_ascii=False, separators=(",", ":"))
    moment = at.astimezone(UTC)  # the library reads the time as UTC whatever its zone
    signature = Webhook(delivery.endpoint.secret).sign(delivery.event.public_id, moment, body)
    return body, {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "webhook-id": delivery.event.public_id,
        "webhook-timestamp": str(int(moment.timestamp())),
        "webhook-signature": signature,
    }


def pause(endpoint: Endpoint, reason: str) -> None:
    """Nothing more goes to the endpoint until staff (or its token) resume it; staff are told once."""
    if endpoint.paused_at is not None:
        return
    endpoint.paused_at, endpoint.pause_reason = timezone.now(), reason[:300]
    endpoint.save(update_fields=["paused_at", "pause_reason"])
    logger.warning("Webhook endpoint %s paused: %s", endpoint.pk, reason)
    alerts.alert_paused.enqueue(endpoint.pk, endpoint.paused_at.isoformat())


def resume(endpoint: Endpoint) -> int:
    """Send again what waited while the endpoint was paused; how many bookings' streams were queued."""
    with transaction.atomic():
        endpoint.paused_at, endpoint.pause_reason = None, ""
        endpoint.save(update_fields=["paused_at", "pause_reason"])
        waiting = endpoint.deliveries.filter(state=Delivery.State.PENDING)
        waiting.update(next_attempt_at=None)
        subjects = sorted(set(waiting.values_list("event__subject", flat=True)))
        for subject in subjects:
            send_deliveries.enqueue(endpoint.pk, subject)
    return len(subjects)


def replay(delivery: Delivery) -> None:
    """Send the delivery again under its own id (a receiver that kept it sees a duplicate it may skip)."""
    with transaction.atomic():
        delivery.state, delivery.attempts = Delivery.State.PENDING, 0
        delivery.next_attempt_at = delivery.delivered_at = None
        delivery.save(update_fields=["state", "attempts", "next_attempt_at", "delivered_at"])
        send_deliveries.enqueue(delivery.endpoint_id, delivery.event.subject)


def _post(delivery: Delivery) -> tuple[int | None, str]:
    """The answer's status and the start of its body; None and why when no answer came."""
    url = delivery.endpoint.url
    try:
        address = addresses.checked(url)
    except addresses.EndpointRefused as refusal:
        return None, str(refusal.reason)
    body, headers = signed(delivery, timezone.now())
    session, at, pinned_headers = public_addresses.pinned(url, address)
    try:
        with (
            session,
            session.post(
                at,
                data=body.encode(),
                headers={**headers, **pinned_headers},
                timeout=settings.WEBHOOKS_TIMEOUT_SECONDS,
                allow_redirects=False,
                stream=True,
            ) as response,
        ):
            start = next(response.iter_content(ANSWER_KEPT * 4), b"")
            return response.status_code, start.decode("utf-8", "replace")
    except requests.RequestException as failure:
        return None, type(failure).__name__
