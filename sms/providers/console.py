"""Text messages printed on the console (the embedded default, like e-mail without a mail server)."""

import sys
import uuid

from sms.providers.base import TextMessage


class ConsoleProvider:
    def send(self, message: TextMessage) -> str:
        sys.stdout.write(f"SMS to {message.to}:\n{message.body}\n{'-' * 79}\n")
        sys.stdout.flush()
        return f"console-{uuid.uuid4().hex[:12]}"
