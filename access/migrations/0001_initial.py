"""Takes over API tokens from the agents app (agents.0002 renamed the table): the model enters this app's
state without touching the database, and staff permissions follow their content type."""

from django.db import migrations, models


def move_content_type(apps, schema_editor, *, source: str, target: str) -> None:
    content_types = apps.get_model("contenttypes", "ContentType")
    if not content_types.objects.filter(app_label=target, model="apitoken").exists():
        content_types.objects.filter(app_label=source, model="apitoken").update(app_label=target)


def forwards(apps, schema_editor):
    move_content_type(apps, schema_editor, source="agents", target="access")


def backwards(apps, schema_editor):
    move_content_type(apps, schema_editor, source="access", target="agents")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("agents", "0002_apitoken_moves_to_access"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="ApiToken",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "name",
                            models.CharField(
                                help_text="Who or what uses it, e.g. “Concierge agent of Hotel X”.",
                                max_length=100,
                            ),
                        ),
                        (
                            "prefix",
                            models.CharField(
                                db_index=True,
                                editable=False,
                                help_text="To recognise it; not secret.",
                                max_length=16,
                            ),
                        ),
                        ("digest", models.CharField(editable=False, max_length=64, unique=True)),
                        ("scopes", models.JSONField(default=list)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "expires_at",
                            models.DateTimeField(blank=True, help_text="Empty: does not expire.", null=True),
                        ),
                        ("revoked_at", models.DateTimeField(blank=True, editable=False, null=True)),
                        ("last_used_at", models.DateTimeField(blank=True, editable=False, null=True)),
                        (
                            "rate_limit",
                            models.PositiveIntegerField(
                                blank=True,
                                help_text="Requests per rate-limit window for this token; empty: the service's default.",
                                null=True,
                            ),
                        ),
                    ],
                    options={"verbose_name": "API token", "ordering": ["-created_at"]},
                )
            ],
            database_operations=[],
        ),
        migrations.RunPython(forwards, backwards),
    ]
