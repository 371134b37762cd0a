"""A quote request asked twice (a timeout, a double click, two tabs at once) is stored once: the REST and the
page doors key it by its body, per caller, for RETRY_WINDOW, as the MCP tool's retries are (its
retry_window); the twin waits for the first and gets its answer."""

from collections.abc import Callable

from django.http import HttpRequest

from access.authentication import caller_key
from payments import idempotency
from quote_requests.models import QuoteRequest
from quote_requests.serializers import QuoteRequestOutput
from quote_requests.services import RETRY_WINDOW


def asked_once(
    request: HttpRequest, *, door: str, body: object, ask: Callable[[], QuoteRequest]
) -> idempotency.Answer:
    """`ask` stores the request, once per caller (a token, or the page's visitor) and body."""

    def run() -> idempotency.Made:
        return idempotency.Made(201, QuoteRequestOutput.write(ask()), None)

    key = f"quote-request:{idempotency.fingerprint(body)}"
    return idempotency.once(
        door=door, caller=caller_key(request), key=key, body=body, run=run, keep_for=RETRY_WINDOW
    )
