"""Send a message at most once per key. A job is claimed by one worker at a time (the queue's row lock), so
the check below never races with itself; a retry after a crash or a failed second mail skips what went out."""

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.core.mail import EmailMessage
from django.db.models import Q

from jobqueue.models import Delivery

_scope: contextvars.ContextVar[str | None] = contextvars.ContextVar("delivery_scope", default=None)


def current_scope() -> str | None:
    """The job (or what a job set, e.g. one booking's confirmation) whose mails are being sent; None
    outside a job."""
    return _scope.get()


@contextmanager
def scope(name: str) -> Iterator[None]:
    token = _scope.set(name)
    try:
        yield
    finally:
        _scope.reset(token)


def send_once(message: EmailMessage) -> None:
    """Hand `message` over unless this scope sent it already; failures raise, so the job is retried."""
    once(f"{current_scope()}|{','.join(message.to)}|{message.subject}", message.send)


def forget_recipient(address: str) -> int:
    """Remove the records of messages to `address` (a traveller's erasure); how many went."""
    between = [("|", "|"), ("|", ","), (",", "|"), (",", ",")]
    named = Q()
    for before, after in between:
        named |= Q(key__icontains=f"{before}{address}{after}")
    return Delivery.objects.filter(named).delete()[0]


def went_out(scope_name: str) -> bool:
    """Whether a message of this scope went out (e.g. a ride's statement, before its correction)."""
    return Delivery.objects.filter(key__startswith=f"{scope_name}|").exists()


def once(key: str, hand_over: Callable[[], object]) -> bool:
    """Call `hand_over` (a text message to its provider, …) unless `key` went out already; whether it was
    called. Failures raise, so the job is retried; what went out is not handed over again."""
    key = key[:255]
    if Delivery.objects.filter(key=key).exists():
        return False
    hand_over()
    Delivery.objects.create(key=key)
    return True
