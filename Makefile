# Tower Companion: `make run` starts the app, `make test` passes every check.
# Both set up .venv in this repository first (and the system packages, when run as root).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

# Offscreen Kivy and no ~/.kivy for everything make runs on behalf of tests.
export KIVY_NO_ARGS := 1

.PHONY: all setup run test lint typecheck pytest parts previews deploy-check bench screenshots clean

all: test

setup: $(STAMP)

# Re-installs when the dependencies or the system package list change.
$(STAMP): pyproject.toml system-packages.txt scripts/system-packages.sh
	bash scripts/system-packages.sh
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m companion app

test: lint typecheck pytest parts deploy-check

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy companion

pytest: $(STAMP)
	$(PY) -m pytest

# Every printed part to hardware/stl/*.stl; any OpenSCAD warning or error fails.
parts: $(STAMP)
	bash hardware/render.sh stl hardware/stl

# PNG pictures of the parts under a virtual X server (not part of `make test`); copy the ones
# that changed to docs/parts/ by hand.
previews: $(STAMP)
	bash hardware/render.sh png hardware/previews

# shellcheck on every shell script, systemd-analyze verify on the unit, and a dry run of the
# Pi install script into a temporary root.
deploy-check: $(STAMP)
	bash deploy/check.sh

bench: $(STAMP)
	for b in benchmarks/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

# Every screen at the 7-inch size and a larger one, in English and German, into out/screenshots/.
screenshots: $(STAMP)
	for lang in en de; do for size in 800x480 1280x800; do \
		$(PY) -m companion.ui.screenshot_all out/screenshots --lang $$lang --size $$size >/dev/null || exit 1; \
	done; done
	ls out/screenshots

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache hardware/stl hardware/previews out
