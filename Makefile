# Quick start on a fresh machine:
#   make compare   installs keybench into .venv and runs the default side-by-side comparison
#   make test      installs keybench with its test tools into .venv and runs the tests
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.keybench-installed

.PHONY: compare smoke test install clean

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

test: $(STAMP)
	$(PY) -m pytest

clean:
	rm -rf $(VENV) *.egg-info
