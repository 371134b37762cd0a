"""Webhooks in the admin: staff add an endpoint for every booking (its address checked as the API checks
it), resume a paused one so that what waited goes out, read each delivery with its last answer and send one
again; the token manager's role may do all of it."""

import pytest
from django.contrib.auth.models import Group, User
from django.urls import reverse

from config.roles import ensure_roles
from jobqueue.models import Job
from tests.queued import run_pending_jobs
from webhooks import publishing, sending
from webhooks.models import Delivery, Endpoint

pytestmark = pytest.mark.django_db
SEND = "webhooks.sending.send_deliveries"


def test_staff_add_an_endpoint_for_every_booking_and_a_private_address_is_refused(admin_client, settings):
    page = reverse("admin:webhooks_endpoint_add")
    refused = admin_client.post(page, {"url": "https://10.0.0.8/hooks", "description": "", "event_types": []})
    assert refused.status_code == 200 and "not a public address" in refused.content.decode()
    assert not Endpoint.objects.exists()

    settings.WEBHOOKS_PRIVATE_ADDRESSES = True  # no DNS here: the address rules themselves are tested above
    added = admin_client.post(
        page,
        {"url": "https://dispatch.example/hooks", "description": "ours", "event_types": ["ride.arrived"]},
    )
    assert added.status_code == 302
    endpoint = Endpoint.objects.get()
    assert (endpoint.owner, endpoint.api_token, endpoint.event_types) == ("", None, ["ride.arrived"])
    shown = admin_client.get(reverse("admin:webhooks_endpoint_change", args=[endpoint.pk])).content.decode()
    assert endpoint.secret in shown and "every booking (added by staff)" in shown


def test_resuming_in_the_admin_sends_what_waited(admin_client):
    endpoint = Endpoint.objects.create(url="https://dispatch.example/hooks")
    sending.pause(endpoint, "HTTP 500")
    publishing.publish("booking.paid", subject="CB-ADMIN1", data={}, audience=[])
    run_pending_jobs()
    assert Delivery.objects.get().attempts == 0  # paused: its job sent nothing

    listed = reverse("admin:webhooks_endpoint_changelist")
    answer = admin_client.post(listed, {"action": "resume", "_selected_action": [endpoint.pk]}, follow=True)

    assert "1 endpoint resumed." in answer.content.decode()
    endpoint.refresh_from_db()
    assert endpoint.paused_at is None and endpoint.pause_reason == ""
    assert (
        Job.objects.filter(task_path=SEND, args_kwargs__args=[endpoint.pk, "CB-ADMIN1"])
        .exclude(status="SUCCESSFUL")
        .count()
        == 1
    )


def test_a_delivery_is_read_with_its_answer_and_sent_again(admin_client):
    endpoint = Endpoint.objects.create(url="https://dispatch.example/hooks")
    publishing.publish("booking.paid", subject="CB-ADMIN1", data={"reference": "CB-ADMIN1"}, audience=[])
    delivery = Delivery.objects.get()
    Delivery.objects.filter(pk=delivery.pk).update(
        state="failed", attempts=8, last_status=502, last_answer="Bad gateway"
    )

    page = admin_client.get(reverse("admin:webhooks_delivery_change", args=[delivery.pk])).content.decode()
    assert "Bad gateway" in page and "CB-ADMIN1" in page and delivery.event.public_id in page
    listed = reverse("admin:webhooks_delivery_changelist")
    answer = admin_client.post(listed, {"action": "replay", "_selected_action": [delivery.pk]}, follow=True)

    assert "1 delivery queued to be sent again." in answer.content.decode()
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts) == ("pending", 0)
    assert Job.objects.filter(task_path=SEND, args_kwargs__args=[endpoint.pk, "CB-ADMIN1"]).count() == 2


def test_the_token_managers_role_manages_endpoints_and_sends_deliveries_again(client):
    ensure_roles()
    manager = User.objects.create_user("tom", password="x", is_staff=True)
    manager.groups.add(Group.objects.get(name="Token manager"))
    client.force_login(manager)

    assert client.get(reverse("admin:webhooks_endpoint_add")).status_code == 200
    assert client.get(reverse("admin:webhooks_delivery_changelist")).status_code == 200
    assert manager.has_perms(["webhooks.delete_endpoint", "webhooks.change_delivery"])
    assert not manager.has_perm("webhooks.add_delivery")
