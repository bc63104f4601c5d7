#!/usr/bin/env bash
# `make bench`: throw-away PostgreSQL and Redis (as for the tests), a freshly migrated
# database, the measurements of bench/run.py, then everything removed again.
#   BENCH_PAIRS=20000 scripts/run_bench.sh     # a smaller run; see bench/README.md
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/system_deps.sh
dir=$(mktemp -d /tmp/arbiter-bench.XXXXXX)
cleanup() { scripts/test_services.sh stop "$dir"; rm -rf "$dir"; }
trap cleanup EXIT
scripts/test_services.sh start "$dir"
# shellcheck disable=SC1091
source "$dir/env"
export ARBITER_VAR_DIR="$dir/var" BENCH_DIR="$dir/data"
export DEBUG=false CELERY_TASK_ALWAYS_EAGER=true DJANGO_SETTINGS_MODULE=config.settings
.venv/bin/python manage.py migrate --noinput >/dev/null
.venv/bin/python -m bench.run
.venv/bin/python -m bench.agreement
.venv/bin/python -m bench.export
.venv/bin/python -m bench.judge
