"""The accessibility statement joins the legal texts: version 1 from the template in
operator_profile/legal_defaults.py, which staff complete in the admin like the other texts."""

from django.db import migrations, models
from django.utils import timezone

from operator_profile.legal_defaults import DEFAULTS


def publish_statement(apps, schema_editor):
    LegalText = apps.get_model("company", "LegalText")
    if not LegalText.objects.filter(kind="accessibility").exists():
        body_de, body_en = DEFAULTS["accessibility"]
        LegalText.objects.create(
            kind="accessibility", version=1, body_de=body_de, body_en=body_en, published_at=timezone.now()
        )


def withdraw_statement(apps, schema_editor):
    # Back before the statement its versions go: the shorter column could not hold their kind.
    apps.get_model("company", "LegalText").objects.filter(kind="accessibility").delete()


class Migration(migrations.Migration):
    dependencies = [("company", "0008_legal_details_on_one_line")]

    operations = [
        migrations.AlterField(
            model_name="legaltext",
            name="kind",
            field=models.CharField(
                choices=[
                    ("imprint", "Imprint"),
                    ("terms", "Terms and conditions"),
                    ("privacy", "Privacy notice"),
                    ("accessibility", "Accessibility statement"),
                ],
                max_length=20,
                verbose_name="text",
            ),
        ),
        migrations.RunPython(publish_statement, withdraw_statement),
    ]
