"""A Stripe at the HTTP boundary (`responses`) that keeps its own books: checkout sessions that can be
paid or expired, and refunds that, as Stripe's, never exceed what a payment intent charged and did not
yet refund. Tests of money flows ask it what really moved, instead of trusting our own records."""

import itertools
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

import requests
import responses

from tests.payments.stripe_events import API, deliver, event_payload, use_stripe


@dataclass
class FakeSession:
    id: str
    amount: int
    reference: str
    status: str = "open"  # open, complete, expired
    intent: str | None = None


@dataclass
class FakeStripe:
    sessions: dict[str, FakeSession] = field(default_factory=dict)
    charged: dict[str, int] = field(default_factory=dict)  # payment intent -> cents
    refunded: dict[str, int] = field(default_factory=dict)  # payment intent -> cents
    refusing_refunds: bool = False
    answers_lost: int = 0  # the next requests are done, but their answers never arrive (a timeout)
    ids: itertools.count = field(default_factory=lambda: itertools.count(1))
    # as Stripe's: a key used again with the same parameters replays the first answer, with others is refused
    idempotent: dict[str, tuple[str, tuple]] = field(default_factory=dict)

    def install(self, mock: responses.RequestsMock) -> "FakeStripe":
        mock.add_callback(responses.POST, f"{API}/v1/checkout/sessions", self._create_session)
        mock.add_callback(
            responses.POST, re.compile(rf"{API}/v1/checkout/sessions/[\w]+/expire"), self._expire_session
        )
        mock.add_callback(responses.GET, re.compile(rf"{API}/v1/checkout/sessions/[\w]+"), self._get_session)
        mock.add_callback(responses.POST, f"{API}/v1/refunds", self._create_refund)
        return self

    def paid_booking(self, reference: str, amount: int) -> tuple[str, str]:
        """A booking's own checkout, paid: (session id, payment intent)."""
        session = FakeSession(f"cs_{next(self.ids)}", amount, reference)
        self.sessions[session.id] = session
        self._pay(session)
        return session.id, session.intent

    def pay(self, client, session_id: str) -> None:
        """The customer pays an open page; Stripe tells us by webhook (refused pages take nothing)."""
        session = self.sessions[session_id]
        if session.status != "open":
            return
        self._pay(session)
        event = event_payload(
            "checkout.session.completed", self._session_json(session), f"evt_{next(self.ids)}"
        )
        assert deliver(client, event).status_code == 200

    def net(self) -> int:
        """What the operator holds at Stripe: charged minus refunded."""
        return sum(self.charged.values()) - sum(self.refunded.values())

    def open_sessions(self) -> list[str]:
        return [session.id for session in self.sessions.values() if session.status == "open"]

    def _pay(self, session: FakeSession) -> None:
        session.status, session.intent = "complete", f"pi_{next(self.ids)}"
        self.charged[session.intent] = session.amount

    def _session_json(self, session: FakeSession) -> dict:
        return {
            "id": session.id,
            "object": "checkout.session",
            "status": session.status,
            "payment_status": "paid" if session.intent else "unpaid",
            "payment_intent": session.intent,
            "amount_total": session.amount,
            "currency": "eur",
            "metadata": {"reference": session.reference},
            "url": f"https://checkout.stripe.test/{session.id}",
        }

    def _create_session(self, request):
        key = request.headers.get("Idempotency-Key")
        if key in self.idempotent:
            body, answer = self.idempotent[key]
            if body != request.body:
                message = "Keys for idempotent requests can only be used with the same parameters"
                return 400, {}, json.dumps({"error": {"type": "idempotency_error", "message": message}})
            return answer
        form = dict(parse_qsl(request.body))
        session = FakeSession(
            f"cs_{next(self.ids)}",
            int(form["line_items[0][price_data][unit_amount]"]),
            form["metadata[reference]"],
        )
        self.sessions[session.id] = session
        answer = (200, {}, json.dumps(self._session_json(session)))
        if key:
            self.idempotent[key] = (request.body, answer)
        if self.answers_lost:
            self.answers_lost -= 1
            raise requests.exceptions.ReadTimeout("the answer never came")
        return answer

    def _expire_session(self, request):
        session = self.sessions[request.url.split("/")[-2]]
        if session.status != "open":
            return 400, {}, json.dumps({"error": {"type": "invalid_request_error", "message": "not open"}})
        session.status = "expired"
        return 200, {}, json.dumps(self._session_json(session))

    def _get_session(self, request):
        return 200, {}, json.dumps(self._session_json(self.sessions[request.url.rsplit("/", 1)[-1]]))

    def _create_refund(self, request):
        form = dict(parse_qsl(request.body))
        intent, amount = form["payment_intent"], int(form["amount"])
        left = self.charged.get(intent, 0) - self.refunded.get(intent, 0)
        if self.refusing_refunds or amount > left:
            message = f"Refund amount ({amount}) is greater than unrefunded amount on charge ({left})"
            return 400, {}, json.dumps({"error": {"type": "invalid_request_error", "message": message}})
        self.refunded[intent] = self.refunded.get(intent, 0) + amount
        refund = {
            "id": f"re_{next(self.ids)}",
            "object": "refund",
            "amount": amount,
            "currency": "eur",
            "payment_intent": intent,
            "status": "succeeded",
            "metadata": {"reference": form["metadata[reference]"]},
        }
        return 200, {}, json.dumps(refund)


@contextmanager
def installed(settings) -> Iterator[FakeStripe]:
    """A test's payments through this Stripe, with links on a public address; the live server's own
    address passes through."""
    use_stripe(settings)
    settings.PUBLIC_BASE_URL = "https://chauffeur.test"
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_passthru("http://localhost")
        yield FakeStripe().install(mock)
