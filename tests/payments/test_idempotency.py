"""Checkouts are safe to retry: an Idempotency-Key replays the first answer (docs/decisions.md §9)."""

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.test import Client
from django.utils import timezone

from booking.models import Booking
from payments import idempotency
from payments.models import IdempotentCheckout
from tests.booking.test_checkout import LEGACY, V1, ride, server_amount
from tests.conftest import assert_problem, bearer
from tests.mcp_endpoint.mcp import call, checkout_arguments, tool_result
from tests.migrating import migrate, migrate_to_latest
from tests.payments import ledger_rows
from tests.web.test_page_checkout import PAGE, page_ride

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


def checkout(client, path, body, key, **headers):
    return client.post(
        path, json.dumps(body), content_type="application/json", HTTP_IDEMPOTENCY_KEY=key, **headers
    )


@pytest.mark.parametrize(("path", "status"), [(LEGACY, 200), (V1, 201)])
def test_the_same_key_and_body_return_the_first_answer_and_book_once(client, writer, path, status):
    body = {"amount": server_amount(client, ride()), "bookingData": ride()}
    first = checkout(client, path, body, "order-4711", **writer)
    again = checkout(client, path, body, "order-4711", **writer)
    assert (first.status_code, again.status_code) == (status, status)
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    (booking,) = Booking.objects.all()
    assert ledger_rows.session_of(booking) == first.json()["sessionId"]


def test_the_same_key_with_another_body_is_refused_and_books_nothing_more(client, writer):
    body = {"amount": server_amount(client, ride()), "bookingData": ride()}
    checkout(client, V1, body, "order-4712", **writer)
    other = {**body, "bookingData": ride(name="Someone Else")}
    assert_problem(checkout(client, V1, other, "order-4712", **writer), 422, "idempotency_key_reused")
    assert Booking.objects.count() == 1


def test_keys_are_per_client_and_expire_after_a_day(client, writer):
    body = {"amount": server_amount(client, ride()), "bookingData": ride()}
    mine = checkout(client, V1, body, "shared-key", **writer).json()
    theirs = checkout(client, V1, body, "shared-key", **bearer("booking.write")).json()
    assert mine["reference"] != theirs["reference"]  # another token never gets my booking
    IdempotentCheckout.objects.update(created_at=timezone.now() - timedelta(hours=25))
    later = checkout(client, V1, body, "shared-key", **writer).json()
    assert later["reference"] not in {mine["reference"], theirs["reference"]}
    assert Booking.objects.count() == 3


def test_a_failed_request_is_not_kept_so_a_corrected_retry_runs(client, writer):
    body = {"amount": 100, "bookingData": ride()}
    assert_problem(checkout(client, V1, body, "order-4713", **writer), 400, "amount_mismatch")
    assert IdempotentCheckout.objects.count() == 0 and Booking.objects.count() == 0
    body["amount"] = server_amount(client, ride())
    assert checkout(client, V1, body, "order-4713", **writer).status_code == 201


def test_a_claim_whose_request_died_stops_blocking_retries_after_a_minute(client, writer):
    body = {"amount": server_amount(client, ride()), "bookingData": ride()}
    first = checkout(client, V1, body, "order-4714", **writer).json()
    # As a worker killed mid-request leaves it: claimed, never answered.
    IdempotentCheckout.objects.update(
        status_code=None, response="", created_at=timezone.now() - timedelta(seconds=61)
    )
    retried = checkout(client, V1, body, "order-4714", **writer)
    assert retried.status_code == 201 and "Idempotent-Replayed" not in retried
    assert retried.json()["reference"] != first["reference"] and Booking.objects.count() == 2
    assert IdempotentCheckout.objects.get().status_code == 201  # the retry's answer is kept now
    assert checkout(client, V1, body, "order-4714", **writer).json() == retried.json()


@pytest.mark.parametrize("key", ["", "k" * 256])
def test_an_empty_or_overlong_key_is_refused(client, writer, key):
    body = {"amount": server_amount(client, ride()), "bookingData": ride()}
    assert_problem(checkout(client, V1, body, key, **writer), 400, "invalid_request")
    assert Booking.objects.count() == 0


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_twenty_identical_checkouts_at_once_book_once(writer):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises its writers; the race is PostgreSQL's (CI's second run)")
    client = Client()
    body = {"amount": server_amount(client, ride()), "bookingData": ride()}

    def send(_):
        try:
            return checkout(Client(), V1, body, "burst-1", **writer)
        finally:
            connections.close_all()  # this thread's own connection, so the test database can be dropped

    with ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(send, range(20)))
    assert {answer.status_code for answer in answers} == {201}, [a.content for a in answers]
    assert len({answer.json()["reference"] for answer in answers}) == 1
    assert Booking.objects.count() == 1
    assert sum(answer.has_header("Idempotent-Replayed") for answer in answers) == 19


# --- keys per door: a key used on one door never replays another door's answer ------------------------------


def test_a_key_used_on_the_legacy_door_is_not_replayed_on_the_page_checkout(client):
    data = page_ride()
    # The page's body only adds the traveller's tick of the terms: the same client address, key and ride.
    body = {"amount": server_amount(client, data), "bookingData": data, "termsAccepted": True}
    legacy = checkout(client, LEGACY, body, "order-4715")
    page = checkout(client, PAGE, body, "order-4715")
    assert (legacy.status_code, page.status_code) == (200, 201)
    assert "Idempotent-Replayed" not in page and set(legacy.json()) == {"sessionId", "url"}
    assert page.json()["reference"] and page.json()["sessionId"] != legacy.json()["sessionId"]
    assert Booking.objects.count() == 2
    again = checkout(client, PAGE, body, "order-4715")  # each door still replays its own answer
    assert again["Idempotent-Replayed"] == "true" and again.json() == page.json()
    assert Booking.objects.count() == 2
    assert sorted(IdempotentCheckout.objects.values_list("door", flat=True)) == ["legacy", "page"]


def test_the_mcp_tools_key_typed_on_v1_books_anew(client, agent):
    arguments = checkout_arguments(client, agent)
    tool = tool_result(call(client, agent, "booking.create_checkout", arguments))["structuredContent"]
    # The key the tool keeps its answer under, sent by the same token as a REST Idempotency-Key.
    key = f"mcp:booking.create_checkout:{idempotency.fingerprint(arguments)}"
    rest = checkout(client, V1, arguments, key, **agent)
    assert rest.status_code == 201 and "Idempotent-Replayed" not in rest
    assert rest.json()["reference"] != tool["reference"] and Booking.objects.count() == 2


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_answers_stored_before_the_door_was_kept_stay_with_their_door():
    old_apps = migrate([("booking", "0007_dispatch_and_changes")])
    try:
        stored = old_apps.get_model("booking", "IdempotentCheckout").objects
        legacy = {"sessionId": "cs_1", "url": "https://x.test/1"}
        v1 = {**legacy, "reference": "CB-ACDEFG", "status": "pending_payment"}
        stored.create(caller="ip:10.0.0.1", key="a", fingerprint="f", status_code=200, response=legacy)
        stored.create(caller="ip:10.0.0.1", key="b", fingerprint="f", status_code=201, response=v1)
        stored.create(caller="token:7", key="c", fingerprint="f", status_code=201, response=v1)
        stored.create(
            caller="token:7",
            key="mcp:booking.create_checkout:f",
            fingerprint="f",
            status_code=200,
            response=v1,
        )
        stored.create(caller="token:7", key="d", fingerprint="f")  # a claim still running
    finally:
        migrate_to_latest()
    doors = dict(IdempotentCheckout.objects.values_list("key", "door"))
    assert doors == {"a": "legacy", "b": "page", "c": "v1", "mcp:booking.create_checkout:f": "mcp", "d": "v1"}


# --- a booking no longer payable is never replayed ----------------------------------------------------------


def test_the_same_mcp_checkout_after_a_cancel_books_anew_with_a_live_page(client, agent):
    """An agent books, the traveller cancels, the agent books the same ride again within the ten minutes:
    the tool's key is derived from its arguments, so this is a new booking, not the cancelled one's page."""
    arguments = checkout_arguments(client, agent)
    first = tool_result(call(client, agent, "booking.create_checkout", arguments))["structuredContent"]
    cancelled = tool_result(call(client, agent, "booking.cancel_booking", {"reference": first["reference"]}))
    assert cancelled["structuredContent"]["status"] == "cancelled"
    again = tool_result(call(client, agent, "booking.create_checkout", arguments))
    assert not again["isError"]
    fresh = again["structuredContent"]
    assert fresh["reference"] != first["reference"] and fresh["url"] != first["url"]
    assert fresh["status"] == "pending_payment" and Booking.objects.count() == 2
    once_more = tool_result(call(client, agent, "booking.create_checkout", arguments))["structuredContent"]
    assert once_more == fresh  # the new booking is the one a retry now gets
    assert IdempotentCheckout.objects.get().booking.reference == fresh["reference"]


@pytest.mark.parametrize("status", ["cancelled", "expired", "payment_failed"])
@pytest.mark.parametrize(("path", "success"), [(V1, 201), (LEGACY, 200)])
def test_an_explicit_key_whose_booking_is_off_is_refused_and_books_nothing(
    client, writer, path, success, status
):
    body = {"amount": server_amount(client, ride()), "bookingData": ride()}
    assert checkout(client, path, body, "order-4716", **writer).status_code == success
    Booking.objects.update(status=status)
    refused = checkout(client, path, body, "order-4716", **writer)
    if path == V1:
        problem = assert_problem(refused, 409, "idempotency_key_spent")
        assert (
            Booking.objects.get().reference in problem["detail"] and "new Idempotency-Key" in problem["hint"]
        )
    else:  # the legacy door's plain error body, with the same status
        assert refused.status_code == 409 and "new Idempotency-Key" in refused.json()["error"]
    assert "Idempotent-Replayed" not in refused and Booking.objects.count() == 1
    assert checkout(client, path, body, "order-4717", **writer).status_code == success  # a new key books


def test_the_booking_pages_checkout_books_anew_after_its_booking_expired(client):
    """The page's key is its script's (one per filled form): the traveller who walked away from the payment
    page and sends the same form again books anew instead of getting the expired page back."""
    data = page_ride()
    body = {"amount": server_amount(client, data), "bookingData": data, "termsAccepted": True}
    first = checkout(client, PAGE, body, "page-attempt-1").json()
    Booking.objects.update(status="expired")
    again = checkout(client, PAGE, body, "page-attempt-1")
    assert again.status_code == 201 and "Idempotent-Replayed" not in again
    assert again.json()["reference"] != first["reference"] and Booking.objects.count() == 2


def test_a_paid_booking_is_still_replayed(client, writer):
    body = {"amount": server_amount(client, ride()), "bookingData": ride()}
    first = checkout(client, V1, body, "order-4718", **writer).json()
    Booking.objects.update(status="paid", paid_at=timezone.now())
    again = checkout(client, V1, body, "order-4718", **writer)
    assert again.json() == first and again["Idempotent-Replayed"] == "true"
