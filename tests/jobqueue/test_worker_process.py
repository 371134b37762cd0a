"""The worker as a real process (`manage.py run_worker`) against a database of its own and a fake mail
server on loopback: nothing here runs a job in the test process."""

import itertools
import signal

import requests

from tests.jobqueue.mailserver import wait_for
from tests.jobqueue.worker_processes import confirmation_jobs, paid_bookings, unfinished_jobs, worker
from tests.processes import gunicorn, manage


def test_a_confirmation_waits_for_the_mail_server_and_goes_out_when_it_returns(env, mail_server, tmp_path):
    paid_bookings(env, "down@example.com")
    with worker(env, tmp_path / "worker.log"):
        # Waiting for its next attempt, not lost: the job goes back to READY between attempts (sampled
        # until seen, as a one-second backoff may already have started the next attempt).
        failed_once = wait_for(
            lambda: [
                j
                for j in confirmation_jobs(env, "down@example.com")
                if j["attempts"] >= 1 and j["error"] and j["status"] == "READY"
            ],
            120,
            "a failed attempt waiting for the next",
        )
        assert "ConnectionRefusedError" in failed_once[0]["error"]
        mail_server.start()  # the mail server is back; nobody runs a command
        wait_for(lambda: mail_server.recorder.to("down@example.com"), 120, "the confirmation")
        wait_for(lambda: confirmation_jobs(env, "down@example.com")[0]["status"] == "SUCCESSFUL", 60, "done")
    assert mail_server.recorder.to("down@example.com") == [
        "Payment received for your booking " + mail_server.recorder.to("down@example.com")[0].split()[-1]
    ]


def test_a_worker_killed_mid_send_loses_nothing_and_sends_once(env, mail_server, tmp_path):
    mail_server.recorder.hold.set()  # the message waits for its answer: the worker is mid-send
    mail_server.start()
    paid_bookings(env, "killed@example.com")
    with worker(env, tmp_path / "first.log") as first:
        wait_for(mail_server.recorder.holding.is_set, 120, "the worker to be mid-send")
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
    mail_server.recorder.hold.clear()
    assert mail_server.recorder.to("killed@example.com") == []  # never answered 250: not delivered
    with worker(env, tmp_path / "second.log"):
        wait_for(lambda: mail_server.recorder.to("killed@example.com"), 120, "the confirmation, sent again")
        jobs = wait_for(
            lambda: (
                (found := confirmation_jobs(env, "killed@example.com"))
                and all(j["status"] == "SUCCESSFUL" for j in found)
                and found
            ),
            60,
            "the job to finish",
        )
    logs = "\n".join(log.read_text() for log in (tmp_path / "first.log", tmp_path / "second.log"))
    assert len(mail_server.recorder.to("killed@example.com")) == 1, logs
    # One job: the killed attempt, then the one that sent.
    assert [(j["status"], j["attempts"]) for j in jobs] == [("SUCCESSFUL", 2)], logs


def test_two_workers_never_send_the_same_mail_twice(env, mail_server, tmp_path):
    mail_server.start()
    emails = [f"guest{number}@example.com" for number in range(12)]
    paid_bookings(env, *emails)
    with worker(env, tmp_path / "a.log"), worker(env, tmp_path / "b.log"):
        wait_for(lambda: all(mail_server.recorder.to(email) for email in emails), 180, "every confirmation")
        wait_for(lambda: unfinished_jobs(env) == 0, 60, "the queue to empty")
    assert {email: len(mail_server.recorder.to(email)) for email in emails} == dict.fromkeys(emails, 1)


def test_a_job_failing_to_the_limit_is_kept_shown_in_the_admin_and_run_again_from_there(
    env, mail_server, tmp_path
):
    env = {**env, "JOBS_MAX_ATTEMPTS": "2"}
    paid_bookings(env, "failing@example.com")
    with worker(env, tmp_path / "worker.log"):
        (job,) = wait_for(
            lambda: [j for j in confirmation_jobs(env, "failing@example.com") if j["status"] == "FAILED"],
            120,
            "the job to fail for good",
        )
        assert job["attempts"] == 2
        staff = {
            "DJANGO_SUPERUSER_USERNAME": "staff",
            "DJANGO_SUPERUSER_EMAIL": "staff@example.com",
            "DJANGO_SUPERUSER_PASSWORD": "a-long-staff-password",
        }
        assert manage("createsuperuser", "--noinput", **env, **staff).returncode == 0
        with gunicorn(tmp_path, {**env, "DJANGO_DEBUG": "true"}, workers=1) as (base, _log):
            browser = requests.Session()
            browser.get(f"{base}/admin/login/", timeout=30)
            login = browser.post(
                f"{base}/admin/login/?next=/admin/",
                data={
                    "username": "staff",
                    "password": "a-long-staff-password",
                    "csrfmiddlewaretoken": browser.cookies["csrftoken"],
                },
                headers={"Referer": f"{base}/admin/login/"},
                timeout=30,
            )
            assert login.status_code == 200 and "/admin/login/" not in login.url
            listing = browser.get(f"{base}/admin/jobs/job/?status__exact=FAILED", timeout=30)
            assert listing.status_code == 200 and "ConnectionRefusedError" in listing.text
            page = browser.get(f"{base}/admin/jobs/job/{job['id']}/change/", timeout=30)
            assert page.status_code == 200 and "Traceback" in page.text
            assert mail_server.recorder.to("failing@example.com") == []

            mail_server.start()
            ran = browser.post(
                f"{base}/admin/jobs/job/",
                data={
                    "action": "run_again",
                    "_selected_action": job["id"],
                    "csrfmiddlewaretoken": browser.cookies["csrftoken"],
                },
                headers={"Referer": f"{base}/admin/jobs/job/"},
                timeout=30,
            )
            assert ran.status_code == 200
        wait_for(lambda: mail_server.recorder.to("failing@example.com"), 120, "the job run again")
    assert len(mail_server.recorder.to("failing@example.com")) == 1


def test_a_schedule_runs_once_at_a_time_across_two_workers(env, tmp_path):
    runs = tmp_path / "runs.txt"
    env = {**env, "DJANGO_SETTINGS_MODULE": "tests.jobqueue.worker_settings", "PROBE_FILE": str(runs)}
    with worker(env, tmp_path / "a.log"), worker(env, tmp_path / "b.log"):
        wait_for(lambda: runs.exists() and len(runs.read_text().splitlines()) >= 4, 120, "four runs")
    spans = sorted(tuple(map(float, line.split()[:2])) for line in runs.read_text().splitlines())
    overlaps = [(a, b) for a, b in itertools.pairwise(spans) if b[0] < a[1]]
    assert overlaps == []
