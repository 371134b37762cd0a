"""A token's webhook endpoints through /api/v1: added with their secret, listed without it, read, removed;
another token's are not found; the events chosen are the only ones sent; and a URL that is not https on a
public address is refused, storing nothing (the server never calls its own network)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from access.models import ApiToken
from booking.models import Booking
from oauth import grants
from oauth.models import OAuthClient
from tests.conftest import assert_problem, bearer
from tests.oauth.test_admin import grant_of, token_of
from tests.queued import run_pending_jobs
from tests.webhooks.receiver import Receiver
from webhooks import owners, publishing, sending, subscriptions
from webhooks.models import Delivery, Endpoint
from webhooks.subscriptions import MAX_PER_OWNER

pytestmark = pytest.mark.django_db
PATH = "/api/v1/webhook-endpoints"


def add(client, token: dict, url: str, **fields):
    return client.post(PATH, {"url": url, **fields}, content_type="application/json", **token)


@pytest.fixture
def local(settings):
    settings.WEBHOOKS_PRIVATE_ADDRESSES = True


def test_an_endpoint_is_added_with_its_secret_listed_without_it_read_and_removed(client, agent, local):
    added = add(
        client, agent, "https://partner.example/hooks", eventTypes=["ride.arrived"], description="ops"
    )

    assert added.status_code == 201, added.content
    body = added.json()
    assert body["id"].startswith("ep_") and body["secret"].startswith("whsec_")
    assert (body["eventTypes"], body["description"], body["pausedAt"]) == (["ride.arrived"], "ops", None)
    listed = client.get(PATH, **agent).json()["endpoints"]
    assert [item["id"] for item in listed] == [body["id"]] and "secret" not in listed[0]
    assert client.get(f"{PATH}/{body['id']}", **agent).json()["secret"] == body["secret"]

    removed = client.delete(f"{PATH}/{body['id']}", **agent)
    assert removed.status_code == 204 and removed.content == b""
    assert not Endpoint.objects.exists()


def test_another_tokens_endpoint_is_not_found_and_stays(client, agent, local):
    body = add(client, agent, "https://partner.example/hooks").json()
    other = bearer("booking.read")

    assert_problem(client.get(f"{PATH}/{body['id']}", **other), 404, "not_found")
    assert_problem(client.delete(f"{PATH}/{body['id']}", **other), 404, "not_found")
    assert_problem(
        client.post(f"{PATH}/{body['id']}/resume", {}, content_type="application/json", **other),
        404,
        "not_found",
    )
    assert client.get(PATH, **other).json() == {"endpoints": []}
    assert Endpoint.objects.filter(public_id=body["id"]).exists()


def test_a_token_needs_its_read_scope_and_a_caller_without_one_is_refused(client):
    assert_problem(add(client, {}, "https://partner.example/hooks"), 401, "unauthorized")
    assert_problem(
        add(client, bearer("booking.write"), "https://partner.example/hooks"), 403, "insufficient_scope"
    )
    assert not Endpoint.objects.exists()


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://partner.example/hooks", "https"),
        ("https://127.0.0.1/hooks", "public"),
        ("https://localhost:8443/hooks", "public"),
        ("https://10.1.2.3/hooks", "public"),
        ("https://169.254.169.254/latest/meta-data", "public"),
        ("https://[::1]/hooks", "public"),
        ("https://[::ffff:192.168.0.1]/hooks", "public"),
        ("https://[64:ff9b::a9fe:a9fe]/latest/meta-data", "public"),  # NAT64 of 169.254.169.254
        ("https://[2002:a9fe:a9fe::1]/hooks", "public"),  # 6to4 of the same
        ("https://[fec0::1]/hooks", "public"),
        ("https://2130706433/hooks", "public"),  # 127.0.0.1 as one number
        ("https://user:secret@partner.example/hooks", "user name"),
        ("https://partner.example/hooks#part", "fragment"),
        ("not a url", "host"),
    ],
)
def test_a_url_not_https_on_a_public_address_is_refused_storing_nothing(client, agent, url, why):
    refused = add(client, agent, url)

    problem = assert_problem(refused, 400, "invalid_request", "url")
    assert why in str(problem["errors"]).lower() or why in problem["detail"].lower()
    assert not Endpoint.objects.exists()


def test_an_address_that_turned_private_is_not_called(agent, settings):
    """Added while public, its host later resolves to this machine: the attempt is refused before any call."""
    receiver = Receiver()
    try:
        endpoint = Endpoint.objects.create(url=receiver.url.replace("http://", "https://"))
        publishing.publish("booking.paid", subject="CB-TEST01", data={}, audience=[])
        run_pending_jobs()
    finally:
        receiver.stop()

    (delivery,) = Delivery.objects.filter(endpoint=endpoint)
    assert (delivery.state, delivery.attempts, delivery.last_status) == ("pending", 1, None)
    assert delivery.last_answer == "The URL's host is not a public address."
    assert receiver.received == []


def test_wrong_event_types_and_too_many_endpoints_are_refused(client, agent, local):
    assert_problem(
        add(client, agent, "https://partner.example/a", eventTypes=["ride.teleported"]),
        400,
        "invalid_request",
    )
    for number in range(MAX_PER_OWNER):
        assert add(client, agent, f"https://partner.example/{number}").status_code == 201

    assert_problem(add(client, agent, "https://partner.example/more"), 400, "invalid_request", "url")
    assert Endpoint.objects.count() == MAX_PER_OWNER


def test_a_travellers_token_hears_of_that_travellers_bookings_only(client, local, make_booking):
    traveller = bearer("booking.read", acts_for="anna@example.com")
    body = add(client, traveller, "https://partner.example/hooks").json()
    hers = make_booking(email="Anna@Example.com ", pickup_at=timezone.now())
    someone_elses = make_booking(email="ben@example.com", pickup_at=timezone.now())

    for booking in (hers, someone_elses):
        sending_to = publishing.publish(
            "booking.paid", subject=booking.reference, data={}, audience=audience(booking)
        )
        assert (sending_to is not None) == (booking is hers)
    assert list(Delivery.objects.values_list("endpoint__public_id", "event__subject")) == [
        (body["id"], hers.reference)
    ]


def audience(booking: Booking) -> list[str]:
    return owners.of_booking(email=booking.email, api_token=booking.api_token)


def test_removing_an_endpoint_drops_what_it_had_still_to_receive(client, agent, local):
    body = add(client, agent, "https://partner.example/hooks").json()
    endpoint = Endpoint.objects.get(public_id=body["id"])
    sending.pause(endpoint, "tests")
    publishing.publish("booking.paid", subject="CB-TEST01", data={}, audience=[endpoint.owner])
    assert Delivery.objects.filter(endpoint=endpoint, state="pending").count() == 1

    assert client.delete(f"{PATH}/{body['id']}", **agent).status_code == 204
    assert not Delivery.objects.exists()


def test_a_revoked_token_or_a_withdrawn_consent_stops_its_endpoints_hearing(client, local):
    static = bearer("booking.read")
    static_endpoint = Endpoint.objects.get(
        public_id=add(client, static, "https://partner.example/s").json()["id"]
    )
    assistant = OAuthClient.objects.create(client_id="assistant-1", name="Trip Assistant", redirect_uris=[])
    grant = grant_of(assistant)  # Anna allowed it
    subscriptions.add(token_of(grant), url="https://assistant.example/hooks", event_types=[])
    token_of(grant)  # an hour later the assistant's token is renewed: its endpoint still hears
    annas_booking = [*owners.of_booking(email="anna@example.com", api_token=None), static_endpoint.owner]

    def heard(event_type: str) -> set[str]:
        event = publishing.publish(event_type, subject="CB-TEST01", data={}, audience=annas_booking)
        return set(event.deliveries.values_list("endpoint__url", flat=True)) if event else set()

    assert heard("booking.paid") == {"https://partner.example/s", "https://assistant.example/hooks"}
    ApiToken.objects.filter(pk=static_endpoint.api_token_id).update(revoked_at=timezone.now())
    assert heard("booking.confirmed") == {"https://assistant.example/hooks"}
    grants.end_assistant(email="anna@example.com", client_pk=assistant.pk)
    assert heard("booking.cancelled") == set()

    expired = bearer("booking.read", expires_at=timezone.now() + timedelta(days=1))
    expiring = Endpoint.objects.get(public_id=add(client, expired, "https://partner.example/e").json()["id"])
    annas_booking.append(expiring.owner)
    assert heard("booking.refunded") == {"https://partner.example/e"}
    ApiToken.objects.filter(pk=expiring.api_token_id).update(expires_at=timezone.now())
    assert heard("booking.changed") == set()
    ApiToken.objects.filter(pk=expiring.api_token_id).delete()  # its endpoint stays, owned by no one
    assert heard("booking.pickup_moved") == set()
    assert Endpoint.objects.count() == 3  # kept for the record; the token's owner may remove them


def test_another_assistant_of_the_same_traveller_sees_none_of_its_endpoints(local):
    annas = [
        OAuthClient.objects.create(client_id=f"assistant-{n}", name=f"A{n}", redirect_uris=[]) for n in (1, 2)
    ]
    first, second = (token_of(grant_of(client)) for client in annas)
    endpoint = subscriptions.add(first, url="https://assistant.example/hooks", event_types=[])

    with pytest.raises(subscriptions.UnknownEndpoint):
        subscriptions.find(second, endpoint.public_id)
    with pytest.raises(subscriptions.UnknownEndpoint):
        subscriptions.remove(second, endpoint.public_id)
    assert list(subscriptions.of(second)) == [] and list(subscriptions.of(first)) == [endpoint]
    renewed = token_of(first.grant)  # the same assistant an hour later
    assert subscriptions.find(renewed, endpoint.public_id) == endpoint


def test_a_travellers_erasure_removes_their_assistants_endpoints(client, local):
    from privacy import traveller_data

    traveller = bearer("booking.read", acts_for="anna@example.com")
    add(client, traveller, "https://assistant.example/hooks")
    kept = add(client, bearer("booking.read"), "https://partner.example/hooks").json()

    traveller_data.erase("Anna@example.com", channel="email")

    assert list(Endpoint.objects.values_list("public_id", flat=True)) == [kept["id"]]


def test_a_token_reads_what_its_endpoint_was_sent_and_how_it_answered(client, agent, local):
    receiver = Receiver()
    try:
        body = add(client, agent, receiver.url).json()
        endpoint = Endpoint.objects.get(public_id=body["id"])
        receiver.status, receiver.answer = 500, b"database down"
        publishing.publish("booking.paid", subject="CB-TEST01", data={}, audience=[endpoint.owner])
        run_pending_jobs()
        receiver.status = 204
        publishing.publish("booking.confirmed", subject="CB-TEST02", data={}, audience=[endpoint.owner])
        run_pending_jobs()
    finally:
        receiver.stop()

    listed = client.get(f"{PATH}/{body['id']}/deliveries", **agent)

    assert listed.status_code == 200, listed.content
    newest, oldest = listed.json()["deliveries"]
    assert (newest["type"], newest["reference"], newest["state"], newest["lastStatus"]) == (
        "booking.confirmed",
        "CB-TEST02",
        "delivered",
        204,
    )
    assert (oldest["type"], oldest["state"], oldest["attempts"], oldest["lastStatus"]) == (
        "booking.paid",
        "pending",
        1,
        500,
    )
    assert oldest["lastAnswer"] == "database down" and oldest["nextAttemptAt"] is not None
    assert oldest["id"] == receiver.received[0].headers["webhook-id"]
    failing = client.get(f"{PATH}/{body['id']}/deliveries", {"state": "pending"}, **agent).json()
    assert [item["id"] for item in failing["deliveries"]] == [oldest["id"]]
    other = bearer("booking.read")
    assert_problem(client.get(f"{PATH}/{body['id']}/deliveries", **other), 404, "not_found")
    assert_problem(
        client.get(f"{PATH}/{body['id']}/deliveries", {"state": "lost"}, **agent), 400, "invalid_request"
    )
