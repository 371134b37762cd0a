"""The payment models move here from `booking` (issue 26) without losing a row: booking's migration 0013
renamed their tables to payments_*, this one takes them into the payments app's state (the database is
already as it should be), and booking's 0014 drops them from booking's state. Their content types move
along, so the permissions staff hold on them and the admin's log entries stay theirs."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MOVED = ("refund", "surcharge", "processedpaymentevent", "idempotentcheckout")


def move_content_types(apps, from_label: str, to_label: str) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    LogEntry = apps.get_model("admin", "LogEntry")
    for model in MOVED:
        old = ContentType.objects.filter(app_label=from_label, model=model).first()
        if old is None:  # a fresh database: post_migrate creates the content types after all migrations
            continue
        new = ContentType.objects.filter(app_label=to_label, model=model).first()
        if new is None:
            old.app_label = to_label
            old.save(update_fields=["app_label"])
            continue
        # Both exist (post_migrate ran in between): the old one's grants and log entries join the new one.
        for permission in Permission.objects.filter(content_type=old):
            twin = Permission.objects.filter(content_type=new, codename=permission.codename).first()
            if twin is None:
                permission.content_type = new
                permission.save(update_fields=["content_type"])
            else:
                twin.group_set.add(*permission.group_set.all())
                twin.user_set.add(*permission.user_set.all())
                permission.delete()
        LogEntry.objects.filter(content_type=old).update(content_type=new)
        old.delete()


def to_payments(apps, schema_editor) -> None:
    move_content_types(apps, "booking", "payments")


def back_to_booking(apps, schema_editor) -> None:
    move_content_types(apps, "payments", "booking")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("booking", "0013_payment_tables_renamed"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("contenttypes", "0002_remove_content_type_name"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("admin", "0003_logentry_add_action_flag_choices"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="IdempotentCheckout",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "door",
                            models.CharField(
                                choices=[
                                    ("legacy", "POST /api/create-checkout-session"),
                                    ("v1", "POST /api/v1/checkout"),
                                    ("page", "POST /api/page/checkout"),
                                    ("mcp", "booking.create_checkout (MCP)"),
                                ],
                                max_length=10,
                            ),
                        ),
                        (
                            "caller",
                            models.CharField(
                                help_text="Whose key: a token or a client address.", max_length=100
                            ),
                        ),
                        ("key", models.CharField(max_length=255)),
                        (
                            "fingerprint",
                            models.CharField(help_text="SHA-256 of the request's JSON body.", max_length=64),
                        ),
                        ("status_code", models.PositiveSmallIntegerField(null=True)),
                        ("response", models.JSONField(null=True)),
                        ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                    ],
                    options={
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("door", "caller", "key"), name="one_answer_per_door_caller_key"
                            )
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="ProcessedPaymentEvent",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("event_id", models.CharField(max_length=255, unique=True)),
                        ("event_type", models.CharField(max_length=100)),
                        ("received_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "booking",
                            models.ForeignKey(
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="payment_events",
                                to="booking.booking",
                            ),
                        ),
                    ],
                ),
                migrations.CreateModel(
                    name="Refund",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("amount_cents", models.PositiveIntegerField()),
                        ("currency", models.CharField(default="EUR", max_length=3)),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("pending", "pending"),
                                    ("requires_action", "requires action"),
                                    ("succeeded", "succeeded"),
                                    ("failed", "failed"),
                                    ("canceled", "canceled"),
                                ],
                                max_length=20,
                            ),
                        ),
                        (
                            "method",
                            models.CharField(
                                choices=[
                                    ("provider", "payment provider"),
                                    ("manual", "by staff, outside the provider"),
                                ],
                                default="provider",
                                max_length=10,
                            ),
                        ),
                        (
                            "provider_refund_id",
                            models.CharField(blank=True, max_length=255, null=True, unique=True),
                        ),
                        (
                            "payment_intent_id",
                            models.CharField(
                                blank=True,
                                help_text="The provider payment it went back to (blank: the booking's own).",
                                max_length=255,
                            ),
                        ),
                        ("reason", models.CharField(blank=True, max_length=200)),
                        ("failure_reason", models.CharField(blank=True, max_length=100)),
                        (
                            "request_key",
                            models.CharField(
                                blank=True, editable=False, max_length=64, null=True, unique=True
                            ),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        (
                            "booking",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="refunds",
                                to="booking.booking",
                            ),
                        ),
                        (
                            "requested_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "refund",
                        "verbose_name_plural": "refunds",
                        "ordering": ["created_at"],
                    },
                ),
                migrations.CreateModel(
                    name="Surcharge",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("amount_cents", models.PositiveIntegerField()),
                        ("currency", models.CharField(default="EUR", max_length=3)),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("pending", "waiting for payment"),
                                    ("paid", "paid"),
                                    ("waived", "waived"),
                                ],
                                default="pending",
                                max_length=10,
                            ),
                        ),
                        (
                            "method",
                            models.CharField(
                                choices=[
                                    ("provider", "payment provider"),
                                    ("manual", "by staff, outside the provider"),
                                ],
                                default="provider",
                                max_length=10,
                            ),
                        ),
                        (
                            "provider_session_id",
                            models.CharField(blank=True, max_length=255, null=True, unique=True),
                        ),
                        (
                            "payment_intent_id",
                            models.CharField(blank=True, help_text="The provider payment.", max_length=255),
                        ),
                        ("payment_url", models.URLField(blank=True, max_length=1000)),
                        ("paid_at", models.DateTimeField(blank=True, null=True)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "booking",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="surcharges",
                                to="booking.booking",
                            ),
                        ),
                        (
                            "created_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "price difference",
                        "verbose_name_plural": "price differences",
                        "ordering": ["created_at"],
                    },
                ),
            ],
            database_operations=[],  # the tables are there, renamed by booking's 0013
        ),
        migrations.RunPython(to_payments, back_to_booking),
    ]
