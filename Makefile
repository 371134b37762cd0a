# The two commands of the README: `make run` (serve on the embedded defaults) and `make test`; `make token`
# issues an API token for trying the token-guarded endpoints locally; `make bench` loads the project and its
# peers side by side (docs/benchmarks.md; needs PostgreSQL, Redis and wrk; not part of `make test`).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000

.PHONY: run test lint bench superuser token migrate clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-installs only when pyproject.toml changed, so a second `make run` starts at once.
$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed-run

run: export PUBLIC_BASE_URL ?= http://127.0.0.1:$(PORT)
run: $(VENV)/.installed-run
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

superuser: $(VENV)/.installed-run
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py createsuperuser

# The token alone on the last line, for TOKEN=$(make token | tail -1); migrates a fresh database first.
token: $(VENV)/.installed-run
	$(BIN)/python manage.py migrate --noinput --verbosity 0
	$(BIN)/python manage.py issue_token "local agent" --scope booking.read --scope booking.write

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: lint
	$(BIN)/python -m pytest

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache .ruff_cache .hypothesis
