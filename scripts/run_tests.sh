#!/usr/bin/env bash
# `make test`: real PostgreSQL and Redis on loopback for the whole pytest run, then gone.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/system_deps.sh
dir=$(mktemp -d /tmp/arbiter-test.XXXXXX)
cleanup() { scripts/test_services.sh stop "$dir"; rm -rf "$dir"; }
trap cleanup EXIT
scripts/test_services.sh start "$dir"
# shellcheck disable=SC1091
source "$dir/env"
export CHROMIUM_PATH=${CHROMIUM_PATH:-/usr/bin/chromium}
export ARBITER_VAR_DIR="$dir/var"
.venv/bin/python -m pytest "$@"
