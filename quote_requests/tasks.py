"""A quote request's e-mails as jobs on the queue: enqueued with the request, sent by the worker."""

from django_tasks import task

from jobqueue import delivery
from quote_requests import notifications


@task()
def send_quote_request_received(request_id: int, acknowledge: bool = True) -> None:
    # Scoped by request: re-enqueued, it never repeats a mail that went out.
    with delivery.scope(f"quote-request:{request_id}"):
        notifications.send_received(request_id, acknowledge=acknowledge)


@task()
def send_quote_offer(request_id: int, sent_at: str) -> None:
    # Scoped by the sending: a corrected offer sent again is a mail of its own; a retry never repeats one.
    with delivery.scope(f"quote-offer:{request_id}:{sent_at}"):
        notifications.send_offer(request_id)
