# Two commands matter:  `make run` (install, then serve the app at http://127.0.0.1:7860)
# and `make test` (install the test tools and Chromium, then run the whole suite).
# `make lint` runs ruff (rules in pyproject.toml) and vermin (Python 3.10 or older) as CI does.
# Installs are keyed on the requirements files' contents, so a second run starts at once.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV ?= .venv
PY := $(VENV)/bin/python
# torch 2.13.0 is the CPU build we test with (on these machines it lies on local disk);
# installed before the requirements so their torch range is already met and pip does not
# fetch a multi-GB CUDA build of the newest release.
TORCH ?= torch==2.13.0
CHROMIUM ?= /usr/bin/chromium
PYTEST_ARGS ?=

RUN_HASH := $(firstword $(shell cat requirements.txt | cksum))
DEV_HASH := $(firstword $(shell cat requirements.txt requirements-dev.txt | cksum))
RUN_STAMP := $(VENV)/.installed-run-$(RUN_HASH)
DEV_STAMP := $(VENV)/.installed-dev-$(DEV_HASH)

.PHONY: run test lint bench cli-demo install install-dev chromium clean

run: $(RUN_STAMP)
	@if [ -f app.py ]; then $(PY) app.py; else $(MAKE) --no-print-directory cli-demo; fi

test: $(DEV_STAMP) chromium
	$(PY) -m pytest -q $(PYTEST_ARGS)

# ruff, and vermin: the app must run on Python 3.10 (ZeroGPU Spaces run 3.10.13), so no
# syntax, module or function of a later Python
lint: $(DEV_STAMP)
	$(PY) -m ruff check --no-cache .
	$(VENV)/bin/vermin --target=3.10- --no-tips --violations --eval-annotations playground app.py

bench: $(DEV_STAMP)
	$(PY) -m bench

# Train the tiny preset from the command line, then sample from the bundle it wrote.
cli-demo: $(RUN_STAMP)
	$(PY) -m playground train --preset tiny --out runs/tiny.zip
	$(PY) -m playground generate runs/tiny.zip --prompt "ROMEO:" --max_new_tokens 200

install: $(RUN_STAMP)
install-dev: $(DEV_STAMP)

$(PY):
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): | $(PY)
	@$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install "$(TORCH)" \
		|| echo "$(TORCH) is not available here; torch comes from requirements.txt instead."
	$(PY) -m pip install -r requirements.txt
	@rm -f $(VENV)/.installed-run-*
	@touch $@

$(DEV_STAMP): | $(RUN_STAMP)
	$(PY) -m pip install -r requirements-dev.txt
	@rm -f $(VENV)/.installed-dev-*
	@touch $@

# The browser tests drive Debian's Chromium (Playwright cannot download its own browser
# here). Without apt (macOS) or root rights this only warns: the browser tests then skip
# locally, and fail under CI, which sets CI=1.
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; else SUDO=none; fi; \
		if [ "$$SUDO" != none ] && command -v apt-get >/dev/null 2>&1; then \
			$$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y chromium; \
		else \
			echo "warning: $(CHROMIUM) is missing and cannot be installed here (needs apt-get and root);"; \
			echo "         the browser tests will be skipped (or fail under CI)."; \
		fi; \
	fi

clean:
	rm -rf $(VENV) .pytest_cache
