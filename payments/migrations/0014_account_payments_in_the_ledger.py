"""Each payment a company made on account becomes its payment in the ledger: received at the start of the day
the bank received it (Vienna), recorded by whoever recorded it, shared over its collective invoice's rides
(the oldest ride first, each up to what it still owes); the payment on account keeps only its invoice, its
payment and its note. Backwards, the amount, day and recorder are written back from those payments, which
are then deleted with their shares."""

from datetime import datetime, time
from zoneinfo import ZoneInfo

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import F

VIENNA = ZoneInfo("Europe/Vienna")


def forwards(apps, schema_editor):
    AccountPayment = apps.get_model("payments", "AccountPayment")
    Payment, PaymentShare = apps.get_model("payments", "Payment"), apps.get_model("payments", "PaymentShare")
    line_model = apps.get_model("invoicing", "CollectiveInvoiceLine")
    paid: dict[int, int] = {}  # booking pk → cents shared to it so far
    transfers = AccountPayment.objects.select_related("invoice").order_by("received_on", "created_at", "pk")
    for transfer in transfers:
        payment = Payment.objects.create(
            kind="account",
            state="received",
            amount_cents=transfer.amount_cents,
            currency=transfer.invoice.currency,
            recorded_by_id=transfer.recorded_by_id,
            received_at=datetime.combine(transfer.received_on, time.min, tzinfo=VIENNA),
        )
        Payment.objects.filter(pk=payment.pk).update(created_at=transfer.created_at)
        lines = line_model.objects.filter(invoice=transfer.invoice_id).order_by(
            F("booking__pickup_at").asc(nulls_last=True), "booking__reference"
        )
        cents = transfer.amount_cents
        for booking_id, gross in lines.values_list("booking_id", "gross_cents"):
            piece = min(cents, gross - paid.get(booking_id, 0))
            if piece > 0:
                PaymentShare.objects.create(payment=payment, booking_id=booking_id, amount_cents=piece)
                paid[booking_id] = paid.get(booking_id, 0) + piece
                cents -= piece
        transfer.payment = payment
        transfer.save(update_fields=["payment"])
    _checked_now(schema_editor)


def backwards(apps, schema_editor):
    AccountPayment = apps.get_model("payments", "AccountPayment")
    Payment, PaymentShare = apps.get_model("payments", "Payment"), apps.get_model("payments", "PaymentShare")
    for transfer in AccountPayment.objects.select_related("payment"):
        payment = transfer.payment
        transfer.amount_cents, transfer.recorded_by_id = payment.amount_cents, payment.recorded_by_id
        transfer.received_on = payment.received_at.astimezone(VIENNA).date()
        transfer.created_at, transfer.payment = payment.created_at, None
        transfer.save(update_fields=["amount_cents", "recorded_by", "received_on", "created_at", "payment"])
    on_account = Payment.objects.filter(kind="account")
    PaymentShare.objects.filter(payment__in=on_account).delete()
    on_account.delete()
    _checked_now(schema_editor)


def _checked_now(schema_editor) -> None:
    # PostgreSQL refuses to alter a table with foreign-key checks still pending from rows just written.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


class Migration(migrations.Migration):
    dependencies = [
        ("invoicing", "0001_initial"),
        ("payments", "0013_surcharge_payment_fields"),
    ]

    operations = [
        migrations.AlterField(
            model_name="payment",
            name="kind",
            field=models.CharField(
                choices=[
                    ("checkout", "checkout"),
                    ("link", "payment link (price difference)"),
                    ("staff", "taken by staff"),
                    ("account", "payment on account"),
                ],
                max_length=10,
                verbose_name="kind",
            ),
        ),
        # Nullable while the rows move, so that the way back can add them again to a table with rows.
        migrations.AlterField(
            model_name="accountpayment",
            name="amount_cents",
            field=models.PositiveIntegerField(null=True, verbose_name="amount (cents)"),
        ),
        migrations.AlterField(
            model_name="accountpayment",
            name="received_on",
            field=models.DateField(null=True, verbose_name="received on"),
        ),
        migrations.AddField(
            model_name="accountpayment",
            name="payment",
            field=models.OneToOneField(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="on_account",
                to="payments.payment",
                verbose_name="payment",
            ),
        ),
        migrations.RunPython(forwards, backwards),
        migrations.RemoveField(model_name="accountpayment", name="amount_cents"),
        migrations.RemoveField(model_name="accountpayment", name="received_on"),
        migrations.RemoveField(model_name="accountpayment", name="recorded_by"),
        migrations.RemoveField(model_name="accountpayment", name="created_at"),
        migrations.AlterField(
            model_name="accountpayment",
            name="payment",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="on_account",
                to="payments.payment",
                verbose_name="payment",
            ),
        ),
        migrations.AlterModelOptions(
            name="accountpayment",
            options={
                "ordering": ["payment__received_at", "pk"],
                "verbose_name": "payment on account",
                "verbose_name_plural": "payments on account",
            },
        ),
    ]
