"""Seed the lead-time policy of docs/decisions.md §5 (the model's defaults)."""

from django.db import migrations


def seed(apps, schema_editor):
    apps.get_model("booking", "LeadTimePolicy").objects.get_or_create(pk=1)


def unseed(apps, schema_editor):
    apps.get_model("booking", "LeadTimePolicy").objects.filter(pk=1).delete()


class Migration(migrations.Migration):
    dependencies = [("booking", "0001_initial")]
    operations = [migrations.RunPython(seed, unseed)]
