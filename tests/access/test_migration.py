"""API tokens moved from the agents app to access: tokens issued before the move keep working after it."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from access import tokens
from access.models import ApiToken
from oauth.models import OAuthClient
from tests.migrating import migrate, migrate_to_latest

BEFORE_THE_MOVE = [("agents", "0001_initial"), ("access", None)]


# serialized_rollback: later tests that restore the seeded rows find the tables as they left them.
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_tokens_issued_before_the_move_authenticate_after_it():
    old_apps = migrate(BEFORE_THE_MOVE)
    try:
        plain, prefix, digest = tokens.new_secret()
        old_apps.get_model("agents", "ApiToken").objects.create(
            name="Hotel X agent", prefix=prefix, digest=digest, scopes=["booking.read", "booking.write"]
        )
        content_types = old_apps.get_model("contenttypes", "ContentType")
        content_types.objects.get_or_create(app_label="agents", model="apitoken")
        assert "access_apitoken" not in connection.introspection.table_names()
    finally:
        migrate_to_latest()

    token = tokens.authenticate(plain)
    assert token is not None and token.name == "Hotel X agent"
    assert token.scopes == ["booking.read", "booking.write"]
    assert ApiToken.objects.count() == 1
    tables = connection.introspection.table_names()
    assert "access_apitoken" in tables and "agents_apitoken" not in tables
    assert ContentType.objects.filter(app_label="access", model="apitoken").exists()
    assert not ContentType.objects.filter(app_label="agents", model="apitoken").exists()


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_clients_stored_before_keep_a_label_hosts_and_plain_names_after():
    old_apps = migrate([("access", "0006_oauthclient_metadata_expires_at")])
    try:
        old_apps.get_model("access", "OAuthClient").objects.create(
            client_id="dyn_old",
            registration="dynamic",
            name="Apple \u202eAssistant\u2069",
            redirect_uris=["https://аррӏе.com/cb", "http://127.0.0.1:3000/cb", "https://exa%6dple.com/cb"],
            client_uri="https://аррӏе.com:8443/about",
        )
    finally:
        migrate_to_latest()

    client = OAuthClient.objects.get(client_id="dyn_old")
    assert client.name == "Apple Assistant"
    assert client.redirect_uris == [
        "https://xn--80ak6aa92e.com/cb",
        "http://127.0.0.1:3000/cb",
        "https://exa%6dple.com/cb",
    ]
    assert client.client_uri == "https://xn--80ak6aa92e.com:8443/about"
