"""The booking page's on-account link jobs were queued with the signed confirmation URL beside the booking;
the job now signs it when it runs. Queued and finished jobs keep the booking only, so no link waits in the
job table (a job still to run mails a freshly signed one)."""

from django.db import migrations

TASK_PATH = "booking.tasks.send_account_link"


def drop_the_link(apps, schema_editor):
    jobs = apps.get_model("django_tasks_database", "DBTaskResult")
    for job in jobs.objects.filter(task_path=TASK_PATH).only("id", "args_kwargs").iterator():
        arguments = job.args_kwargs if isinstance(job.args_kwargs, dict) else {}
        args, kwargs = list(arguments.get("args") or []), dict(arguments.get("kwargs") or {})
        if len(args) < 2 and "url" not in kwargs:
            continue
        kwargs.pop("url", None)
        jobs.objects.filter(id=job.id).update(args_kwargs={"args": args[:1], "kwargs": kwargs})


class Migration(migrations.Migration):
    dependencies = [
        ("jobs", "0001_initial"),
        ("django_tasks_database", "0021_conditional_partial_index_ordering"),
    ]

    operations = [migrations.RunPython(drop_the_link, migrations.RunPython.noop)]
