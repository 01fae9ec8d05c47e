# Quick start on a fresh machine:
#   make compare   installs keybench into .venv and runs the default side-by-side comparison
#   make test      installs keybench with its test tools into .venv and runs the tests
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.keybench-installed

.PHONY: compare smoke test install browser clean

install: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

compare: $(STAMP)
	$(VENV)/bin/keybench run

smoke: $(STAMP)
	$(VENV)/bin/keybench run --smoke

test: $(STAMP) browser
	$(PY) -m pytest

# The report test opens report.html in headless Chromium (Debian's package).
browser:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "make: the report test needs Chromium: sudo apt-get install chromium" >&2; exit 1; fi; }

clean:
	rm -rf $(VENV) *.egg-info
