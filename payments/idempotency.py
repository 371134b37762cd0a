"""Checkouts that are safe to retry (docs/decisions.md §9): the first successful answer to a caller's
idempotency key is stored and returned again for the same key and body, without a second booking or
payment page; the same key with another body is refused. A twin sent while the first still runs waits
for its answer. Failures are not kept, so a corrected retry with the same key runs. Keys are per door
(legacy, v1, page, MCP) as well as per caller: a door never replays an answer written in another's shape.

An answer whose booking can no longer be paid (cancelled, expired, its payment failed) is never replayed:
its payment link would charge a ride that is off. A door whose key the caller did not choose (the MCP
tool's, derived from its arguments; the booking page's, made by its script) books anew; a key the caller
sent explicitly (v1, legacy) is refused with `idempotency_key_spent`, as it names that booking."""

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from apikit.errors import DomainError
from booking.models import Booking, BookingStatus, state_in_english
from payments.models import IdempotentCheckout

KEEP_FOR = timedelta(hours=24)  # Stripe's convention: after a day the key may be used again
# A claim still without an answer after this long belongs to a request that died mid-way (a worker killed
# at gunicorn's 30 s timeout, a lost database): it no longer blocks retries. Whatever that request
# stored is an unpaid booking without a payment page, which reconcile_payments expires.
ABANDONED_AFTER = timedelta(seconds=60)
MAX_KEY_LENGTH = 255
WAIT_FOR_TWIN_SECONDS, POLL_SECONDS = 15.0, 0.1


NO_LONGER_PAYABLE = (BookingStatus.CANCELLED, BookingStatus.EXPIRED, BookingStatus.PAYMENT_FAILED)


class KeySpent(DomainError):
    code = "idempotency_key_spent"


@dataclass(frozen=True)
class Made:
    """What a checkout answered, and the booking it made (None: none)."""

    status: int
    body: dict
    booking_id: int | None


@dataclass(frozen=True)
class Answer:
    status: int
    body: dict
    replayed: bool


def fingerprint(document: object) -> str:
    return hashlib.sha256(json.dumps(document, sort_keys=True, default=str).encode()).hexdigest()


def once(
    *,
    door: str,
    caller: str,
    key: str,
    body: object,
    run: Callable[[], Made],
    keep_for: timedelta = KEEP_FOR,
    anew_when_spent: bool = False,
) -> Answer:
    """The answer to the first request with this door, caller, key and body; `run` runs for that one only.
    `door` is an IdempotentCheckout.Door. When that answer's booking can no longer be paid, `run` runs
    again for a new booking (`anew_when_spent`), else KeySpent is raised and nothing is stored."""
    if not 1 <= len(key) <= MAX_KEY_LENGTH:
        raise DomainError(f"An Idempotency-Key header has 1 to {MAX_KEY_LENGTH} characters.")
    digest = fingerprint(body)
    deadline = time.monotonic() + WAIT_FOR_TWIN_SECONDS
    while True:
        record, claimed = _claim({"door": door, "caller": caller, "key": key}, digest, keep_for)
        if claimed and record is not None:  # a claim comes with its record
            return _first(record, run)
        if record is not None:
            if record.fingerprint != digest:
                raise DomainError(
                    "This Idempotency-Key was used with another request body.", code="idempotency_key_reused"
                )
            if record.status_code is not None:
                if (spent := _spent(record)) is None:
                    return Answer(record.status_code, json.loads(record.response), replayed=True)
                if not anew_when_spent:
                    raise KeySpent(
                        f"The booking this Idempotency-Key made ({spent.reference}) is "
                        f"{state_in_english(spent.status)} and can no longer be paid: send a new "
                        "Idempotency-Key to book the ride again."
                    )
                # Forget it (only if no twin did first) and claim the key for a new booking.
                IdempotentCheckout.objects.filter(pk=record.pk, booking_id=spent.pk).delete()
                continue
        if time.monotonic() > deadline:  # the first request is still running (or was lost mid-way)
            raise DomainError(
                "A request with this Idempotency-Key is still being processed.", code="idempotency_conflict"
            )
        time.sleep(POLL_SECONDS)


def _claim(whose: dict, digest: str, keep_for: timedelta) -> tuple[IdempotentCheckout | None, bool]:
    """(the record, True) when this request is the first with the key (`whose`: door, caller and key);
    (the existing one, False) otherwise; (None, False) when the first one failed meanwhile and its claim
    is gone."""
    now = timezone.now()
    IdempotentCheckout.objects.filter(**whose).filter(
        Q(created_at__lt=now - keep_for) | Q(status_code__isnull=True, created_at__lt=now - ABANDONED_AFTER)
    ).delete()  # an expired key may be used again, and an abandoned claim retried
    try:
        with transaction.atomic():
            return IdempotentCheckout.objects.create(**whose, fingerprint=digest), True
    except IntegrityError:
        return IdempotentCheckout.objects.filter(**whose).first(), False


def _spent(record: IdempotentCheckout) -> Booking | None:
    """The booking of a stored answer when it can no longer be paid (a return trip: neither ride); None
    while it can (or it made none)."""
    if record.booking_id is None:
        return None
    rides = Booking.objects.filter(Q(pk=record.booking_id) | Q(way_out=record.booking_id))
    if rides.exclude(status__in=NO_LONGER_PAYABLE).exists():
        return None
    return Booking.objects.filter(pk=record.booking_id).first()


def _first(record: IdempotentCheckout, run: Callable[[], Made]) -> Answer:
    try:
        made = run()
    except BaseException:
        record.delete()  # not kept: a retry runs again
        raise
    IdempotentCheckout.objects.filter(pk=record.pk).update(
        status_code=made.status, response=json.dumps(made.body), booking_id=made.booking_id
    )
    return Answer(made.status, made.body, replayed=False)


def forget_expired() -> int:
    """Drop the answers older than the longest keeping time (run by reconcile_payments)."""
    return IdempotentCheckout.objects.filter(created_at__lt=timezone.now() - KEEP_FOR).delete()[0]
