from django.conf import settings
from django.core.management.base import BaseCommand

from jobqueue.worker import Housekeeper, Worker, new_worker_id


class Command(BaseCommand):
    help = (
        "Run the background jobs (e-mails, provider follow-ups) and the schedules (reconciliation, "
        "re-sending confirmations). Run as many as you like; each job and each scheduled run happens once."
    )

    def add_arguments(self, parser):
        parser.add_argument("--batch", action="store_true", help="Run the jobs that are due, then exit.")

    def handle(self, *args, batch, verbosity, **options):
        worker_id = new_worker_id()
        housekeeper = Housekeeper(worker_id)
        housekeeper.tick()  # beat and start due schedules before the first job
        if not batch:
            housekeeper.start()
        self.stdout.write(f"Worker {worker_id} running jobs and schedules", self.style.SUCCESS)
        self.stdout.flush()
        worker = Worker(
            queue_names=["*"],
            excluded_queue_names=[],
            interval=settings.JOBS_POLL_SECONDS,
            batch=batch,
            backend_name="default",
            startup_delay=False,
            max_tasks=None,
            worker_id=worker_id,
        )
        worker.configure_signals()
        try:
            worker.run()
        finally:
            housekeeper.stopping.set()
