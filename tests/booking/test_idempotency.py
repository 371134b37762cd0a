"""Checkouts are safe to retry: an Idempotency-Key replays the first answer (docs/decisions.md §9)."""

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.test import Client
from django.utils import timezone

from booking.models import Booking, IdempotentCheckout
from tests.booking.test_checkout import LEGACY, V1, ride, server_amount
from tests.conftest import assert_problem, bearer

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
    assert booking.provider_session_id == first.json()["sessionId"]


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
        status_code=None, response=None, created_at=timezone.now() - timedelta(seconds=61)
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
