# Every target creates or reuses .venv and installs what it needs, so each one works as the
# first command on a fresh machine.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
TRAIN  := $(VENV)/.installed-train

.PHONY: demo test lint typecheck pytest bench firmware system-deps decks clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

# the training extra (torch CPU, onnx): the tests dry-run the training recipes on it
$(TRAIN): $(STAMP)
	$(PY) -m pip install -q -e '.[dev,train]'
	touch $(TRAIN)

system-deps:
	bash scripts/system-deps.sh

# training designs from the npm registry (data/decks/, git-ignored; models/decks/ is committed)
# npm comes with Node.js where it is installed (NodeSource's nodejs conflicts with Debian's npm
# package, so npm is not in debian-packages.txt); elsewhere Debian's npm is installed here
decks: $(STAMP) system-deps
	@command -v npm >/dev/null || (apt-get update -q && apt-get install -y -q --no-install-recommends npm)
	$(PY) scripts/build_decks.py --npm

demo: $(STAMP) system-deps
	$(PY) -m tablescan demo

lint: $(STAMP)
	$(PY) -m ruff format --check .
	$(PY) -m ruff check .

typecheck: $(STAMP)
	$(PY) -m mypy engine vision firmware_bridge dashboard evidence tablescan models hall fusion

# two workers, a module's tests on one (its module fixtures, its Chromium, built once)
pytest: $(TRAIN) system-deps firmware
	$(PY) -m pytest -n 2 --dist loadscope

test: lint typecheck pytest

bench: $(STAMP) system-deps
	@set -e; for f in bench/bench_*.py; do echo "== $$f"; $(PY) $$f; done

firmware: system-deps
	@if [ -f firmware_bridge/firmware/Makefile ]; then $(MAKE) -C firmware_bridge/firmware; fi

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
