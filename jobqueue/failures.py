"""Failures no retry can mend. A task raises `FailedForGood` when it knows (its input can never be sent),
and a missing row (`ObjectDoesNotExist`: the booking was deleted) counts the same: the worker keeps such a
job failed at its first attempt instead of retrying it JOBS_MAX_ATTEMPTS times, and `job_gave_up` tells
its app at once."""

import importlib

from django.core.exceptions import ObjectDoesNotExist


class FailedForGood(Exception):
    """Raised by a task: trying again cannot succeed."""


PERMANENT = (FailedForGood, ObjectDoesNotExist)


def is_permanent(exception_class_path: str) -> bool:
    """Whether the exception a job failed with (recorded as `module.Qualified.Name`, e.g.
    `booking.models.Booking.DoesNotExist`) is one no retry can mend."""
    parts = exception_class_path.split(".")
    for cut in range(len(parts) - 1, 0, -1):  # the longest importable module, then attributes
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name, None)
        return isinstance(found, type) and issubclass(found, PERMANENT)
    return False
