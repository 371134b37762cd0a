"""The documents' mail jobs moved from payments to invoicing (mails, collective_invoices): rows queued, failed or finished
under the old path take the new one, so a document issued before the deploy is still mailed and "run again"
still finds its task."""

from importlib import import_module

from django.db import migrations

MOVED = {
    "payments.mails.send_credit_note": "invoicing.mails.send_credit_note",
    "payments.mails.send_invoice": "invoicing.mails.send_invoice",
    "payments.collective_invoices.send_collective_invoice": "invoicing.collective_invoices.send_collective_invoice",
}

follow = import_module("jobqueue.migrations.0003_jobs_beside_their_work").follow


class Migration(migrations.Migration):
    dependencies = [
        ("invoicing", "0002_content_types_follow"),
        ("jobs", "0004_jobs_under_renamed_packages"),
    ]

    operations = [
        migrations.RunPython(follow(MOVED), follow({new: old for old, new in MOVED.items()})),
    ]
