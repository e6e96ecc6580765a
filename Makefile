# Two entry points for a fresh machine (see README.md):
#   make run    set up .venv and play Эрудит-квартет on the keyboard (default config);
#               ARGS="-c config/own-game.toml" plays another game. The buzzer command is
#               .venv/bin/buzzer (it is not put on PATH).
#   make test   install what the tests need (system packages via apt, Python packages
#               into .venv), build the GPIO test kernel if it is not cached (once: about
#               20 min on 2 cores; tests/kernel/build.py) and run the whole test suite
#   make kernel build (or find) the GPIO test kernel only
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
# setuptools warns at every editable install that a folder named like the package (controller/,
# this project itself) may take precedence during imports: that is the point here, and the
# warning only hides what make run says next
PIP_QUIET = PYTHONWARNINGS=ignore

.PHONY: run test venv deps bench clean kernel

$(BIN)/buzzer: pyproject.toml
	$(PYTHON) -m venv $(VENV) || { echo "python3 -m venv failed: install python3-venv (apt-get install python3-venv)"; exit 1; }
	$(BIN)/pip install -q --upgrade pip
	$(PIP_QUIET) $(BIN)/pip install -q -e .
	touch $(BIN)/buzzer

venv: $(BIN)/buzzer

# make run ARGS="-c config/own-game.toml": options for `buzzer run`
run: venv
	$(BIN)/buzzer run $(ARGS)

deps:
	sh .ci/install-system-deps

kernel:
	$(PYTHON) tests/kernel/build.py

test: deps venv kernel
	$(PIP_QUIET) $(BIN)/pip install -q -e '.[test,keypad]'
	$(BIN)/python -m pytest -q -p no:cacheprovider tests

bench: deps venv
	$(BIN)/python benchmarks/run.py --quick

clean:
	rm -rf $(VENV) firmware_bridge/sim/build firmware_bridge/firmware/build
