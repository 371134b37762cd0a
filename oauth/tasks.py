"""The authorization server's jobs on the queue (jobqueue/): arguments are plain JSON, never a secret."""

from django_tasks import task

from oauth import sign_in_codes


@task()
def send_sign_in_code(code_id: int, language: str) -> None:
    """A traveller's one-time sign-in code (oauth/travellers.py); the code is not in the arguments."""
    sign_in_codes.send_code(code_id, language)
