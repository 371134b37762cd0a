"""The shell blocks of the README and of the docs site (docs/**/*.md), run as a new user pastes them, so the
documentation cannot drift from the code.

The service is started the README's way (`make run`) on a free port and a throwaway SQLite; every ```sh
block then runs in a fresh `bash -euo pipefail` with a new login shell's environment: a system PATH, no
activated .venv, no project variable but `BASE`, the server's address. Blocks reach the server as
`${BASE:-http://127.0.0.1:8000}`, so they paste as written after `PORT=… make run` too and the test
rewrites no text. Blocks that cannot run here are listed in SKIPPED with the reason.
"""

import json
import os
import re
import signal
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from tests.processes import ROOT, free_port, wait_until_healthy

README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
DOCUMENTED_BASE = "${BASE:-http://127.0.0.1:8000}"  # how a block names the server; the test sets BASE

# Blocks that cannot run here, keyed by the start of their first line; any other block runs.
SKIPPED = {
    "make run ": "`make run` is the server this test runs against, and `make test` the suite running it",
    'echo "DJANGO_SECRET_KEY=': "docker compose needs a Docker daemon (and the block writes .env)",
    "make .venv/.installed-run": "production without containers needs PostgreSQL at host db, Redis at cache",
    "BENCH_DATABASE_URL=": "make bench loads servers for minutes and needs PostgreSQL, Redis and wrk",
    "pg_dump ": "a backup needs the production PostgreSQL (DATABASE_URL of the deployment)",
    "pg_restore ": "a restore needs the production PostgreSQL and writes over its database",
    "kubectl create namespace": "installing on Kubernetes needs a cluster (deploy/k8s is schema-checked instead)",
    "kubectl delete job": "a release on Kubernetes needs a cluster (deploy/k8s is schema-checked instead)",
}

# What a shell prints on stderr when a pasted command went wrong.
FAILURE = re.compile(r"start-up refused|traceback|not found|no such file|unbound variable|error", re.I)


@dataclass(frozen=True)
class Block:
    page: str  # README.md or docs/…, from the checkout's root
    line: int  # of its first command in that page
    script: str
    documented: str | None  # the ```json block right after it: the answer the page shows

    @property
    def first_line(self) -> str:
        return self.script.splitlines()[0]

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def documented_blocks() -> list[Block]:
    return [block for page in PAGES for block in page_blocks(page)]


def page_blocks(page) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    name = page.relative_to(ROOT).as_posix()
    blocks = []
    index = 0
    while index < len(lines):
        if lines[index] != "```sh":
            index += 1
            continue
        opening = index
        script, index = fenced(lines, opening)
        documented = None
        if index < len(lines) and lines[index] == "```json":
            documented, index = fenced(lines, index)
        blocks.append(Block(page=name, line=opening + 2, script=script, documented=documented))
    return blocks


def fenced(lines: list[str], opening: int) -> tuple[str, int]:
    """The text of the fenced block opening at `opening`, and the index of the line after its closing."""
    closing = lines.index("```", opening + 1)
    return "\n".join(lines[opening + 1 : closing]) + "\n", closing + 1


BLOCKS = documented_blocks()


def skip_reason(block: Block) -> str | None:
    return next((reason for start, reason in SKIPPED.items() if block.first_line.startswith(start)), None)


@dataclass(frozen=True)
class Server:
    port: int
    env: dict[str, str]  # what every block gets: a new login shell's, plus the server's database
    developers_database: tuple | None  # db.sqlite3 in the checkout before the run: (size, mtime) or absent


def developers_database() -> tuple | None:
    path = ROOT / "db.sqlite3"
    return (path.stat().st_size, path.stat().st_mtime_ns) if path.exists() else None


def fresh_shell(**env: str) -> dict[str, str]:
    """A new login shell: system PATH and HOME only (no .venv on PATH, no DJANGO_* or other project variable)."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.path.expanduser("~"), **env}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("readme")
    port = free_port()
    before = developers_database()
    # A throwaway database: the developer's db.sqlite3 and CI's PostgreSQL are never touched.
    env = fresh_shell(DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}")
    log = folder / "server.log"
    with log.open("w") as output:
        # runserver's autoreloader forks: a session of its own lets the whole group be stopped.
        process = subprocess.Popen(
            ["make", "run"],
            cwd=ROOT,
            env={**env, "PORT": str(port)},
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until_healthy(f"http://127.0.0.1:{port}", process, log, timeout=60)
        yield Server(port=port, env=env, developers_database=before)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def run(block: Block, server: Server) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block.script],
        cwd=ROOT,
        env={**server.env, "BASE": f"http://127.0.0.1:{server.port}"},
        capture_output=True,
        encoding="utf-8",
        timeout=60,
    )


def json_answers(output: str) -> list:
    """Every JSON document a block printed, in order (curl prints them back to back); other lines are skipped."""
    decoder = json.JSONDecoder()
    answers, index = [], 0
    while index < len(output):
        if output[index] in "{[":
            answer, index = decoder.raw_decode(output, index)
            answers.append(answer)
        elif output[index].isspace():
            index += 1
        else:
            newline = output.find("\n", index)
            index = len(output) if newline < 0 else newline + 1
    return answers


def documented_json(text: str):
    """A page's JSON, where `…` marks what it leaves out (`,…}` or `[…]`)."""
    return json.loads(re.sub(r"([\[{])\s*…\s*", r"\1", re.sub(r",\s*…", "", text)))


def assert_documented_keys(documented, answer, path: str = "answer") -> None:
    """Every key the page shows is answered, at every depth (lists: their first item)."""
    if isinstance(documented, dict):
        assert isinstance(answer, dict), f"{path}: the page shows an object, the server answered {answer!r}"
        missing = set(documented) - set(answer)
        assert not missing, f"{path}: the page shows {sorted(missing)}, which the server does not answer"
        for key, value in documented.items():
            assert_documented_keys(value, answer[key], f"{path}.{key}")
    elif isinstance(documented, list) and documented and answer:
        assert_documented_keys(documented[0], answer[0], f"{path}[0]")


def documented_tools() -> list[str]:
    """The tool names of the tools table (docs/agents/tools.md: `| name | scope |` rows)."""
    text = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
    return re.findall(r"^\| `([\w.]+)` \| booking\.\w+ \|", text, re.M)


# What a block's answers must be beyond its keys, keyed by a text only that block contains.
Promise = Callable[[Block, list, str, Server], None]
PROMISES: dict[str, Promise] = {}


def promise(marker: str) -> Callable[[Promise], Promise]:
    def register(check: Promise) -> Promise:
        PROMISES[marker] = check
        return check

    return register


def answers_as_documented(block: Block, answers: list, stdout: str, server: Server) -> None:
    assert answers == [documented_json(block.documented)]


for marker in (
    'price?vehicleClass=executive&distanceKm=20"',
    'price?vehicleClass=executive&distanceKm=21.8"',
    '/api/v1/rating"',
    "availability?pickupDatetime=",
    "calculate-distance?from=",
    "places?input=",
    "distanceKm=abc",
):
    promise(marker)(answers_as_documented)


@promise("bookingType=hourly")
def prices_in_the_comments(block, answers, stdout, server):
    promised = [float(price) for price in re.findall(r"# priceEur ([\d.]+)", block.script)]
    assert promised and [answer["priceEur"] for answer in answers] == promised


@promise("not 6000")
def legacy_amount_mismatch_as_in_the_comment(block, answers, stdout, server):
    assert answers == [json.loads(re.search(r"# 400 (\{.*\})", block.script)[1])]


@promise("Idempotency-Key: $(python3")
@promise("api/page/checkout")
@promise("""api/v1/checkout" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d @-""")
def checkout_opens_a_sandbox_page(block, answers, stdout, server):
    (booking,) = answers
    assert booking["status"] == "pending_payment"
    assert booking["url"] == f"http://127.0.0.1:{server.port}/booking/sandbox/{booking['sessionId']}"


@promise('/cancel"')
def the_booking_is_read_then_cancelled_by_its_customer(block, answers, stdout, server):
    read, cancelled = answers
    assert (read["status"], read["cancellation"]["allowed"], read["driver"]) == (
        "pending_payment",
        True,
        None,
    )
    assert (cancelled["reference"], cancelled["status"]) == (read["reference"], "cancelled")


@promise("get-session-data")
def session_data_of_the_new_session(block, answers, stdout, server):
    (data,) = answers
    assert data["bookingData"]["status"] == "pending_payment" and data["bookingData"]["amountCents"] == 7400


@promise("openapi.json")
def openapi_and_health_as_in_the_comments(block, answers, stdout, server):
    assert stdout.splitlines()[0] == re.search(r"# (\d+\.\d+\.\d+ \d+\.\d+\.\d+)$", block.script, re.M)[1]
    assert answers == [json.loads(re.search(r"healthz\"? +# (\{.*?\})", block.script)[1])]


@promise("mcp() {")
def the_mcp_session_succeeds_at_every_step(block, answers, stdout, server):
    for answer in answers:
        assert "result" in answer and "error" not in answer, answer
        assert answer["result"].get("isError", False) is False, answer
    assert [answer["id"] for answer in answers] == [1, 2, 3]
    assert "" in stdout.splitlines(), (
        "the notification is answered without a body: mcp() prints an empty line"
    )
    initialized, listed, priced = (answer["result"] for answer in answers)
    assert f'"serverInfo":{json.dumps(initialized["serverInfo"], separators=(",", ":"))}' in block.script
    assert sorted(tool["name"] for tool in listed["tools"]) == sorted(documented_tools())
    documented_price = re.search(r'"structuredContent":\{"priceEur":([\d.]+)', block.script)[1]
    assert priced["structuredContent"]["priceEur"] == float(documented_price)


@promise('"id":1,"method":"tools/list"')
def the_readme_lists_the_documented_tools(block, answers, stdout, server):
    (listed,) = answers
    assert sorted(tool["name"] for tool in listed["result"]["tools"]) == sorted(documented_tools())


@promise("mcp2026() {")
def the_2026_session_needs_no_handshake(block, answers, stdout, server):
    discovered, priced = (answer["result"] for answer in answers)
    versions = re.search(r'"supportedVersions":(\[[^\]]*\])', block.script)[1]
    assert discovered["supportedVersions"] == json.loads(versions)
    assert discovered["resultType"] == priced["resultType"] == "complete"
    documented_price = re.search(r'"structuredContent":\{"priceEur":([\d.]+)', block.script)[1]
    assert (priced["isError"], priced["structuredContent"]["priceEur"]) == (False, float(documented_price))


def test_every_page_with_blocks_is_found():
    # The README and the docs site each hold runnable blocks: a path mistake would silently test nothing.
    pages = {block.page for block in BLOCKS}
    assert "README.md" in pages and any(page.startswith("docs/") for page in pages), pages


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_block_reaches_the_server_through_base(block):
    """A block names the server only as the default of BASE, so it pastes after `PORT=… make run` too."""
    if skip_reason(block):
        pytest.skip(f"{block} does not run against the test's server")
    assert "127.0.0.1:8000" not in block.script.replace(DOCUMENTED_BASE, ""), (
        f"{block}: write the address as {DOCUMENTED_BASE} (or BASE=${{BASE:-http://127.0.0.1:8000}} first)"
    )


def test_every_skip_and_promise_names_exactly_one_block():
    for start in SKIPPED:
        assert len([block for block in BLOCKS if block.first_line.startswith(start)]) == 1, start
    for marker in PROMISES:
        assert len([block for block in BLOCKS if marker in block.script]) == 1, marker


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_readme_block_runs_as_pasted(block, request):
    reason = skip_reason(block)
    if reason:
        syntax = subprocess.run(["bash", "-n", "-c", block.script], capture_output=True, text=True)
        assert syntax.returncode == 0, syntax.stderr
        pytest.skip(f"{block} is only syntax-checked: {reason}")

    server = request.getfixturevalue("server")  # started only when a block runs
    result = run(block, server)
    report = f"{block}:\n{block.script}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert result.returncode == 0, report
    assert not FAILURE.search(result.stderr), report
    answers = json_answers(result.stdout)
    if block.documented is not None:
        documented = documented_json(block.documented)
        assert answers, f"the page shows an answer, the block printed none\n{report}"
        assert set(answers[-1]) == set(documented), report
        assert_documented_keys(documented, answers[-1])
    for marker, check in PROMISES.items():
        if marker in block.script:
            check(block, answers, result.stdout, server)


def test_the_developers_database_is_untouched(server):
    # Runs after the blocks: the server and the blocks' manage.py commands used the throwaway database.
    assert developers_database() == server.developers_database


def test_the_readme_is_a_front_door_whose_links_lead_somewhere():
    # The manual lives in the docs site (whose strict build checks its own links); the README stays short,
    # and its links into docs/ are checked here, as mkdocs never reads the README.
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300, "README.md is the front door: move the details into docs/"
    targets = re.findall(r"\]\(((?!https?://|#)[^)#\s]+)(?:#[^)]*)?\)", text)
    assert any(target.startswith("docs/") for target in targets)
    missing = [target for target in targets if not (ROOT / target).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"
