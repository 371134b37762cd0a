"""What the rest of the code knows of sending a text message: one call, one domain error."""

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class TextMessage:
    to: str  # E.164, as every door stores it (sitekit/phones.py)
    body: str


class SmsError(Exception):
    """The provider did not take the message (down, refused, misconfigured); the job retries it."""


class SmsProvider(Protocol):
    def send(self, message: TextMessage) -> str:
        """Hand the message over; the provider's id of it. Raises SmsError."""
        ...
