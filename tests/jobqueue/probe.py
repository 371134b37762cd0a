"""A scheduled task for the test of one run at a time: notes when each run starts and ends."""

import os
import time

from django_tasks import task


@task()
def record_run() -> None:
    with open(os.environ["PROBE_FILE"], "a") as runs:
        started = time.time()
        time.sleep(1.5)  # longer than the schedule's interval: a second worker would start another run
        runs.write(f"{started} {time.time()} {os.getpid()}\n")
