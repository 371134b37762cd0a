"""Jobs declared in a tasks module that the work they run also imported now live beside that work (a module
no longer imports itself through others). Queued, failed and finished rows follow, so a job queued before
the deploy still runs and "run again" still finds its task."""

from django.db import migrations

MOVED = {
    "chauffeur.tasks.move_shared_version": "chauffeur.versions.move_shared_version",
    "dispatch.tasks.send_driver_reminder": "dispatch.reminders.send_driver_reminder",
    "payments.tasks.send_refund": "payments.refunds.send_refund",
    "payments.tasks.close_surcharge_page": "payments.surcharges.close_surcharge_page",
    "payments.tasks.give_back_late_payment": "payments.payment_updates.give_back_late_payment",
    "payments.tasks.send_collective_invoice": "payments.collective_invoices.send_collective_invoice",
    "booking.tasks.send_credit_note": "payments.mails.send_credit_note",
    "booking.tasks.send_invoice": "payments.mails.send_invoice",
}


def follow(moves):
    def rename(apps, schema_editor):
        jobs = apps.get_model("django_tasks_database", "DBTaskResult")
        for old, new in moves.items():
            jobs.objects.filter(task_path=old).update(task_path=new)

    return rename


class Migration(migrations.Migration):
    dependencies = [
        ("jobs", "0002_account_link_jobs_without_their_link"),
        ("django_tasks_database", "0021_conditional_partial_index_ordering"),
    ]

    operations = [
        migrations.RunPython(follow(MOVED), follow({new: old for old, new in MOVED.items()})),
    ]
