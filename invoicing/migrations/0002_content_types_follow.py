"""The moved documents' content types take the invoicing label, so staff permissions (in groups and on
users, `invoicing.view_invoice`) and the admin's log entries follow the models instead of pointing at a
label that no longer has them."""

from django.db import migrations

MOVED = ["invoice", "creditnote", "invoiceyear", "creditnoteyear", "collectiveinvoiceline"]


def relabel(source: str, target: str):
    def move(apps, schema_editor):
        content_types = apps.get_model("contenttypes", "ContentType")
        for model in MOVED:
            if not content_types.objects.filter(app_label=target, model=model).exists():
                content_types.objects.filter(app_label=source, model=model).update(app_label=target)

    return move


class Migration(migrations.Migration):
    dependencies = [
        ("invoicing", "0001_initial"),
        ("payments", "0012_documents_move_to_invoicing"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.RunPython(relabel("payments", "invoicing"), relabel("invoicing", "payments")),
    ]
