#!/usr/bin/env bash
# `make demo`'s server: the dev LLM server (so the demo judge works without an API key) in the
# background, then Django's runserver in the foreground; both stop together.
set -euo pipefail
cd "$(dirname "$0")/.."
host=${HOST:-127.0.0.1}
port=${PORT:-8000}
llm_port=${DEVLLM_PORT:-8765}
export DEVLLM_API_KEY=${DEVLLM_API_KEY:-dev-key}
.venv/bin/python -m workers.devllm --host 127.0.0.1 --port "$llm_port" &
llm=$!
trap 'kill $llm 2>/dev/null || true' EXIT
.venv/bin/python manage.py runserver "$host:$port"
