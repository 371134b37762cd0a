"""gunicorn's threaded worker (keep-alive) with a per-request deadline of our own.

A gthread worker's main loop keeps telling the arbiter it is alive while a request hangs, so gunicorn's
`timeout` never ends that request. Here a watchdog thread per worker does: a request still running
`timeout` seconds after it started is

1. interrupted: WorkerTimeout is raised into its thread. Running Python code, the request unwinds through
   Django's and DRF's handlers, answers in its surface's format, and the thread serves the next request;
2. answered by the watchdog, when the thread is still blocked a moment later (a socket read, a libpq connect:
   C code, where no exception arrives). The watchdog writes the same answer handler500 writes, closes that
   connection, and recycles the worker: it stops accepting, lets its other requests finish (at most
   graceful_timeout) and exits, and the arbiter starts a fresh one. A thread stuck in C cannot be freed.

Each request claims its answer under one lock when its headers go out (start_response), and the watchdog
claims it under the same lock before writing: exactly one of them answers. A stuck thread that wakes up
later writes into a connection already shut down, which fails like a client that went away."""

import contextlib
import ctypes
import errno
import io
import os
import socket
import threading
import time

from gunicorn.workers.gthread import ThreadWorker

STUCK_GRACE = 1.0  # seconds an interrupted request has to answer before the watchdog answers for it
# Two prototypes of one C function: raise an exception class in a thread, or (NULL) clear a pending one.
_raise_in = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(
    ("PyThreadState_SetAsyncExc", ctypes.pythonapi)
)
_clear_in = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p)(
    ("PyThreadState_SetAsyncExc", ctypes.pythonapi)
)


class WorkerTimeout(Exception):
    """Raised into a request that outlived `timeout` (e.g. a database that stopped answering mid-query)."""


RUNNING, INTERRUPTED, ANSWERING, TIMED_OUT = range(4)


class InFlight:
    """One request a thread is serving, as the watchdog sees it."""

    __slots__ = ("conn", "environ", "interrupted_at", "started", "state", "thread_id")

    def __init__(self, thread_id: int, conn, started: float, req) -> None:
        self.thread_id = thread_id
        self.conn = conn  # gunicorn's TConn
        self.started = started
        self.environ: dict = {"REQUEST_METHOD": req.method, "PATH_INFO": req.path}  # the app's, once it runs
        self.state = RUNNING
        self.interrupted_at = 0.0


class DeadlineThreadWorker(ThreadWorker):
    def init_process(self) -> None:
        self.deadline = float(self.cfg.timeout or 0)
        self.in_flight: dict[int, InFlight] = {}  # by thread id: a thread serves one request at a time
        self.claims = threading.Lock()
        self.abandoned: set[int] = set()  # ids of connections the watchdog answered for a stuck thread
        self.recycling = False
        if self.deadline:
            tick = min(0.5, self.deadline / 10)
            threading.Thread(target=self.watch, args=(tick,), name="deadline", daemon=True).start()
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        app = self.wsgi

        def claiming(environ, start_response):
            request = self.in_flight.get(threading.get_ident())
            if request is None:  # HTTP/2 streams are not watched
                return app(environ, start_response)
            request.environ = environ

            def start_response_once(status, headers, exc_info=None):
                with self.claims:
                    if request.state == TIMED_OUT:  # the watchdog answered already
                        raise WorkerTimeout("answered by the request deadline")
                    request.state = ANSWERING
                return start_response(status, headers, exc_info)

            return app(environ, start_response_once)

        self.wsgi = claiming

    def handle(self, conn):
        try:
            return super().handle(conn)
        except WorkerTimeout:  # raised into the thread just as its request ended: nothing left to answer
            return False

    def handle_request(self, req, conn):
        thread_id = threading.get_ident()
        request = InFlight(thread_id, conn, time.monotonic(), req)
        self.in_flight[thread_id] = request
        try:
            return super().handle_request(req, conn)
        finally:
            with self.claims:
                del self.in_flight[thread_id]
                if request.interrupted_at:  # an exception still pending would hit the next request
                    _clear_in(thread_id, None)

    def handle_error(self, req, client, addr, exc):
        if isinstance(exc, WorkerTimeout):  # the watchdog answered, or the request was cut before the app
            self.log.debug("Request deadline: no second answer (%s)", exc)
            return
        super().handle_error(req, client, addr, exc)

    def finish_request(self, conn, fs):
        if id(conn) in self.abandoned:  # counted out and answered already; its thread woke up at last
            self.abandoned.discard(id(conn))
            return
        super().finish_request(conn, fs)

    def watch(self, tick: float) -> None:
        while True:
            time.sleep(tick)
            try:
                self.enforce_deadlines(time.monotonic())
            except Exception:
                self.log.exception("request deadline watchdog failed")

    def enforce_deadlines(self, now: float) -> None:
        stuck: list[InFlight] = []
        with self.claims:
            for request in list(self.in_flight.values()):
                if request.state == RUNNING and now - request.started > self.deadline:
                    request.state, request.interrupted_at = INTERRUPTED, now
                    _raise_in(request.thread_id, WorkerTimeout)
                elif request.state == INTERRUPTED and now - request.interrupted_at > STUCK_GRACE:
                    request.state = TIMED_OUT
                    stuck.append(request)
                elif request.state == ANSWERING and now - request.started > self.deadline + STUCK_GRACE * 2:
                    # Headers out, body stuck (a client that stopped reading): end it, as the sync worker's
                    # kill would; the blocked send fails and frees the thread.
                    request.state = TIMED_OUT
                    _shutdown(request.conn.sock)
        for request in stuck:
            self.answer_for(request, now)

    def answer_for(self, request: InFlight, now: float) -> None:
        path = request.environ.get("PATH_INFO", "?")
        self.log.error(
            "Request deadline: %s %s still blocked %.1f s after it started (timeout %s s); answered for "
            "it, recycling the worker",
            request.environ.get("REQUEST_METHOD", "?"),
            path,
            now - request.started,
            self.cfg.timeout,
        )
        sock = request.conn.sock
        try:
            sock.settimeout(STUCK_GRACE)  # a client that does not read cannot hold the watchdog
            sock.sendall(deadline_answer(request.environ))
        except OSError as error:
            if error.errno not in (errno.EPIPE, errno.ECONNRESET, None):
                self.log.warning("Request deadline: the answer to %s could not be sent: %s", path, error)
        except Exception:
            self.log.exception("Request deadline: no answer for %s", path)
        _shutdown(sock)
        self.method_queue.defer(self.recycle, request.conn)

    def recycle(self, conn) -> None:
        """On the main thread: count the answered connection out (so the graceful stop does not wait for
        its thread), stop accepting, and exit once the other requests are done."""
        self.abandoned.add(id(conn))
        self.nr_conns -= 1
        self.recycling = True
        self.alive = False

    def run(self) -> None:
        super().run()
        if self.recycling:
            # A thread still blocked in C would keep the interpreter from exiting; nothing of it is needed.
            self.log.info("Worker recycled after a request deadline (pid: %s)", self.pid)
            _flush_logs(self.log)
            os._exit(0)


def deadline_answer(environ: dict) -> bytes:
    """The answer handler500 gives that path (problem+json, JSON-RPC, legacy JSON or the 500 page), as a
    complete HTTP/1.1 message that closes the connection."""
    from django.core.handlers.wsgi import WSGIRequest

    from chauffeur.views import server_error

    response = server_error(WSGIRequest({"wsgi.input": io.BytesIO(), **environ}))
    body = response.content
    response["Content-Length"] = str(len(body))
    response["Connection"] = "close"
    head = [f"HTTP/1.1 {response.status_code} {response.reason_phrase}"]
    head += [f"{name}: {value}" for name, value in response.items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def _shutdown(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)  # not close(): the stuck thread still holds the descriptor


def _flush_logs(log) -> None:
    for logger in (getattr(log, "error_log", None), getattr(log, "access_log", None)):
        for handler in getattr(logger, "handlers", ()):
            handler.flush()
