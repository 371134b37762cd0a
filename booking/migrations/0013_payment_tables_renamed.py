"""The payment models move to the `payments` app (issue 26): first their tables take the new app's names,
with every row (payments/migrations/0001_initial.py takes the models over, 0014 drops them here)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("booking", "0012_booking_accepted_terms"),
    ]

    operations = [
        migrations.AlterModelTable(name="refund", table="payments_refund"),
        migrations.AlterModelTable(name="surcharge", table="payments_surcharge"),
        migrations.AlterModelTable(name="processedpaymentevent", table="payments_processedpaymentevent"),
        migrations.AlterModelTable(name="idempotentcheckout", table="payments_idempotentcheckout"),
    ]
