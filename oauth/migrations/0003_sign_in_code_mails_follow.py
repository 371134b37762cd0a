"""The sign-in code's mail job moved from access.tasks to oauth.tasks: rows queued, failed or finished under
the old path take the new one, so a code asked for before the deploy is still mailed and "run again" still
finds its task."""

from importlib import import_module

from django.db import migrations

MOVED = {"access.tasks.send_sign_in_code": "oauth.tasks.send_sign_in_code"}

follow = import_module("jobqueue.migrations.0003_jobs_beside_their_work").follow


class Migration(migrations.Migration):
    dependencies = [
        ("oauth", "0002_content_types_follow"),
        ("jobs", "0004_jobs_under_renamed_packages"),
    ]

    operations = [
        migrations.RunPython(follow(MOVED), follow({new: old for old, new in MOVED.items()})),
    ]
