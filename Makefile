# Quick start on a fresh machine:
#   make compare   installs keybench into .venv and runs the default side-by-side comparison
#   make test      installs keybench with its test tools into .venv and runs the tests
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.keybench-installed

.PHONY: compare smoke test test-fast lint docs docs-serve install system-packages clean

install: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	# An editable install leaves keybench's own modules uncompiled, and where
	# PYTHONDONTWRITEBYTECODE is set (as in many CI images) every keybench process would compile
	# them again: a quarter of a second of each start-up.
	$(PY) -m compileall -q src
	touch $@

compare: $(STAMP)
	$(VENV)/bin/keybench run

smoke: $(STAMP)
	$(VENV)/bin/keybench run --smoke

# Parallel: most tests wait on an emulator, a subprocess or Docker. More workers end sooner on
# an idle machine, and load a busy one past what some timing tests allow (see CONTRIBUTING.md).
TEST_WORKERS ?= 4
test: $(STAMP) system-packages
	$(PY) -m pytest -n $(TEST_WORKERS)

# The tests that need only Python and take milliseconds each: under a minute.
test-fast: $(STAMP)
	$(PY) -m pytest -m "not emulator and not docker and not browser and not wheel and not slow"

# The same checks as .pre-commit-config.yaml, configured in pyproject.toml.
lint: $(STAMP)
	$(VENV)/bin/ruff check src tests loadtests benchmarks docs
	$(VENV)/bin/mypy
	PYTHONPATH=src $(VENV)/bin/lint-imports

# The documentation site (mkdocs.yml, docs/): a strict build into site/, or served while you write.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict
docs-serve: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve

# From Debian's packages: Chromium for the report and web UI tests; docker.io (dockerd, which
# the tests start privately and stop by PID, see tests/dockerd.py) and busybox-static (for
# the locally built emulator images) for the Docker tests.
SYSTEM_PACKAGES := chromium:chromium dockerd:docker.io busybox:busybox-static
system-packages:
	@missing=""; for pair in $(SYSTEM_PACKAGES); do \
	  command -v $${pair%%:*} >/dev/null || missing="$$missing $${pair#*:}"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "make: the tests need Debian's$$missing: sudo apt-get install$$missing" >&2; exit 1; fi; fi

clean:
	rm -rf $(VENV) *.egg-info
