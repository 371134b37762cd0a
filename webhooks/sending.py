"""Deliveries sent: signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`),
one booking's events to an endpoint in their order, a failed one retried after WEBHOOKS_RETRY_SECONDS and,
once those are spent, kept as failed with the endpoint paused and staff alerted. An attempt's answer (its
status and the start of its body) is kept for the admin.

A worker claims the stream's first pending delivery in a short transaction (a lease: `sending_until`),
calls the endpoint outside any transaction, and records the answer in another: no row lock or database
write is held while a stranger's server takes its time. Another worker that finds the lease taken comes
back when it ends; one that vanished mid-send leaves the delivery to the next once its lease has run out."""

import json
import logging
import time
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django_tasks import task
from standardwebhooks import Webhook

from sitekit import public_addresses
from webhooks import addresses, alerts
from webhooks.models import Delivery, Endpoint

logger = logging.getLogger(__name__)

ANSWER_KEPT = 1000  # characters of an answer's body kept for the admin
CONNECT_SECONDS = 5
USER_AGENT = "chauffeur-webhooks/1"


@task()
def send_deliveries(endpoint_id: int, subject: str) -> int:
    """Queued with each event, and for each retry at its time."""
    return send_stream(endpoint_id, subject)


def send_stream(endpoint_id: int, subject: str) -> int:
    """Send the endpoint's pending deliveries of one booking, oldest first, until one fails or is not due
    yet; how many went out."""
    sent = 0
    while (claimed := _claim(endpoint_id, subject)) is not None:
        status, answer = _post(claimed)
        if not _record(claimed.pk, status, answer):
            break
        sent += 1
    return sent


def _claim(endpoint_id: int, subject: str) -> Delivery | None:
    """The stream's first pending delivery, leased to this worker; None when there is none to send now (a
    retry, or another worker's lease, is then queued for its time)."""
    now = timezone.now()
    with transaction.atomic():
        head = (
            Delivery.objects.select_for_update(of=("self",))
            .select_related("endpoint", "event")
            .filter(endpoint_id=endpoint_id, event__subject=subject, state=Delivery.State.PENDING)
            .order_by("event_id")
            .first()
        )
        if head is None or head.endpoint.paused_at is not None:
            return None
        busy_until = max(filter(None, (head.next_attempt_at, head.sending_until)), default=None)
        if busy_until is not None and busy_until > now:
            if head.sending_until is not None and head.sending_until > now:  # another worker is at it
                send_deliveries.using(run_after=head.sending_until).enqueue(endpoint_id, subject)
            return None  # a retry is queued for next_attempt_at
        head.sending_until = now + timedelta(seconds=CONNECT_SECONDS + settings.WEBHOOKS_TIMEOUT_SECONDS + 30)
        head.save(update_fields=["sending_until"])
    return head


def _record(delivery_id: int, status: int | None, answer: str) -> bool:
    """The attempt's outcome on its delivery; whether it was delivered."""
    now = timezone.now()
    with transaction.atomic():
        delivery = (
            Delivery.objects.select_for_update(of=("self",))
            .select_related("endpoint", "event")
            .get(pk=delivery_id)
        )
        delivery.sending_until = None
        delivery.attempts += 1
        delivery.last_attempt_at, delivery.last_status = now, status
        delivery.last_answer = answer.replace("\x00", "")[:ANSWER_KEPT]  # PostgreSQL text takes no NUL
        if status is not None and 200 <= status < 300:
            delivery.state, delivery.delivered_at, delivery.next_attempt_at = (
                Delivery.State.DELIVERED,
                now,
                None,
            )
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
        why = f"HTTP {status}" if status is not None else delivery.last_answer
        pause(
            delivery.endpoint,
            _("%(event)s failed %(attempts)d times; the last answer: %(answer)s")
            % {"event": delivery.event.public_id, "attempts": delivery.attempts, "answer": why},
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
    """Send what waited while the endpoint was paused, the events that failed every retry first (each
    booking's in its order again); how many bookings' streams were queued."""
    with transaction.atomic():
        endpoint.paused_at, endpoint.pause_reason = None, ""
        endpoint.save(update_fields=["paused_at", "pause_reason"])
        endpoint.deliveries.filter(state=Delivery.State.FAILED).update(
            state=Delivery.State.PENDING, attempts=0
        )
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
    """The answer's status and the start of its body; None and why when no answer came. The answer is
    read for WEBHOOKS_TIMEOUT_SECONDS at most; each wait for the server, connecting or reading, is bounded
    too."""
    url = delivery.endpoint.url
    try:
        address = addresses.checked(url)
    except addresses.EndpointRefused as refusal:
        return None, str(refusal.reason)
    body, headers = signed(delivery, timezone.now())
    session, at, pinned_headers = public_addresses.pinned(url, address)
    deadline = time.monotonic() + settings.WEBHOOKS_TIMEOUT_SECONDS
    try:
        with (
            session,
            session.post(
                at,
                data=body.encode(),
                headers={**headers, **pinned_headers},
                timeout=(CONNECT_SECONDS, settings.WEBHOOKS_TIMEOUT_SECONDS),
                allow_redirects=False,
                stream=True,
            ) as response,
        ):
            start = b""
            for chunk in response.iter_content(256):
                start += chunk
                if len(start) >= ANSWER_KEPT or time.monotonic() > deadline:
                    break
            return response.status_code, start.decode("utf-8", "replace")
    except Exception as failure:  # any failure to reach or read the endpoint is an attempt that failed
        return None, type(failure).__name__
