"""Version 1 of the imprint, the terms and the privacy notice, from the templates in company/legal_defaults.py,
so a fresh install shows real pages and a checkout has terms to accept. Staff complete them in the admin."""

from django.db import migrations
from django.utils import timezone

from operator_profile.legal_defaults import DEFAULTS


def publish_defaults(apps, schema_editor):
    LegalText = apps.get_model("company", "LegalText")
    for kind in ("imprint", "terms", "privacy"):  # the kinds of this time; later ones publish their own
        body_de, body_en = DEFAULTS[kind]
        if not LegalText.objects.filter(kind=kind).exists():
            LegalText.objects.create(
                kind=kind, version=1, body_de=body_de, body_en=body_en, published_at=timezone.now()
            )


class Migration(migrations.Migration):
    dependencies = [("company", "0005_operator_legal_details_and_legal_texts")]

    operations = [migrations.RunPython(publish_defaults, migrations.RunPython.noop)]
