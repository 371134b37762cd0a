"""Each pytest process's test database as a copy of one migrated once per `make test` run.

`make test` starts a pytest process for the tests that run one at a time and one per parallel worker, and each
would migrate a test database from nothing (several CPU seconds). With TEST_DATABASE_TEMPLATES naming a folder
those processes share (`make test` makes it), the first of them migrates a template there, under a lock, and
every process starts from a copy: SQLite's in-memory test database is loaded from the template's file, and a
PostgreSQL test database is created from the template database (CREATE DATABASE … TEMPLATE). pytest-django
keeps what it finds there (tests/conftest.py), so its `migrate` finds nothing to do; `python -m tests.databases
drop FOLDER` drops the PostgreSQL template and its copies when the run ends. Without the variable, pytest-django
migrates each database itself."""

import fcntl
import os
import sqlite3
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

FOLDER = "TEST_DATABASE_TEMPLATES"
POSTGRES = "postgres-databases"  # the file in the folder naming the template database, then each copy
_IN_MEMORY = []  # an in-memory SQLite database lives as long as a connection to it


def template_folder() -> Path | None:
    folder = os.environ.get(FOLDER)
    return Path(folder) if folder else None


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """One process at a time: a template is made once, and PostgreSQL copies a database nobody else reads."""
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def beside_the_suites(name: str) -> str:
    """The address of database `name` on the suite's PostgreSQL server (`postgres` to create and drop others)."""
    return urlunsplit(urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{name}"))


def migrated(folder: Path, name: str, database_url: str, **env: str) -> None:
    """`manage.py migrate` into `database_url` once per folder: `name` marks it done."""
    from tests.processes import manage

    done = folder / f"{name}.migrated"
    if done.exists():
        return
    run = manage("migrate", "--noinput", "--run-syncdb", DATABASE_URL=database_url, **env)
    assert run.returncode == 0, run.stdout + run.stderr
    done.touch()


def copy_into_test_database(folder: Path, connection) -> None:
    """Before pytest-django sets the test database up: a migrated copy where it will be."""
    test_name = connection.creation._get_test_db_name()
    with locked(folder):
        if connection.vendor == "sqlite":
            template = folder / "tests.sqlite3"
            migrated(folder, "tests-sqlite", f"sqlite:///{template}", DJANGO_SETTINGS_MODULE="tests.settings")
            copy = sqlite3.connect(test_name, uri=True)
            with sqlite3.connect(f"file:{template}?mode=ro", uri=True) as source:
                source.backup(copy)
            if connection.creation.is_in_memory_db(test_name):
                _IN_MEMORY.append(copy)
            else:
                copy.close()
            return
        template = f"{connection.settings_dict['NAME']}_template"
        with connection.creation._nodb_cursor() as cursor:
            if not (folder / POSTGRES).exists():
                cursor.execute(f'DROP DATABASE IF EXISTS "{template}"')  # left by a run that was killed
                cursor.execute(f'CREATE DATABASE "{template}"')
                (folder / POSTGRES).write_text(f"{template}\n")
        migrated(
            folder, "tests-postgresql", beside_the_suites(template), DJANGO_SETTINGS_MODULE="tests.settings"
        )
        with connection.creation._nodb_cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{test_name}"')
            cursor.execute(f'CREATE DATABASE "{test_name}" TEMPLATE "{template}"')
        with open(folder / POSTGRES, "a") as named:
            named.write(f"{test_name}\n")


@contextmanager
def server_database(tmp: Path, name: str) -> Iterator[str]:
    """A database of the suite's kind for a server a test starts: a SQLite file in `tmp`, or, when the suite
    runs on PostgreSQL, a database of its own beside the suite's, dropped afterwards."""
    suite_url = os.environ.get("DATABASE_URL", "")
    if not suite_url.startswith(("postgres://", "postgresql://")):
        yield f"sqlite:///{tmp}/{name}.sqlite3"
        return
    import psycopg

    database = f"{urlsplit(suite_url).path.lstrip('/') or 'postgres'}_{name}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(beside_the_suites("postgres"), autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{database}"')
    try:
        yield beside_the_suites(database)
    finally:
        with psycopg.connect(beside_the_suites("postgres"), autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


def drop(folder: Path) -> None:
    """The PostgreSQL template of a run and its copies, if it made them."""
    named = folder / POSTGRES
    if not named.exists():
        return
    import psycopg

    with psycopg.connect(beside_the_suites("postgres"), autocommit=True) as server:
        for name in named.read_text().split():
            server.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    command, folder = sys.argv[1:]
    assert command == "drop", f"usage: python -m tests.databases drop FOLDER, not {command}"
    drop(Path(folder))
