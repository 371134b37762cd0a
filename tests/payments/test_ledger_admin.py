"""The ledger for staff: the booking's page lists the payments that carry it (kind, amount, who took it,
the provider's payment), the refund page says which payments the money goes back to, newest first, and
the ledger's own list is read-only; in English and German."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission, User
from django.utils import timezone

from payments import payment_updates, surcharges
from payments.models import Payment
from tests.payments import ledger_rows

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox")]


@pytest.fixture
def staff(client):
    user = User.objects.create_user("vera", password="pw", is_staff=True)
    codes = ["view_booking", "refund_booking", "view_payment", "add_payment", "change_payment"]
    user.user_permissions.set(Permission.objects.filter(codename__in=codes))
    client.force_login(user)
    return user


def ride(make_booking, **fields):
    values = {
        "name": "Anna Berger",
        "email": "anna@example.com",
        "distance_km": Decimal("21.8"),
        "duration_s": 1455,
        "pickup_at": timezone.now() + timedelta(days=3),
    }
    return make_booking(**{**values, **fields})


def test_the_booking_page_shows_the_payment_staff_took_and_who(client, staff, make_booking):
    booking = ride(make_booking)
    payment_updates.mark_paid(booking.pk, method="cash", user=staff, actor="vera")
    page = client.get(f"/admin/booking/booking/{booking.pk}/change/").content.decode()
    assert "ledger-payment" in page and "taken by staff" in page
    assert "marked by vera" in page and "74.00" in page
    german = client.get(f"/admin/booking/booking/{booking.pk}/change/", HTTP_ACCEPT_LANGUAGE="de")
    assert "vom Personal entgegengenommen" in german.content.decode()


def test_the_refund_page_lists_the_payments_newest_first(client, staff, make_booking):
    booking = ride(make_booking, status="paid", paid_at=timezone.now() - timedelta(hours=2))
    ledger_rows.paid_through_checkout(booking, "sbx_cs_1", "sbx_pi_1", provider="sandbox")
    surcharges.record_paid(booking, 1500, actor="vera", user=staff)
    page = client.get(f"/admin/booking/booking/{booking.pk}/refund/").content.decode()
    listed = page[page.index('id="refund-payments"') :]
    assert listed.index("taken by staff") < listed.index("checkout")  # the difference came last
    assert "15.00" in listed and "74.00" in listed
    german = client.get(f"/admin/booking/booking/{booking.pk}/refund/", HTTP_ACCEPT_LANGUAGE="de")
    assert "Geht an diese Zahlungen zurück, die neueste zuerst" in german.content.decode()


def test_the_ledger_list_shows_payments_and_nobody_edits_them(client, staff, make_booking):
    booking = ride(make_booking, status="paid", paid_at=timezone.now(), payment_intent_id="sbx_pi_7")
    payment = Payment.objects.get()
    listing = client.get("/admin/payments/payment/").content.decode()
    assert booking.reference in listing and "checkout" in listing
    assert client.get("/admin/payments/payment/add/").status_code == 403
    before = Payment.objects.values_list("amount_cents", "state").get()
    client.post(f"/admin/payments/payment/{payment.pk}/change/", {"amount_cents": 1, "state": "failed"})
    assert Payment.objects.values_list("amount_cents", "state").get() == before
    german = client.get("/admin/payments/payment/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Zahlungsseite" in german and "erhalten" in german
