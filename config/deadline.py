"""gunicorn's threaded worker (keep-alive) with a per-request deadline of our own.

A gthread worker's main loop keeps telling the arbiter it is alive while a request hangs, so gunicorn's
`timeout` never ends that request. Here a watchdog thread per worker does, without raising anything into
a request's thread (an exception that lands at an arbitrary bytecode can skip the rest of a `finally`, or
fire after a COMMIT and before its on_commit hooks). A request still running `timeout` seconds after it
started is

1. expired: its next database statement raises WorkerTimeout in its own thread, before the statement is
   sent. That is a point where any database error may already arise: an atomic block rolls back (its row
   locks go with it), the request answers in its surface's format, and the thread serves the next request;
2. answered by the watchdog, when it has not answered a moment later (blocked in C, such as a socket read
   or a libpq connect, or busy without a query). The watchdog cuts the thread's PostgreSQL connections, so
   nothing that thread does later can commit, writes the same answer handler500 writes, closes that client
   connection, and recycles the worker: it stops accepting, lets its other requests finish (at most
   graceful_timeout) and exits, and the arbiter starts a fresh one.

Each request claims its answer under one lock when its headers go out (start_response), and the watchdog
claims it under the same lock before writing: exactly one of them answers. A stuck thread that wakes up
later writes into a connection already shut down, which fails like a client that went away."""

import contextlib
import errno
import io
import os
import socket
import threading
import time

from gunicorn.http.errors import LimitRequestLine
from gunicorn.workers.gthread import ThreadWorker

STUCK_GRACE = 1.0  # seconds an expired request has to answer before the watchdog answers for it


class WorkerTimeout(Exception):
    """A request outlived `timeout`: raised in its own thread at its next database statement (and by the
    sync worker's abort hook)."""


RUNNING, EXPIRED, ANSWERING, TIMED_OUT = range(4)
# What Django's inner atomic blocks send on their way out: refusing a rollback to the savepoint would
# leave the inner block's writes for an outer block that catches the error to commit.
CLOSING = ("ROLLBACK TO SAVEPOINT ", "RELEASE SAVEPOINT ")


class InFlight:
    """One request a thread is serving, as the watchdog sees it."""

    __slots__ = ("conn", "environ", "expired_at", "started", "state", "thread_id")

    def __init__(self, thread_id: int, conn, started: float, req) -> None:
        self.thread_id = thread_id
        self.conn = conn  # gunicorn's TConn
        self.started = started
        self.environ: dict = {"REQUEST_METHOD": req.method, "PATH_INFO": req.path}  # the app's, once it runs
        self.state = RUNNING
        self.expired_at = 0.0


class DeadlineThreadWorker(ThreadWorker):
    def init_process(self) -> None:
        self.deadline = float(self.cfg.timeout or 0)
        self.in_flight: dict[int, InFlight] = {}  # by thread id: a thread serves one request at a time
        self.claims = threading.Lock()
        self.abandoned: set[int] = set()  # ids of connections the watchdog answered for a stuck thread
        self.databases: dict[int, list] = {}  # by thread id: the Django connections that thread opened
        self.recycling = False  # the main thread's
        self.recycle_asked = False  # the watchdog's
        self.answering = threading.Lock()  # held by the watchdog while it answers for stuck requests
        if self.deadline:
            tick = min(0.5, self.deadline / 10)
            threading.Thread(target=self.watch, args=(tick,), name="deadline", daemon=True).start()
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        from django.db.backends.signals import connection_created

        connection_created.connect(self.watch_database, weak=False, dispatch_uid="request-deadline")
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

    def handle_request(self, req, conn):
        thread_id = threading.get_ident()
        request = InFlight(thread_id, conn, time.monotonic(), req)
        self.in_flight[thread_id] = request
        try:
            return super().handle_request(req, conn)
        finally:
            with self.claims:
                del self.in_flight[thread_id]

    def watch_database(self, sender, connection, **kwargs) -> None:
        """connection_created, in the thread that opened it (Django's connections belong to one thread)."""
        if self.checkpoint not in connection.execute_wrappers:  # a reconnect keeps the wrapper's list
            # First, and so outermost: `with connection.execute_wrapper(...)` pops the list's last entry, and
            # may be the block in which this connection opened.
            connection.execute_wrappers.insert(0, self.checkpoint)
        opened = self.databases.setdefault(threading.get_ident(), [])
        if connection not in opened:
            opened.append(connection)

    def checkpoint(self, execute, sql, params, many, context):
        """Before each database statement: an expired request stops here, before anything is sent."""
        request = self.in_flight.get(threading.get_ident())
        if request is not None and request.state in (EXPIRED, TIMED_OUT) and not _closes_savepoint(sql):
            raise WorkerTimeout(f"request still running after its {self.cfg.timeout} s deadline")
        return execute(sql, params, many, context)

    def handle_error(self, req, client, addr, exc):
        if isinstance(exc, WorkerTimeout):  # the watchdog answered already
            self.log.debug("Request deadline: no second answer (%s)", exc)
            return
        if isinstance(exc, LimitRequestLine):  # beyond even gunicorn's line: JSON, not its HTML page
            self.log.info("Request line over %s bytes refused", self.cfg.limit_request_line)
            with contextlib.suppress(OSError):
                client.sendall(too_long_answer())
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
                    request.state, request.expired_at = EXPIRED, now
                elif request.state == EXPIRED and now - request.expired_at > STUCK_GRACE:
                    request.state = TIMED_OUT
                    stuck.append(request)
                elif request.state == ANSWERING and now - request.started > self.deadline + STUCK_GRACE * 2:
                    # Headers out, body stuck (a client that stopped reading): end it, as the sync worker's
                    # kill would; the blocked send fails and frees the thread.
                    request.state = TIMED_OUT
                    _shutdown(request.conn.sock)
        if stuck:
            with self.answering:
                self.answer_for(stuck, now)

    def answer_for(self, stuck: list[InFlight], now: float) -> None:
        for request in stuck:
            self.log.error(
                "Request deadline: %s %s still blocked %.1f s after it started (timeout %s s); answered for "
                "it, recycling the worker",
                request.environ.get("REQUEST_METHOD", "?"),
                request.environ.get("PATH_INFO", "?"),
                now - request.started,
                self.cfg.timeout,
            )
            self.cut_databases(request.thread_id)
        if not self.recycle_asked:
            # Stop accepting before the clients hear back, so that their next requests wait for a worker
            # with a free thread, not behind a stuck one. A later stuck request is left to the graceful stop.
            self.recycle_asked = True
            stopped = threading.Event()
            self.method_queue.defer(self.recycle, [request.conn for request in stuck], stopped)
            stopped.wait(STUCK_GRACE)
        for request in stuck:
            self.send_answer(request)

    def send_answer(self, request: InFlight) -> None:
        path = request.environ.get("PATH_INFO", "?")
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

    def cut_databases(self, thread_id: int) -> None:
        """Shut down the sockets of a stuck thread's PostgreSQL connections: a read it is blocked in fails,
        and so does any later COMMIT, so the server rolls its transaction back. shutdown() on a duplicate
        descriptor reaches the shared socket and frees nothing the thread still uses."""
        for connection in self.databases.get(thread_id, ()):
            raw = connection.connection
            if connection.vendor != "postgresql" or raw is None or raw.closed:
                continue
            try:
                with socket.socket(fileno=os.dup(raw.fileno())) as sock:
                    sock.shutdown(socket.SHUT_RDWR)
            except Exception as error:  # closed in between: nothing left to cut
                self.log.warning("Request deadline: a database connection could not be cut: %s", error)

    def recycle(self, conns: list, stopped: threading.Event) -> None:
        """On the main thread: count the answered connections out (so the graceful stop does not wait for
        their threads), stop accepting, and exit once the other requests are done."""
        self.abandoned.update(id(conn) for conn in conns)
        self.nr_conns -= len(conns)
        self.recycling = True
        self.alive = False
        self.set_accept_enabled(False)
        stopped.set()

    def run(self) -> None:
        super().run()
        if self.recycling:
            self.answering.acquire(timeout=10)  # an answer the watchdog is writing goes out first
            # A thread still blocked in C would keep the interpreter from exiting; nothing of it is needed.
            self.log.info("Worker recycled after a request deadline (pid: %s)", self.pid)
            _flush_logs(self.log)
            os._exit(0)


def deadline_answer(environ: dict) -> bytes:
    """The answer handler500 gives that path (problem+json, JSON-RPC, legacy JSON or the 500 page), as a
    complete HTTP/1.1 message that closes the connection."""
    from django.core.handlers.wsgi import WSGIRequest

    from config.views import server_error

    return _message(server_error(WSGIRequest({"wsgi.input": io.BytesIO(), **environ})))


def too_long_answer() -> bytes:
    """The 414 for a request line gunicorn would not read: its path unknown, so the API's problem+json."""
    from apikit.problems import problem_response
    from apikit.request_limits import too_long

    return _message(problem_response(too_long()))


def _message(response) -> bytes:
    """A Django response as a complete HTTP/1.1 message that closes the connection."""
    body = response.content
    response["Content-Length"] = str(len(body))
    response["Connection"] = "close"
    head = [f"HTTP/1.1 {response.status_code} {response.reason_phrase}"]
    head += [f"{name}: {value}" for name, value in response.items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def _closes_savepoint(sql) -> bool:
    return isinstance(sql, str) and sql.startswith(CLOSING)


def _shutdown(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)  # not close(): the stuck thread still holds the descriptor


def _flush_logs(log) -> None:
    for logger in (getattr(log, "error_log", None), getattr(log, "access_log", None)):
        for handler in getattr(logger, "handlers", ()):
            handler.flush()
