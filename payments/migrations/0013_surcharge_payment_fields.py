"""A price difference no longer copies its payment's provider ids and time: its payment in the ledger holds
the session of its page, the provider payment and when the money came (`Payment.received_at`). A page or a
payment that exists only as the price difference's fields becomes its payment row (a page waiting or
withdrawn, money received through it or taken by staff); a payment the fields say was received is received.
Backwards, the fields are written again from each price difference's payment."""

from django.conf import settings
from django.db import migrations


def forwards(apps, schema_editor):
    Payment, PaymentShare = apps.get_model("payments", "Payment"), apps.get_model("payments", "PaymentShare")
    Surcharge = apps.get_model("payments", "Surcharge")
    known = Surcharge.objects.exclude(provider_session_id=None, paid_at=None).select_related("booking")
    for surcharge in known.order_by("pk"):
        online = bool(surcharge.provider_session_id) or surcharge.method == "provider"
        payment = Payment.objects.filter(surcharge=surcharge).first()
        if payment is None:
            payment = Payment.objects.create(
                kind="link" if online else "staff",
                state="pending" if surcharge.status == "pending" else "cancelled",
                provider=settings.PAYMENT_PROVIDER if online else "",
                provider_session_id=surcharge.provider_session_id,
                amount_cents=surcharge.amount_cents,
                currency=surcharge.currency,
                surcharge=surcharge,
                recorded_by_id=None if online else surcharge.created_by_id,
            )
            Payment.objects.filter(pk=payment.pk).update(created_at=surcharge.created_at)
            PaymentShare.objects.create(
                payment=payment, booking=surcharge.booking, amount_cents=surcharge.amount_cents
            )
        if surcharge.paid_at is not None and payment.state != "received":
            payment.state, payment.received_at = "received", surcharge.paid_at
            payment.payment_intent_id = payment.payment_intent_id or surcharge.payment_intent_id
            payment.save(update_fields=["state", "received_at", "payment_intent_id"])


def backwards(apps, schema_editor):
    Payment = apps.get_model("payments", "Payment")
    for payment in Payment.objects.filter(surcharge__isnull=False).select_related("surcharge"):
        surcharge = payment.surcharge
        surcharge.provider_session_id = payment.provider_session_id
        surcharge.payment_intent_id = payment.payment_intent_id
        surcharge.paid_at = payment.received_at if payment.state == "received" else None
        surcharge.save(update_fields=["provider_session_id", "payment_intent_id", "paid_at"])


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0012_documents_move_to_invoicing"),
    ]

    operations = [
        migrations.RunPython(forwards, backwards),
        migrations.RemoveField(model_name="surcharge", name="paid_at"),
        migrations.RemoveField(model_name="surcharge", name="payment_intent_id"),
        migrations.RemoveField(model_name="surcharge", name="provider_session_id"),
    ]
