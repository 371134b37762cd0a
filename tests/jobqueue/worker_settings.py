"""The project's settings with a probe schedule every second (tests/jobqueue/test_worker_process.py)."""

from config.settings import *  # noqa: F403

JOBS_SCHEDULES = {"tests.jobqueue.probe.record_run": 1}
JOBS_HEARTBEAT_SECONDS = 0.3
