"""What a customer owes beyond the price says why: a difference, waiting or a no-show (issue 21)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="surcharge",
            name="reason",
            field=models.CharField(
                choices=[
                    ("change", "price difference"),
                    ("waiting", "waiting time"),
                    ("no_show", "no-show fee"),
                ],
                default="change",
                max_length=10,
            ),
        ),
    ]
