"""The authorization server's models move here from the access app: they enter this app's state without
touching the database (their tables keep their access_ names, set in each Meta.db_table); access 0008 takes
them out of its state."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("access", "0007_oauth_clients_in_a_labels_and_plain_names"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="OAuthClient",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "client_id",
                            models.CharField(max_length=2000, unique=True, verbose_name="client ID"),
                        ),
                        (
                            "registration",
                            models.CharField(
                                choices=[
                                    ("dynamic", "dynamic registration"),
                                    ("metadata_document", "client ID metadata document"),
                                ],
                                max_length=20,
                                verbose_name="registration",
                            ),
                        ),
                        ("name", models.CharField(max_length=200, verbose_name="name")),
                        ("redirect_uris", models.JSONField(default=list, verbose_name="redirect URIs")),
                        ("client_uri", models.CharField(blank=True, max_length=2000, verbose_name="website")),
                        ("logo_uri", models.CharField(blank=True, max_length=2000, verbose_name="logo")),
                        ("token_endpoint_auth_method", models.CharField(default="none", max_length=40)),
                        ("secret_digest", models.CharField(blank=True, editable=False, max_length=64)),
                        (
                            "metadata",
                            models.JSONField(
                                default=dict, help_text="As registered or fetched.", verbose_name="metadata"
                            ),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                        (
                            "metadata_fetched_at",
                            models.DateTimeField(blank=True, null=True, verbose_name="metadata fetched at"),
                        ),
                        (
                            "metadata_expires_at",
                            models.DateTimeField(blank=True, null=True, verbose_name="metadata expires at"),
                        ),
                        (
                            "blocked_at",
                            models.DateTimeField(blank=True, null=True, verbose_name="blocked at"),
                        ),
                        (
                            "agency_scopes",
                            models.JSONField(blank=True, default=list, verbose_name="agency scopes"),
                        ),
                        (
                            "rate_limit",
                            models.PositiveIntegerField(
                                blank=True,
                                help_text="Requests per rate-limit window for its tokens; empty: the service's default.",
                                null=True,
                                verbose_name="rate limit",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "OAuth client",
                        "verbose_name_plural": "OAuth clients",
                        "db_table": "access_oauthclient",
                        "ordering": ["-created_at"],
                    },
                ),
                migrations.CreateModel(
                    name="OAuthGrant",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "subject",
                            models.CharField(
                                choices=[("traveller", "traveller"), ("agency", "agency, approved by staff")],
                                max_length=20,
                                verbose_name="given by",
                            ),
                        ),
                        (
                            "traveller_email",
                            models.EmailField(blank=True, max_length=254, verbose_name="traveller's e-mail"),
                        ),
                        ("scopes", models.JSONField(default=list, verbose_name="scopes")),
                        ("resource", models.CharField(max_length=2000, verbose_name="resource")),
                        ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                        (
                            "revoked_at",
                            models.DateTimeField(
                                blank=True, editable=False, null=True, verbose_name="revoked at"
                            ),
                        ),
                        (
                            "approved_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                                verbose_name="approved by",
                            ),
                        ),
                        (
                            "client",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="grants",
                                to="oauth.oauthclient",
                                verbose_name="OAuth client",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "OAuth grant",
                        "verbose_name_plural": "OAuth grants",
                        "db_table": "access_oauthgrant",
                        "ordering": ["-created_at"],
                    },
                ),
                migrations.CreateModel(
                    name="AuthorizationCode",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("digest", models.CharField(max_length=64, unique=True)),
                        ("redirect_uri", models.CharField(max_length=2000)),
                        ("code_challenge", models.CharField(max_length=128)),
                        ("scopes", models.JSONField(default=list)),
                        ("resource", models.CharField(max_length=2000)),
                        ("expires_at", models.DateTimeField()),
                        ("used_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "grant",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="codes",
                                to="oauth.oauthgrant",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "access_authorizationcode",
                    },
                ),
                migrations.CreateModel(
                    name="RefreshToken",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("digest", models.CharField(max_length=64, unique=True)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("expires_at", models.DateTimeField()),
                        ("used_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "grant",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="refresh_tokens",
                                to="oauth.oauthgrant",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "access_refreshtoken",
                    },
                ),
                migrations.CreateModel(
                    name="SignInCode",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("email", models.EmailField(max_length=254)),
                        ("digest", models.CharField(max_length=64)),
                        ("salt", models.CharField(blank=True, max_length=64)),
                        ("session_key", models.CharField(max_length=64)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("expires_at", models.DateTimeField()),
                        ("attempts", models.PositiveSmallIntegerField(default=0)),
                        ("used_at", models.DateTimeField(blank=True, null=True)),
                    ],
                    options={
                        "db_table": "access_signincode",
                        "indexes": [
                            models.Index(fields=["email", "created_at"], name="access_sign_email_f8c7e9_idx")
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
