"""Each booking's own payment page becomes its payment in the ledger, which now holds the provider and the
session: waiting while the booking awaits its money, failed when the payment failed, else cancelled (the
page expired or the booking moved on without it). A page already paid is its received payment. Backwards,
the booking's provider and session are written again from those rows, and the rows that only stood for a
page are deleted; a booking never given a page gets the provider its method implies (the configured one
for a checkout whose page failed to open)."""

from django.conf import settings
from django.db import migrations

STATE_OF_PAGE = {"pending_payment": "pending", "payment_failed": "failed"}


def forwards(apps, schema_editor):
    Booking = apps.get_model("booking", "Booking")
    Payment, PaymentShare = apps.get_model("payments", "Payment"), apps.get_model("payments", "PaymentShare")
    pages = Booking.objects.filter(provider_session_id__isnull=False).order_by("pk")
    for booking in pages:
        if Payment.objects.filter(provider_session_id=booking.provider_session_id).exists():
            continue  # paid: its received payment has the session
        payment = Payment.objects.create(
            kind="checkout",
            state=STATE_OF_PAGE.get(booking.status, "cancelled"),
            provider=booking.payment_provider,
            provider_session_id=booking.provider_session_id,
            amount_cents=booking.amount_cents,
            currency=booking.currency,
        )
        Payment.objects.filter(pk=payment.pk).update(created_at=booking.created_at)
        PaymentShare.objects.create(payment=payment, booking=booking, amount_cents=booking.amount_cents)


def backwards(apps, schema_editor):
    Booking = apps.get_model("booking", "Booking")
    Payment, PaymentShare = apps.get_model("payments", "Payment"), apps.get_model("payments", "PaymentShare")
    pages = Payment.objects.filter(kind="checkout", surcharge__isnull=True, provider_session_id__isnull=False)
    for booking in Booking.objects.order_by("pk"):
        page = pages.filter(shares__booking=booking).order_by("-created_at", "-pk").first()
        if page is not None:
            booking.provider_session_id, booking.payment_provider = page.provider_session_id, page.provider
        elif booking.payment_method == "account":
            booking.payment_provider = "account"
        elif booking.payment_method != "checkout":
            booking.payment_provider = "none"
        else:
            booking.payment_provider = settings.PAYMENT_PROVIDER
        booking.save(update_fields=["provider_session_id", "payment_provider"])
    waiting = pages.exclude(state="received")
    PaymentShare.objects.filter(payment__in=waiting).delete()
    waiting.delete()


class Migration(migrations.Migration):
    dependencies = [
        ("booking", "0020_money_in_the_ledger"),
        ("payments", "0009_ledger_rows"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
