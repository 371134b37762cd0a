"""What the queue tells the apps whose tasks it runs, without knowing them (jobs imports no domain app)."""

from django.dispatch import Signal

# A job failed its last attempt (JOBS_MAX_ATTEMPTS) and stays failed. Sent with sender=jobqueue.models.Job and
# `job` (its row: task_path, args_kwargs, exception_class_path, traceback); receivers filter by task_path.
job_gave_up = Signal()
