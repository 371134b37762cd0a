"""The one operator profile, with a neutral name until staff enter the company's own."""

from django.db import migrations


def seed(apps, schema_editor):
    apps.get_model("company", "OperatorProfile").objects.get_or_create(
        id=1, defaults={"name": "Vienna Chauffeur"}
    )


class Migration(migrations.Migration):
    dependencies = [("company", "0001_initial")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
