"""The Stripe provider, faked at the HTTP boundary: the exact form the SDK sends, the mapping of real-shaped
answers, every failure becoming a PaymentError that never shows the key, and webhook signatures."""

import hashlib
import hmac
import json
import logging
import time
from dataclasses import replace
from urllib.parse import parse_qsl

import pytest
import requests
import responses

from payments.providers.base import (
    CheckoutRequest,
    CheckoutSession,
    PaymentError,
    PaymentEvent,
    PaymentIntent,
    SessionState,
    WebhookSignatureError,
)
from payments.providers.stripe import StripeProvider

SECRET_KEY = "sk_test_123"
WEBHOOK_SECRET = "whsec_test"
SESSIONS = "https://stripe.test/v1/checkout/sessions"
INTENTS = "https://stripe.test/v1/payment_intents"
SESSION_ID = "cs_test_a1B2c3D4e5F6g7H8i9J0"
SUCCESS_URL = "https://chauffeur.test/booking/success?session_id={CHECKOUT_SESSION_ID}"
CANCEL_URL = "https://chauffeur.test/booking/cancel"

REQUEST = CheckoutRequest(
    reference="CB-7K3Q9X",
    amount_cents=6500,
    currency="eur",
    description="Transfer Stephansplatz → Flughafen Wien",
    customer_email="anna@example.com",
    locale="de",
    success_url=SUCCESS_URL,
    cancel_url=CANCEL_URL,
    idempotency_key="checkout-CB-7K3Q9X-1",
)

# Shaped like a Checkout Session as the API returns it (trimmed of members nobody reads).
SESSION_ANSWER = {
    "id": SESSION_ID,
    "object": "checkout.session",
    "amount_subtotal": 6500,
    "amount_total": 6500,
    "cancel_url": CANCEL_URL,
    "client_reference_id": "CB-7K3Q9X",
    "created": 1767225600,
    "currency": "eur",
    "customer": None,
    "customer_details": None,
    "customer_email": "anna@example.com",
    "expires_at": 1767312000,
    "livemode": False,
    "locale": "de",
    "metadata": {"reference": "CB-7K3Q9X"},
    "mode": "payment",
    "payment_intent": None,
    "payment_method_types": ["card"],
    "payment_status": "unpaid",
    "status": "open",
    "success_url": SUCCESS_URL,
    "url": f"https://checkout.stripe.com/c/pay/{SESSION_ID}#fidkdWxOYHwnPyd1blpxYHZxWjA0",
}
PAID_SESSION = {
    **SESSION_ANSWER,
    "status": "complete",
    "payment_status": "paid",
    "payment_intent": "pi_3QxYzAbCdEfGhIjK0",
    "customer_details": {"email": "anna@example.com", "name": "Anna Huber"},
    "url": None,
}
INTENT_ANSWER = {
    "id": "pi_3QxYzAbCdEfGhIjK1",
    "object": "payment_intent",
    "amount": 6500,
    "automatic_payment_methods": {"allow_redirects": "always", "enabled": True},
    "client_secret": "pi_3QxYzAbCdEfGhIjK1_secret_Zz9Yy8Xx7",
    "currency": "eur",
    "livemode": False,
    "metadata": {},
    "status": "requires_payment_method",
}


def stripe_error(kind: str, message: str, **members) -> dict:
    return {"error": {"type": kind, "message": message, **members}}


@pytest.fixture(autouse=True)
def stripe_api():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


@pytest.fixture
def provider() -> StripeProvider:
    return StripeProvider(
        secret_key=SECRET_KEY, webhook_secret=WEBHOOK_SECRET, api_base="https://stripe.test"
    )


def form(call) -> dict:
    body = call.request.body
    return dict(parse_qsl(body.decode() if isinstance(body, bytes) else body, keep_blank_values=True))


# --- checkout sessions -------------------------------------------------------------------------------


def test_checkout_session_sends_the_exact_form_key_and_idempotency_key(stripe_api, provider):
    stripe_api.post(SESSIONS, json=SESSION_ANSWER)
    session = provider.create_checkout_session(REQUEST)
    assert session == CheckoutSession(session_id=SESSION_ID, url=SESSION_ANSWER["url"])
    (call,) = stripe_api.calls
    assert call.request.method == "POST"
    assert call.request.url == SESSIONS
    assert call.request.headers["Authorization"] == f"Bearer {SECRET_KEY}"
    assert call.request.headers["Idempotency-Key"] == "checkout-CB-7K3Q9X-1"
    assert form(call) == {
        "mode": "payment",
        "line_items[0][price_data][currency]": "eur",
        "line_items[0][price_data][unit_amount]": "6500",
        "line_items[0][price_data][product_data][name]": "Transfer Stephansplatz → Flughafen Wien",
        "line_items[0][quantity]": "1",
        "locale": "de",
        "customer_email": "anna@example.com",
        "metadata[reference]": "CB-7K3Q9X",
        "payment_intent_data[metadata][reference]": "CB-7K3Q9X",
        "client_reference_id": "CB-7K3Q9X",
        "success_url": SUCCESS_URL,
        "cancel_url": CANCEL_URL,
    }


def test_checkout_session_has_a_timeout(stripe_api, provider):
    stripe_api.post(SESSIONS, json=SESSION_ANSWER)
    provider.create_checkout_session(REQUEST)
    timeout = stripe_api.calls[0].request.req_kwargs["timeout"]
    assert timeout is not None
    assert max(timeout if isinstance(timeout, tuple) else (timeout,)) <= 15


def test_checkout_session_without_email_leaves_it_out(stripe_api, provider):
    stripe_api.post(SESSIONS, json={**SESSION_ANSWER, "customer_email": None, "locale": "en"})
    provider.create_checkout_session(replace(REQUEST, customer_email=None, locale="en"))
    sent = form(stripe_api.calls[0])
    assert "customer_email" not in sent
    assert sent["locale"] == "en"


def test_a_server_error_is_not_retried(stripe_api, provider):
    stripe_api.post(
        SESSIONS,
        status=500,
        json=stripe_error("api_error", "Something went wrong on Stripe's end."),
        headers={"Stripe-Should-Retry": "true"},
    )
    with pytest.raises(PaymentError) as caught:
        provider.create_checkout_session(REQUEST)
    assert len(stripe_api.calls) == 1
    assert caught.value.code == "payment_provider_unavailable"


@pytest.mark.parametrize(
    ("status", "body", "error_class"),
    [
        (402, stripe_error("card_error", "Your card was declined.", code="card_declined"), "CardError"),
        (
            400,
            stripe_error("invalid_request_error", "Invalid currency: xyz", param="currency"),
            "InvalidRequestError",
        ),
        (
            401,
            stripe_error("invalid_request_error", f"Invalid API Key provided: {SECRET_KEY}"),
            "AuthenticationError",
        ),
        (403, stripe_error("invalid_request_error", f"The key {SECRET_KEY} lacks rights"), "PermissionError"),
        (
            429,
            stripe_error("invalid_request_error", "Too many requests.", code="rate_limit"),
            "RateLimitError",
        ),
        (400, stripe_error("idempotency_error", "Keys for idempotent requests..."), "IdempotencyError"),
        (502, {"not": "stripe"}, "APIError"),
    ],
)
def test_every_refusal_is_a_payment_error_without_the_key(
    stripe_api, provider, caplog, status, body, error_class
):
    stripe_api.post(SESSIONS, status=status, json=body)
    with (
        caplog.at_level(logging.WARNING, logger="payments.providers.stripe"),
        pytest.raises(PaymentError) as caught,
    ):
        provider.create_checkout_session(REQUEST)
    assert len(stripe_api.calls) == 1
    assert caught.value.code == "payment_provider_unavailable"
    assert caught.value.detail
    assert SECRET_KEY not in caught.value.detail
    assert SECRET_KEY not in str(caught.value)
    ours = [record for record in caplog.records if record.name == "payments.providers.stripe"]
    assert [record.levelno for record in ours] == [logging.WARNING]
    assert ours[0].getMessage() == f"Stripe checkout session failed: {error_class}"  # not Stripe's message


def test_a_connection_error_is_a_payment_error_and_not_retried(stripe_api, provider):
    stripe_api.post(SESSIONS, body=requests.ConnectionError(f"cannot reach stripe.test with {SECRET_KEY}"))
    with pytest.raises(PaymentError) as caught:
        provider.create_checkout_session(REQUEST)
    assert len(stripe_api.calls) == 1
    assert caught.value.detail == "Stripe cannot be reached."
    assert SECRET_KEY not in caught.value.detail


def test_a_timeout_is_a_payment_error(stripe_api, provider):
    stripe_api.post(SESSIONS, body=requests.ReadTimeout("read timed out"))
    with pytest.raises(PaymentError):
        provider.create_checkout_session(REQUEST)
    assert len(stripe_api.calls) == 1


@pytest.mark.parametrize("answer", [{"id": SESSION_ID, "object": "checkout.session"}, {"url": "x"}])
def test_a_malformed_session_answer_is_a_payment_error(stripe_api, provider, answer):
    stripe_api.post(SESSIONS, json=answer)
    with pytest.raises(PaymentError):
        provider.create_checkout_session(REQUEST)


def test_a_non_json_answer_is_a_payment_error(stripe_api, provider):
    stripe_api.post(SESSIONS, body="<html>bad gateway</html>", status=200, content_type="text/html")
    with pytest.raises(PaymentError):
        provider.create_checkout_session(REQUEST)


# --- retrieving a session ----------------------------------------------------------------------------


def test_retrieve_session_maps_a_paid_session(stripe_api, provider):
    stripe_api.get(f"{SESSIONS}/{SESSION_ID}", json=PAID_SESSION)
    state = provider.retrieve_session(SESSION_ID)
    assert state == SessionState(
        session_id=SESSION_ID,
        reference="CB-7K3Q9X",
        status="complete",
        payment_status="paid",
        payment_intent_id="pi_3QxYzAbCdEfGhIjK0",
        amount_total=6500,
        currency="eur",
    )
    (call,) = stripe_api.calls
    assert call.request.method == "GET"
    assert call.request.headers["Authorization"] == f"Bearer {SECRET_KEY}"


def test_retrieve_session_maps_an_open_session_without_reference_or_intent(stripe_api, provider):
    stripe_api.get(f"{SESSIONS}/{SESSION_ID}", json={**SESSION_ANSWER, "metadata": {}})
    assert provider.retrieve_session(SESSION_ID) == SessionState(
        session_id=SESSION_ID,
        reference=None,
        status="open",
        payment_status="unpaid",
        payment_intent_id=None,
        amount_total=6500,
        currency="eur",
    )


def test_retrieve_session_reads_an_expanded_payment_intent(stripe_api, provider):
    stripe_api.get(f"{SESSIONS}/{SESSION_ID}", json={**PAID_SESSION, "payment_intent": INTENT_ANSWER})
    assert provider.retrieve_session(SESSION_ID).payment_intent_id == INTENT_ANSWER["id"]


def test_retrieve_an_unknown_session_is_a_payment_error(stripe_api, provider):
    stripe_api.get(
        f"{SESSIONS}/cs_test_unknown",
        status=404,
        json=stripe_error("invalid_request_error", "No such checkout.session: 'cs_test_unknown'"),
    )
    with pytest.raises(PaymentError) as caught:
        provider.retrieve_session("cs_test_unknown")
    assert caught.value.detail == "Stripe rejected the request."


def test_retrieve_a_malformed_session_is_a_payment_error(stripe_api, provider):
    stripe_api.get(f"{SESSIONS}/{SESSION_ID}", json={**PAID_SESSION, "status": None})
    with pytest.raises(PaymentError):
        provider.retrieve_session(SESSION_ID)


# --- payment intents (legacy card flow) --------------------------------------------------------------


def test_expire_session_closes_an_open_checkout(stripe_api, provider):
    stripe_api.post(
        f"{SESSIONS}/{SESSION_ID}/expire", json={**SESSION_ANSWER, "status": "expired", "url": None}
    )
    state = provider.expire_session(SESSION_ID)
    assert (state.status, state.payment_status, state.reference) == ("expired", "unpaid", "CB-7K3Q9X")
    assert [call.request.method for call in stripe_api.calls] == ["POST"]


def test_expire_session_of_a_completed_checkout_answers_how_it_ended(stripe_api, provider):
    # Stripe refuses to expire a session that is no longer open; the provider then asks for it.
    stripe_api.post(
        f"{SESSIONS}/{SESSION_ID}/expire",
        status=400,
        json=stripe_error(
            "invalid_request_error", "Only Checkout Sessions with a status in open can be expired."
        ),
    )
    stripe_api.get(f"{SESSIONS}/{SESSION_ID}", json=PAID_SESSION)
    state = provider.expire_session(SESSION_ID)
    assert (state.status, state.payment_status) == ("complete", "paid")


def test_expire_session_when_stripe_is_down_is_a_payment_error(stripe_api, provider):
    stripe_api.post(f"{SESSIONS}/{SESSION_ID}/expire", body=requests.ConnectionError("refused"))
    with pytest.raises(PaymentError) as failure:
        provider.expire_session(SESSION_ID)
    assert SECRET_KEY not in str(failure.value.detail)


def test_create_payment_intent_sends_the_amount_and_maps_the_answer(stripe_api, provider):
    stripe_api.post(INTENTS, json=INTENT_ANSWER)
    intent = provider.create_payment_intent(amount_cents=6500, currency="eur", idempotency_key="intent-42")
    assert intent == PaymentIntent(
        intent_id="pi_3QxYzAbCdEfGhIjK1", client_secret="pi_3QxYzAbCdEfGhIjK1_secret_Zz9Yy8Xx7"
    )
    (call,) = stripe_api.calls
    assert call.request.url == INTENTS
    assert call.request.headers["Idempotency-Key"] == "intent-42"
    assert call.request.headers["Authorization"] == f"Bearer {SECRET_KEY}"
    assert form(call) == {
        "amount": "6500",
        "currency": "eur",
        "automatic_payment_methods[enabled]": "true",
        "metadata[flow]": "legacy-card",
    }


def test_create_payment_intent_failure_is_a_payment_error(stripe_api, provider):
    stripe_api.post(INTENTS, status=401, json=stripe_error("invalid_request_error", f"Bad key {SECRET_KEY}"))
    with pytest.raises(PaymentError) as caught:
        provider.create_payment_intent(amount_cents=6500, currency="eur", idempotency_key="intent-42")
    assert SECRET_KEY not in caught.value.detail
    assert len(stripe_api.calls) == 1


# --- webhooks -----------------------------------------------------------------------------------------


def event(event_type: str, obj: dict, event_id: str = "evt_1QxYzAbCdEfGhIjK") -> bytes:
    return json.dumps(
        {
            "id": event_id,
            "object": "event",
            "api_version": "2025-09-30.clover",
            "created": int(time.time()),
            "data": {"object": obj},
            "livemode": False,
            "pending_webhooks": 1,
            "request": {"id": None, "idempotency_key": None},
            "type": event_type,
        }
    ).encode()


def sign(payload: bytes, *, secret: str = WEBHOOK_SECRET, timestamp: int | None = None) -> str:
    timestamp = int(time.time()) if timestamp is None else timestamp
    signed = f"{timestamp}.{payload.decode()}".encode()
    return f"t={timestamp},v1={hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()}"


@pytest.mark.parametrize(
    ("event_type", "session", "state"),
    [
        (
            "checkout.session.completed",
            PAID_SESSION,
            SessionState(SESSION_ID, "CB-7K3Q9X", "complete", "paid", "pi_3QxYzAbCdEfGhIjK0", 6500, "eur"),
        ),
        (
            "checkout.session.expired",
            {**SESSION_ANSWER, "status": "expired", "url": None},
            SessionState(SESSION_ID, "CB-7K3Q9X", "expired", "unpaid", None, 6500, "eur"),
        ),
        (
            "checkout.session.async_payment_failed",
            {**PAID_SESSION, "payment_status": "unpaid"},
            SessionState(SESSION_ID, "CB-7K3Q9X", "complete", "unpaid", "pi_3QxYzAbCdEfGhIjK0", 6500, "eur"),
        ),
        (
            "checkout.session.async_payment_succeeded",
            PAID_SESSION,
            SessionState(SESSION_ID, "CB-7K3Q9X", "complete", "paid", "pi_3QxYzAbCdEfGhIjK0", 6500, "eur"),
        ),
    ],
)
def test_a_signed_session_event_is_parsed(stripe_api, provider, event_type, session, state):
    payload = event(event_type, session)
    parsed = provider.parse_webhook(payload, sign(payload))
    assert parsed == PaymentEvent(event_id="evt_1QxYzAbCdEfGhIjK", type=event_type, session=state)
    assert not stripe_api.calls  # verification is local


def test_an_unrelated_event_has_no_session(provider):
    payload = event("payment_intent.succeeded", INTENT_ANSWER, event_id="evt_other")
    assert provider.parse_webhook(payload, sign(payload)) == PaymentEvent(
        event_id="evt_other", type="payment_intent.succeeded", session=None
    )


def test_a_header_with_several_signatures_verifies_when_one_matches(provider):
    payload = event("checkout.session.completed", PAID_SESSION)
    header = sign(payload) + ",v1=" + "0" * 64 + ",v0=" + "f" * 64
    assert provider.parse_webhook(payload, header).session is not None


def forged(payload: bytes) -> str:
    return sign(payload, secret="whsec_someone_else")


def tampered(payload: bytes) -> str:
    return sign(payload.replace(b"CB-7K3Q9X", b"CB-AAAAAA"))


def stale(payload: bytes) -> str:
    return sign(payload, timestamp=int(time.time()) - 6 * 60)


@pytest.mark.parametrize(
    "header",
    [
        forged,
        tampered,
        stale,
        lambda payload: "",
        lambda payload: "t=notanumber,v1=abc",
        lambda payload: f"t={int(time.time())}",
        lambda payload: "garbage",
    ],
    ids=["forged", "tampered", "stale", "missing", "bad-timestamp", "no-v1", "garbage"],
)
def test_an_unverifiable_webhook_is_refused(provider, header):
    payload = event("checkout.session.completed", PAID_SESSION)
    with pytest.raises(WebhookSignatureError) as caught:
        provider.parse_webhook(payload, header(payload))
    assert str(caught.value) == "The Stripe-Signature does not verify."


def test_a_missing_header_is_refused(provider):
    payload = event("checkout.session.completed", PAID_SESSION)
    with pytest.raises(WebhookSignatureError):
        provider.parse_webhook(payload, None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "payload",
    [
        b"this is not json",
        b"\xff\xfe not utf-8",
        b"[1, 2, 3]",
        json.dumps(
            {"id": "evt_1", "object": "v2.core.event", "type": "v2.core.event_destination.ping"}
        ).encode(),
        json.dumps({"id": "evt_1", "object": "event", "type": "checkout.session.completed"}).encode(),
        json.dumps(
            {"object": "event", "type": "checkout.session.completed", "data": {"object": PAID_SESSION}}
        ).encode(),
    ],
    ids=["not-json", "not-utf8", "not-an-object", "thin-event", "no-data", "no-id"],
)
def test_a_signed_but_unreadable_payload_is_refused(provider, payload):
    timestamp = int(time.time())
    # Signed over the raw bytes, as Stripe would; the payload itself is what is wrong.
    signed = f"{timestamp}.".encode() + payload
    header = f"t={timestamp},v1={hmac.new(WEBHOOK_SECRET.encode(), signed, hashlib.sha256).hexdigest()}"
    with pytest.raises(WebhookSignatureError) as caught:
        provider.parse_webhook(payload, header)
    assert str(caught.value) == "The webhook payload cannot be read."


def test_the_repr_does_not_show_the_key(provider):
    assert SECRET_KEY not in repr(provider)
