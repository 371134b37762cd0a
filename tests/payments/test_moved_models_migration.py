"""The payment models moved from `booking` to `payments` without losing a row: refunds, price
differences, processed provider events and idempotent checkouts written before the move are all there
after it, with the same values; the staff permissions granted on them and the admin's log entries follow
them to the new app label; every booking still opens in the admin with its refunds and differences."""

import re
from decimal import Decimal

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group, User
from django.contrib.contenttypes.models import ContentType

from booking.models import Booking
from payments.models import IdempotentCheckout, ProcessedPaymentEvent, Refund, Surcharge
from pricing.services import quote_price
from tests.migrating import migrate, migrate_to_latest

BEFORE_THE_MOVE = [("booking", "0012_booking_accepted_terms"), ("payments", None)]
GRANTED = {("refund", "view_refund"), ("refund", "change_refund"), ("surcharge", "view_surcharge")}


def write_rows_before_the_move(old_apps) -> None:
    old = {
        name: old_apps.get_model("booking", name)
        for name in ("Booking", "Refund", "Surcharge", "ProcessedPaymentEvent", "IdempotentCheckout")
    }
    accountant = old_apps.get_model("auth", "User").objects.create(username="accountant", is_staff=True)
    quote = quote_price(vehicle_class="executive", distance_km=Decimal("21.8"))
    for number, reference in enumerate(("CB-MOVED1", "CB-MOVED2"), start=1):
        booking = old["Booking"].objects.create(
            reference=reference,
            origin="Hotel Sacher",
            destination="Flughafen Wien",
            vehicle_class="executive",
            quote_record=quote.as_record(),
            amount_cents=7400,
            received_cents=7400,
            booking_data={},
            payment_provider="stripe",
            status="paid",
            payment_intent_id=f"pi_{number}",
        )
        old["Refund"].objects.create(
            booking=booking,
            amount_cents=1234 * number,
            status="succeeded",
            method="provider",
            provider_refund_id=f"re_{number}",
            reason="Changed plans",
            requested_by=accountant,
            request_key=f"key{number}",
        )
        old["Surcharge"].objects.create(
            booking=booking,
            amount_cents=567 * number,
            status="pending",
            provider_session_id=f"cs_sur_{number}",
            payment_url=f"https://checkout.test/{number}",
            created_by=accountant,
        )
        old["ProcessedPaymentEvent"].objects.create(
            event_id=f"evt_{number}", event_type="checkout.session.completed", booking=booking
        )
    old["IdempotentCheckout"].objects.create(
        door="v1", caller="token:7", key="retry-1", fingerprint="f" * 64, status_code=201, response={"ok": 1}
    )
    # A staff group holding permissions on the moved models, and an admin log entry about a refund.
    content_types = old_apps.get_model("contenttypes", "ContentType").objects
    permissions = old_apps.get_model("auth", "Permission").objects
    group = old_apps.get_model("auth", "Group").objects.create(name="Accounts")
    for model, codename in GRANTED:
        content_type, _ = content_types.get_or_create(app_label="booking", model=model)
        permission, _ = permissions.get_or_create(
            content_type=content_type, codename=codename, defaults={"name": codename}
        )
        group.permissions.add(permission)
    accountant.groups.add(group)
    old_apps.get_model("admin", "LogEntry").objects.create(
        user=accountant,
        content_type=content_types.get(app_label="booking", model="refund"),
        object_id="1",
        object_repr="refund",
        action_flag=2,
        change_message="[]",
    )


def rows() -> dict:
    return {
        "refunds": list(
            Refund.objects.order_by("provider_refund_id").values_list(
                "booking__reference",
                "amount_cents",
                "status",
                "method",
                "provider_refund_id",
                "reason",
                "requested_by__username",
                "request_key",
            )
        ),
        "surcharges": list(
            Surcharge.objects.order_by("payment__provider_session_id").values_list(
                "booking__reference", "amount_cents", "status", "payment_url", "created_by__username"
            )
        ),
        "events": list(
            ProcessedPaymentEvent.objects.order_by("event_id").values_list(
                "event_id", "event_type", "booking__reference"
            )
        ),
        "checkouts": list(
            IdempotentCheckout.objects.values_list("door", "caller", "key", "status_code", "response")
        ),
    }


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_payment_models_move_to_payments_with_every_row_and_permission(client):
    old_apps = migrate(BEFORE_THE_MOVE)
    try:
        assert "payments" not in {model._meta.app_label for model in old_apps.get_models()}
        write_rows_before_the_move(old_apps)
    finally:
        migrate_to_latest()
    ContentType.objects.clear_cache()  # the migration renamed content types under the cache's feet

    assert rows() == {
        "refunds": [
            ("CB-MOVED1", 1234, "succeeded", "provider", "re_1", "Changed plans", "accountant", "key1"),
            ("CB-MOVED2", 2468, "succeeded", "provider", "re_2", "Changed plans", "accountant", "key2"),
        ],
        "surcharges": [
            ("CB-MOVED1", 567, "pending", "https://checkout.test/1", "accountant"),
            ("CB-MOVED2", 1134, "pending", "https://checkout.test/2", "accountant"),
        ],
        "events": [
            ("evt_1", "checkout.session.completed", "CB-MOVED1"),
            ("evt_2", "checkout.session.completed", "CB-MOVED2"),
        ],
        # Kept since as the JSON text sent: a stored answer reads back as valid JSON on either database.
        "checkouts": [("v1", "token:7", "retry-1", 201, '{"ok": 1}')],
    }
    # The grants are on the new app label, none left behind on the old one.
    granted = Group.objects.get(name="Accounts").permissions.select_related("content_type")
    assert {(p.content_type.app_label, p.content_type.model, p.codename) for p in granted} == {
        ("payments", model, codename) for model, codename in GRANTED
    }
    assert not ContentType.objects.filter(app_label="booking", model__in=["refund", "surcharge"]).exists()
    accountant = User.objects.get(username="accountant")
    assert accountant.has_perm("payments.change_refund") and accountant.has_perm("payments.view_surcharge")
    assert not accountant.has_perm("payments.delete_refund")
    entry = LogEntry.objects.get(user=accountant)
    assert (entry.content_type.app_label, entry.content_type.model) == ("payments", "refund")

    client.force_login(User.objects.create_superuser("admin", "admin@chauffeur.test", "pw"))
    for booking in Booking.objects.all():
        page = client.get(f"/admin/booking/booking/{booking.pk}/change/", HTTP_ACCEPT_LANGUAGE="en")
        assert page.status_code == 200
        text = page.content.decode()
        for refund in booking.refunds.all():
            assert re.search(re.escape(f"{refund.amount:.2f}").replace(r"\.", "[.,]"), text), refund
        for surcharge in booking.surcharges.all():
            assert re.search(re.escape(f"{surcharge.amount:.2f}").replace(r"\.", "[.,]"), text), surcharge


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_back_before_the_move_the_rows_and_grants_are_booking_s_again():
    migrate_to_latest()
    refund_type = ContentType.objects.get_for_model(Refund)
    Group.objects.create(name="Refunders").permissions.add(
        refund_type.permission_set.get(codename="view_refund")
    )
    old_apps = migrate(BEFORE_THE_MOVE)
    try:
        group = old_apps.get_model("auth", "Group").objects.get(name="Refunders")
        assert [(p.content_type.app_label, p.codename) for p in group.permissions.all()] == [
            ("booking", "view_refund")
        ]
        assert old_apps.get_model("booking", "Refund")._meta.db_table == "booking_refund"
    finally:
        migrate_to_latest()
    ContentType.objects.clear_cache()
    assert [p.content_type.app_label for p in Group.objects.get(name="Refunders").permissions.all()] == [
        "payments"
    ]
