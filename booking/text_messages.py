"""The traveller's text messages (sms/): sent only when they chose them and gave a phone, each at most once
(jobs.Delivery, keyed by the job's scope, the number and the message's topic), the provider's failure
raised so the job is retried. A message job that failed for good shows in the booking's history."""

import logging

from django.db import transaction

from booking import history
from booking.models import Booking
from jobqueue import delivery
from sitekit import phones
from sms.providers import SmsError, TextMessage, sms_provider

logger = logging.getLogger(__name__)
ACTOR = "job queue"


def wanted(booking: Booking) -> bool:
    """They chose texts, and their number may get one (SMS_COUNTRIES, no costly range: sms/phones.py); a
    number refused is never handed to the provider."""
    return booking.text_messages and phones.may_text(booking.phone)


def send_text(booking: Booking, body: str, *, topic: str) -> bool:
    """Text `body` to the traveller unless they did not choose texts or this scope sent `topic` already;
    whether it went out now. Raises SmsError (the job is retried)."""
    if not wanted(booking):
        return False
    message = TextMessage(to=booking.phone, body=body)
    key = f"sms|{delivery.current_scope()}|{booking.phone}|{topic}"
    return delivery.once(key, lambda: sms_provider().send(message))


# --- a message job that gave up (jobqueue.signals.job_gave_up, connected in booking/apps.py) -------------

TASKS = "booking.tasks."  # each takes its booking first: every one of them is a message
SMS_ERROR = f"{SmsError.__module__}.{SmsError.__qualname__}"


def show_failed_message(sender, job, **kwargs) -> None:
    """A booking's message job failed for good: its history says which message and why, for staff."""
    booking_id = _booking_id(job.args_kwargs) if job.task_path.startswith(TASKS) else None
    booking = Booking.objects.filter(pk=booking_id).first() if booking_id is not None else None
    if booking is None:  # not a booking's message (the scheduled re-send of confirmations)
        return
    error = last_error(job.traceback)
    if job.exception_class_path == SMS_ERROR:
        said = history.said("Text message to {phone} failed: {error}", phone=booking.phone, error=error)
    else:
        said = history.said("Message ({task}) failed: {error}", task=job.task_name, error=error)
    with transaction.atomic():
        history.record(booking, history.Kind.EMAIL, said, actor=ACTOR)
    logger.warning("Booking %s: message job %s failed for good: %s", booking.reference, job.id, error)


def _booking_id(args_kwargs: dict) -> int | None:
    args, kwargs = args_kwargs.get("args") or [], args_kwargs.get("kwargs") or {}
    value = args[0] if args else kwargs.get("booking_id")
    return value if isinstance(value, int) else None


def last_error(traceback: str) -> str:
    """The exception's own words ("Twilio refused the message (500): …"), without its class."""
    line = traceback.strip().splitlines()[-1] if traceback.strip() else ""
    return line.partition(": ")[2][:200] or line[:200]
