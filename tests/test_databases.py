"""The test databases of a `make test` run: copies of one template migrated once (tests/databases.py), and
nothing of them left on the database server when the run ends."""

import os
import subprocess
import sys
from urllib.parse import urlsplit

import psycopg
import pytest
from django.db import connection

from tests.databases import POSTGRES, beside_the_suites, template_folder
from tests.processes import ROOT


@pytest.mark.django_db
def test_under_make_test_this_database_is_a_copy_of_the_runs_template():
    folder = template_folder()
    if folder is None:
        pytest.skip("not under `make test`: pytest-django migrated this test database itself")
    assert (folder / f"tests-{connection.vendor}.migrated").exists()
    if connection.vendor == "postgresql":
        assert connection.settings_dict["NAME"] in (folder / POSTGRES).read_text().split()


def test_the_runs_template_and_copies_are_dropped_at_its_end(tmp_path):
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        pytest.skip("the suite runs on SQLite: its test databases live in memory and go with their process")
    server = beside_the_suites("postgres")
    names = [f"{urlsplit(url).path.lstrip('/')}_dropped_{suffix}" for suffix in ("template", "gw0")]
    with psycopg.connect(server, autocommit=True) as admin:
        for name in names:
            admin.execute(f'CREATE DATABASE "{name}"')
    (tmp_path / POSTGRES).write_text("".join(f"{name}\n" for name in names))

    run = subprocess.run(
        [sys.executable, "-m", "tests.databases", "drop", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )

    assert run.returncode == 0, run.stderr
    with psycopg.connect(server, autocommit=True) as admin:
        left = admin.execute("SELECT datname FROM pg_database WHERE datname = ANY(%s)", [names]).fetchall()
    assert left == []
