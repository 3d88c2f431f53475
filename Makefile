# Every target sets itself up from a fresh clone: python3 and node/npm are all it needs.
# Stamp files inside .venv/, node_modules/ and static/vendor/ make a second run skip the installs
# until pyproject.toml, requirements.lock or package-lock.json change.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SERVE_STAMP := $(VENV)/.installed-serve
PY_STAMP := $(VENV)/.installed
NPM_STAMP := node_modules/.installed
VENDOR_STAMP := static/vendor/.installed
# Files from npm packages that the pages load, served as /static/vendor/<file name>.
VENDOR_FILES := node_modules/htmx.org/dist/htmx.min.js node_modules/uplot/dist/uPlot.iife.min.js node_modules/uplot/dist/uPlot.min.css
# The pages' entry modules, each bundled with what it imports and minified into static/bundle/<name> (one request
# a page, about half the bytes); the sources stay in static/js/ for the tests that import them one by one.
BUNDLE_ENTRIES := visualiser.js compare.js block_view.js train.js embed.js languages.js guide.js arithmetic.js dot.js
BUNDLE_STAMP := static/bundle/.built
PIP := $(BIN)/python -m pip --disable-pip-version-check --quiet
# The gettext catalogs (docs/translating.md): each messages.po compiled to the messages.mo the server reads
CATALOGS := $(wildcard locales/*/LC_MESSAGES/messages.po)
COMPILED_CATALOGS := $(CATALOGS:.po=.mo)

.PHONY: run test test-quick lint bench load setup messages

# The database is brought to the newest schema first; the storage tests migrate databases of their own.
# Serving needs the app's own dependencies only, not the test tools and torch that `make test` adds.
run: $(SERVE_STAMP) $(VENDOR_STAMP) $(BUNDLE_STAMP) $(COMPILED_CATALOGS)
	$(BIN)/precision-lab migrate
	$(BIN)/precision-lab serve

# Every test, spread over every core (each worker has its own test server and browser; the suite is bound by
# computation, about 20 minutes of CPU).
test: setup
	$(BIN)/pytest tests -n auto $(PYTEST_ARGS)

# The edit-test loop: every test not marked slow (a slow one is marked where it is written), on every core.
test-quick: setup
	$(BIN)/pytest tests -m "not slow" -n auto $(PYTEST_ARGS)

lint: $(PY_STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(PY_STAMP)
	$(BIN)/python -m bench

# A bounded load test of one real server on loopback; LOAD_SECONDS shortens its first phase (default 30).
load: $(PY_STAMP)
	$(BIN)/python -m bench.load

setup: $(PY_STAMP) $(VENDOR_STAMP) $(BUNDLE_STAMP) $(COMPILED_CATALOGS)

# Extracts every marked string (babel.cfg) into locales/messages.pot and merges it into each catalog: new strings
# arrive empty, changed ones marked fuzzy, both for a translator to fill (tests/unit/test_catalogs.py refuses either).
messages: $(SERVE_STAMP)
	$(BIN)/pybabel extract -F babel.cfg --project "Precision Lab" --version 0.1.0 --copyright-holder "Precision Lab" \
		--sort-by-file --width 120 -o locales/messages.pot .
	$(BIN)/pybabel update -i locales/messages.pot -d locales --width 120

# A catalog with an error (a placeholder lost, a plural form missing) stops the build here.
locales/%/LC_MESSAGES/messages.mo: locales/%/LC_MESSAGES/messages.po $(SERVE_STAMP)
	$(BIN)/pybabel compile --statistics -l $* -i $< -o $@

# The lock constrains every version (-c), so a pin of pyproject.toml that the lock contradicts fails, and
# each stamp installs only what its targets use: the app alone for serving; its dev and [torch] extras beside
# it for the tests, lint and benchmarks ([torch], so that `make test` runs the torch backend's tests).
$(SERVE_STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install -c requirements.lock -e .
	touch $@

$(PY_STAMP): $(SERVE_STAMP)
	$(PIP) install -c requirements.lock -e '.[dev,torch]'
	touch $@

$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

$(VENDOR_STAMP): $(NPM_STAMP) Makefile
	rm -rf static/vendor
	mkdir -p static/vendor
	cp $(VENDOR_FILES) static/vendor/
	touch $@

# Rebuilt whenever any module under static/js/ changes; the server uses the bundles only while this stamp is at
# least as new as every source module (app/web/platform/bundles.py), and the source modules otherwise. Beside them,
# the words each entry's script says (.words.json, which the server reads: app/web/platform/script_words.py),
# found in the modules esbuild's metafile says each entry imports, with babel.cfg's keywords.
$(BUNDLE_STAMP): $(NPM_STAMP) $(wildcard static/js/*.js) babel.cfg app/web/platform/script_words_build.py Makefile \
		| $(SERVE_STAMP)
	rm -rf static/bundle
	node_modules/.bin/esbuild $(addprefix static/js/,$(BUNDLE_ENTRIES)) --bundle --minify --format=esm \
		--log-level=warning --outdir=static/bundle --metafile=static/bundle/.meta.json
	$(BIN)/python -m app.web.platform.script_words_build static/bundle/.meta.json static/bundle/.words.json
	touch $@
