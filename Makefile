# The two commands of the README: `make run` (serve on the embedded defaults) and `make test`; `make token`
# issues an API token for trying the token-guarded endpoints locally; `make bench` loads the project and its
# peers side by side (docs/benchmarks.md; needs PostgreSQL, Redis and wrk; not part of `make test`).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000

.PHONY: run test lint docs bench audit superuser token migrate messages clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-installs only when pyproject.toml changed, so a second `make run` starts at once.
$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,docs]'
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

# The outside MCP clients (TypeScript SDKs, Inspector, conformance suite, Node 22) and axe-core (the
# browser tests' accessibility checks) from their lockfile.
# Without npm the tests that need them are skipped, each printing why.
NODE_CLIENTS := tests/agents/node
$(NODE_CLIENTS)/node_modules/.installed: $(NODE_CLIENTS)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		cd $(NODE_CLIENTS) && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.installed; \
	else echo "npm is not on the PATH: the Node MCP client tests (tests/agents/test_node_clients.py) and the axe-core checks will be skipped"; fi

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: lint docs $(NODE_CLIENTS)/node_modules/.installed
	$(BIN)/python -m pytest

# The docs site (mkdocs.yml, docs/): the OpenAPI document written from the code for the REST reference, then
# a strict build into site/ (a broken link or anchor fails). The stamp rebuilds only when a page, the
# config or Python code changed, so CI's second `make test` does not build it again.
DOCS_SOURCES := mkdocs.yml pyproject.toml $(shell find docs -type f -not -path docs/api/openapi.json) \
	$(shell find . \( -path ./.venv -o -path ./.git -o -path ./tests -o -path ./site -o -path ./docs \
		-o -name node_modules \) -prune -o -name '*.py' -print)
site/.built: $(VENV)/.installed-test $(DOCS_SOURCES)
	$(BIN)/python manage.py spectacular --format openapi-json --validate --file docs/api/openapi.json
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict
	touch $@

docs: site/.built

# After changing a translated text: collect the messages (GNU gettext's xgettext), translate the new
# ones in locale/de/LC_MESSAGES/django.po, then compile; commit both files (a clean clone needs no gettext).
messages: $(VENV)/.installed-test
	$(BIN)/python manage.py makemessages -l de --no-location --ignore=.venv --ignore=tests --ignore=artifacts
	$(BIN)/python -c "import polib; polib.pofile('locale/de/LC_MESSAGES/django.po').save_as_mofile('locale/de/LC_MESSAGES/django.mo')"

# Lighthouse on /en/ and /de/ (mobile and desktop) against gunicorn in production mode; fails below 95 in
# any category (tests/lighthouse.py). `make audit RECORD=1` also writes the scores to docs/lighthouse.md.
# About a minute; not part of `make test`.
audit: $(VENV)/.installed-test $(NODE_CLIENTS)/node_modules/.installed
	$(BIN)/python -m tests.lighthouse $(if $(RECORD),--record)

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) $(NODE_CLIENTS)/node_modules db.sqlite3 staticfiles artifacts site docs/api/openapi.json .pytest_cache .ruff_cache .hypothesis
