"""`make audit`: Lighthouse on the traveller's booking page (/en/ and /de/), mobile and desktop, against the
project in production mode: gunicorn with DEBUG off, the static files collected and served by whitenoise
(hashed names, compressed copies, a year's cache headers). Prints the four category scores of each run and
exits non-zero when one is below 95; `--record` writes them to docs/lighthouse.md.

Lighthouse (pinned in tests/mcp_endpoint/node/package.json) runs on the Node 22 of that lockfile and drives
Debian's Chromium (CHROME_PATH, default /usr/bin/chromium)."""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from tests.processes import ROOT, free_port, gunicorn, manage

NODE_DIR = ROOT / "tests" / "mcp_endpoint" / "node"
NODE = NODE_DIR / "node_modules" / ".bin" / "node"
LIGHTHOUSE = NODE_DIR / "node_modules" / "lighthouse" / "cli" / "index.js"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
PAGES = ("/en/", "/de/")
FORMS = ("mobile", "desktop")
MINIMUM = 95
RECORD = ROOT / "docs" / "lighthouse.md"


def production_env(base: str, database: Path) -> dict[str, str]:
    return {
        "DJANGO_SECRET_KEY": "lighthouse-audit-secret-key-" + "x" * 40,
        "DJANGO_DEBUG": "false",
        "DATABASE_URL": f"sqlite:///{database}",
        "PUBLIC_BASE_URL": base,
        "PAYMENT_PROVIDER": "none",  # the pages render without a payment provider; nothing is paid here
    }


def run_lighthouse(url: str, form: str, output: Path) -> tuple[dict[str, int], dict]:
    command = [
        str(NODE),
        str(LIGHTHOUSE),
        url,
        "--quiet",
        "--output=json",
        f"--output-path={output}",
        f"--only-categories={','.join(CATEGORIES)}",
        "--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage",
    ]
    if form == "desktop":
        command.append("--preset=desktop")
    env = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")}
    finished = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    if finished.returncode != 0:
        sys.exit(f"Lighthouse failed on {url} ({form}):\n{finished.stderr[-3000:]}")
    report = json.loads(output.read_text())
    return {name: round(report["categories"][name]["score"] * 100) for name in CATEGORIES}, report


def failing_audits(report: dict) -> list[str]:
    """What pulled a category down: the scored audits that did not pass."""
    lines = []
    for name in CATEGORIES:
        for ref in report["categories"][name]["auditRefs"]:
            audit = report["audits"][ref["id"]]
            if ref["weight"] and audit["score"] is not None and audit["score"] < 1:
                lines.append(f"    {name}: {audit['id']} ({audit['score']}) {audit['title']}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", action="store_true", help="write the scores to docs/lighthouse.md")
    args = parser.parse_args()
    if not NODE.exists() or not LIGHTHOUSE.exists():
        sys.exit("Lighthouse is not installed: run `npm ci` in tests/mcp_endpoint/node (make audit does).")
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = production_env(base, tmp / "db.sqlite3")
        for step in (("migrate", "--noinput"), ("collectstatic", "--noinput", "--verbosity", "0")):
            done = manage(*step, **env)
            if done.returncode != 0:
                sys.exit(f"manage.py {step[0]} failed:\n{done.stdout}{done.stderr}")
        results = []
        with gunicorn(tmp, env, port=port):
            for path in PAGES:
                for form in FORMS:
                    scores, report = run_lighthouse(base + path, form, tmp / "report.json")
                    results.append((path, form, scores))
                    print(
                        f"{path:5} {form:8} " + "  ".join(f"{name} {scores[name]:3}" for name in CATEGORIES)
                    )
                    if min(scores.values()) < MINIMUM:
                        print("\n".join(failing_audits(report)))
    if args.record:
        RECORD.write_text(record(results), encoding="utf-8")
        print(f"Recorded in {RECORD.relative_to(ROOT)}")
    low = [(path, form) for path, form, scores in results if min(scores.values()) < MINIMUM]
    if low:
        print(f"Below {MINIMUM}: " + ", ".join(f"{path} {form}" for path, form in low))
        return 1
    print(f"Every category of every page scores at least {MINIMUM}.")
    return 0


def record(results: list) -> str:
    version = json.loads((NODE_DIR / "node_modules" / "lighthouse" / "package.json").read_text())["version"]
    rows = "\n".join(
        f"| `{path}` | {form} | " + " | ".join(str(scores[name]) for name in CATEGORIES) + " |"
        for path, form, scores in results
    )
    return f"""# Lighthouse scores

The traveller's booking page in production mode (gunicorn, DEBUG off, whitenoise with hashed, compressed
static files and a year's cache headers), measured by `make audit` (tests/lighthouse.py) with Lighthouse
{version} and Debian's Chromium on {datetime.now(ZoneInfo("Europe/Vienna")).date().isoformat()}. `make audit` fails when a category scores
below {MINIMUM}; `make audit RECORD=1` rewrites this table.

| Page | Form factor | Performance | Accessibility | Best practices | SEO |
|------|-------------|-------------|---------------|----------------|-----|
{rows}
"""


if __name__ == "__main__":
    sys.exit(main())
