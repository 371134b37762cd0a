"""`make run`: the development server and a worker side by side, stopped together.

Each child runs in a session of its own (runserver's autoreloader forks, so the whole group is signalled);
Ctrl-C, SIGTERM or SIGHUP here, or either child ending, stops both. Usage: python -m config.devserver PORT
"""

import os
import signal
import subprocess
import sys
import time

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
GRACE_SECONDS = 20  # a job under way finishes; then the group is killed


def start(*args: str) -> subprocess.Popen:
    # Our own interpreter and manage.py, with fixed arguments: nothing untrusted reaches the command line.
    return subprocess.Popen([sys.executable, "manage.py", *args], start_new_session=True)  # noqa: S603


def stop(children: list[subprocess.Popen]) -> None:
    for child in children:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGINT)
    deadline = time.monotonic() + GRACE_SECONDS
    for child in children:
        try:
            child.wait(timeout=max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()


def main(port: str) -> int:
    stopping = []
    for number in STOP_SIGNALS:
        signal.signal(number, lambda signum, frame: stopping.append(signum))
    children = [start("runserver", f"127.0.0.1:{port}"), start("run_worker")]
    web, worker = children
    print(f"devserver: web pid {web.pid}, worker pid {worker.pid}; Ctrl-C stops both", flush=True)
    while not stopping and all(child.poll() is None for child in children):
        time.sleep(0.2)
    stop(children)
    return 0 if stopping else max(child.returncode or 0 for child in children) or 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "8000"))
