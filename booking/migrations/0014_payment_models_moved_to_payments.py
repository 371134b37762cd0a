"""The payment models now belong to the `payments` app (its 0001 took them over): booking forgets them. Only
its state changes; the tables and their rows are the payments app's."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("booking", "0013_payment_tables_renamed"),
        ("payments", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="IdempotentCheckout"),
                migrations.DeleteModel(name="ProcessedPaymentEvent"),
                migrations.DeleteModel(name="Refund"),
                migrations.DeleteModel(name="Surcharge"),
            ],
            database_operations=[],
        ),
    ]
