# Arbiter. `make demo` runs the platform on SQLite with eager Celery; `make test` runs the
# suite against real PostgreSQL, Redis and Chromium; `make bench` measures the speed goals.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: demo test bench lint format migrate clean

$(BIN)/.installed: requirements.txt requirements-dev.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements-dev.txt
	touch $@

venv: $(BIN)/.installed

demo: venv
	mkdir -p var
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_demo
	HOST=$(HOST) PORT=$(PORT) scripts/run_demo.sh

test: venv
	scripts/run_tests.sh $(PYTEST_ARGS)

bench: venv
	scripts/run_bench.sh

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: venv
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf var $(VENV)
