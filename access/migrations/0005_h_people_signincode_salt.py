from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("access", "0004_oauth")]

    operations = [
        migrations.AddField(
            model_name="signincode",
            name="salt",
            field=models.CharField(blank=True, max_length=64),
        ),
    ]
