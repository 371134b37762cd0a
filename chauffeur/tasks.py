"""The project's own jobs on the queue (jobs/): moving a shared version a staff edit could not move while the
shared cache was down (chauffeur/versions.py `SharedVersion.announce`)."""

from django_tasks import task

from chauffeur import versions


@task()
def move_shared_version(key: str) -> None:
    """Raises while the shared cache is still unreachable, so the worker retries with its backoff."""
    versions.shared_version(key).bump()
