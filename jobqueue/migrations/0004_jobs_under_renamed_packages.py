"""Jobs under a new path: the project package's shared plumbing now lives in apikit/, and the assignment's
mails have one name each. Rows queued, failed or finished under a job's old path take its new one, so a job
queued before the deploy still runs and "run again" still finds it."""

from importlib import import_module

from django.db import migrations

MOVED = {
    "chauffeur.versions.move_shared_version": "apikit.versions.move_shared_version",
    "dispatch.tasks.send_assignment": "dispatch.tasks.send_assignment_with_job_link",
    "booking.tasks.send_assignment": "booking.tasks.send_assignment_without_job_link",
}

follow = import_module("jobqueue.migrations.0003_jobs_beside_their_work").follow


class Migration(migrations.Migration):
    dependencies = [
        ("jobs", "0003_jobs_beside_their_work"),
    ]

    operations = [
        migrations.RunPython(follow(MOVED), follow({new: old for old, new in MOVED.items()})),
    ]
