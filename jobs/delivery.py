"""Send a message at most once per key. A job is claimed by one worker at a time (the queue's row lock), so
the check below never races with itself; a retry after a crash or a failed second mail skips what went out."""

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

from django.core.mail import EmailMessage

from jobs.models import Delivery

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
    key = f"{current_scope()}|{','.join(message.to)}|{message.subject}"[:255]
    if Delivery.objects.filter(key=key).exists():
        return
    message.send()
    Delivery.objects.create(key=key)
