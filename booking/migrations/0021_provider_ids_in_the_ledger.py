from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("booking", "0020_money_in_the_ledger"),
        ("payments", "0010_checkout_pages_in_the_ledger"),
    ]

    operations = [
        # A default first, so that migrating back can add the column to existing rows again.
        migrations.AlterField(
            model_name="booking",
            name="payment_provider",
            field=models.CharField(default="", max_length=20, verbose_name="payment provider"),
        ),
        migrations.RemoveField(
            model_name="booking",
            name="payment_provider",
        ),
        migrations.RemoveField(
            model_name="booking",
            name="provider_session_id",
        ),
    ]
