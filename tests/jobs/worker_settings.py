"""The project's settings with a probe schedule every second (tests/jobs/test_worker_process.py)."""

from chauffeur.settings import *  # noqa: F403

JOBS_SCHEDULES = {"tests.jobs.probe.record_run": 1}
JOBS_HEARTBEAT_SECONDS = 0.3
