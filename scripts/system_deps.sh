#!/usr/bin/env bash
# Installs the Debian packages the test suite needs (PostgreSQL, Redis, Chromium) when they
# are missing. Needs root for apt-get; otherwise it says what to install and stops.
set -euo pipefail
missing=()
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
[ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ] || missing+=(postgresql)
command -v redis-server >/dev/null || missing+=(redis-server)
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v docker-compose >/dev/null || missing+=(docker-compose)  # validates docker-compose.yml
fc-list 2>/dev/null | grep -qi dejavu || missing+=(fonts-dejavu-core)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "Missing Debian packages: ${missing[*]}. Install them (sudo apt-get install ${missing[*]}) and retry." >&2
  exit 1
fi
echo "Installing ${missing[*]} ..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
