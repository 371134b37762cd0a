"""The authorization server's models moved from the access app to oauth (oauth/migrations/0001–0003): rows
written before the move are read through the new models after it, from the same tables; staff permissions
and the admin's log entries follow their content types, and a queued sign-in code mail its task's new path.
Migrating back puts every label where it was."""

from datetime import timedelta

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.utils import timezone
from django.utils.module_loading import import_string
from django_tasks.base import Task

from access.models import ApiToken
from jobqueue.models import Job
from oauth import tasks
from oauth.models import AuthorizationCode, OAuthClient, OAuthGrant, RefreshToken, SignInCode
from tests.migrating import migrate, migrate_to_latest

BEFORE_THE_MOVE = [("oauth", None), ("access", "0007_oauth_clients_in_a_labels_and_plain_names")]
MOVED = ["oauthclient", "oauthgrant", "authorizationcode", "refreshtoken", "signincode"]
TABLES = {f"access_{model}" for model in MOVED}
OLD_TASK = "access.tasks.send_sign_in_code"


def labels_of(models: list[str]) -> set[tuple[str, str]]:
    return set(ContentType.objects.filter(model__in=models).values_list("app_label", "model"))


def write_rows_as_the_access_app_did(old_apps, staff_pk: int) -> dict[str, int]:
    later = timezone.now() + timedelta(days=30)
    client = old_apps.get_model("access", "OAuthClient").objects.create(
        client_id="https://assistant.example/client.json",
        registration="metadata_document",
        name="Travel assistant",
        redirect_uris=["https://assistant.example/callback"],
        agency_scopes=["booking.read"],
        rate_limit=120,
    )
    grant = old_apps.get_model("access", "OAuthGrant").objects.create(
        client=client,
        subject="agency",
        approved_by_id=staff_pk,
        scopes=["booking.read"],
        resource="https://chauffeur.example/api/mcp",
    )
    old_apps.get_model("access", "RefreshToken").objects.create(
        grant=grant, digest="r" * 64, expires_at=later
    )
    old_apps.get_model("access", "AuthorizationCode").objects.create(
        grant=grant,
        digest="c" * 64,
        redirect_uri="https://assistant.example/callback",
        code_challenge="x" * 43,
        scopes=["booking.read"],
        resource="https://chauffeur.example/api/mcp",
        expires_at=later,
    )
    old_apps.get_model("access", "SignInCode").objects.create(
        email="traveller@example.com", digest="s" * 64, session_key="k" * 64, expires_at=later
    )
    token = old_apps.get_model("access", "ApiToken").objects.create(
        name="Travel assistant", prefix="cbt_old", digest="t" * 64, scopes=["booking.read"], grant=grant
    )
    return {"client": client.pk, "grant": grant.pk, "token": token.pk}


# serialized_rollback: later tests that restore the seeded rows find the tables as they left them.
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_oauth_rows_written_before_the_move_are_read_through_the_oauth_app_after_it():
    staff = User.objects.create_user("clerk", is_staff=True)
    job = tasks.send_sign_in_code.enqueue(0, "de")
    old_apps = migrate(BEFORE_THE_MOVE)
    try:
        assert labels_of(MOVED) == {("access", model) for model in MOVED}  # migrating back relabels
        content_types = old_apps.get_model("contenttypes", "ContentType")
        client_type = content_types.objects.get(app_label="access", model="oauthclient")
        may_change_clients = old_apps.get_model("auth", "Permission").objects.get(
            content_type=client_type, codename="change_oauthclient"
        )
        old_apps.get_model("auth", "User").objects.get(pk=staff.pk).user_permissions.add(may_change_clients)
        written = write_rows_as_the_access_app_did(old_apps, staff.pk)
        old_apps.get_model("admin", "LogEntry").objects.create(
            user_id=staff.pk,
            content_type=client_type,
            object_id=str(written["client"]),
            object_repr="Travel assistant",
            action_flag=CHANGE,
        )
        Job.objects.filter(id=job.id).update(task_path=OLD_TASK)  # as the old code queued it
    finally:
        migrate_to_latest()

    assert set(connection.introspection.table_names()) >= TABLES
    assert not {name for name in connection.introspection.table_names() if name.startswith("oauth_")}
    client = OAuthClient.objects.get(pk=written["client"])
    assert (client.name, client.agency_scopes, client.rate_limit) == (
        "Travel assistant",
        ["booking.read"],
        120,
    )
    grant = OAuthGrant.objects.get(pk=written["grant"])
    assert grant.client == client and grant.approved_by == staff
    assert RefreshToken.objects.get(grant=grant).digest == "r" * 64
    assert AuthorizationCode.objects.get(grant=grant).code_challenge == "x" * 43
    assert SignInCode.objects.get().email == "traveller@example.com"
    token = ApiToken.objects.get(pk=written["token"])
    assert isinstance(token.grant, OAuthGrant) and token.grant == grant
    assert list(grant.access_tokens.all()) == [token]

    assert labels_of(MOVED) == {("oauth", model) for model in MOVED}
    assert ContentType.objects.get_for_model(OAuthClient).pk == client_type.pk
    staff = User.objects.get(pk=staff.pk)  # a fresh user: no permission cache
    assert staff.has_perm("oauth.change_oauthclient") and not staff.has_perm("access.change_oauthclient")
    assert Permission.objects.get(pk=may_change_clients.pk).content_type.app_label == "oauth"
    entry = LogEntry.objects.get(object_id=str(client.pk), content_type__model="oauthclient")
    assert entry.get_edited_object() == client
    assert entry.get_admin_url() == f"/admin/oauth/oauthclient/{client.pk}/change/"

    moved = Job.objects.get(id=job.id).task_path
    assert moved == "oauth.tasks.send_sign_in_code" and isinstance(import_string(moved), Task)

    migrate(BEFORE_THE_MOVE)
    try:
        assert labels_of(MOVED) == {("access", model) for model in MOVED}
        assert Job.objects.get(id=job.id).task_path == OLD_TASK
    finally:
        migrate_to_latest()
