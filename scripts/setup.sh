#!/usr/bin/env bash
# Makes the project runnable: npm packages, then redis-server, mosquitto and mosquitto_ctrl,
# PostgreSQL's initdb/pg_ctl/postgres (history), and the broker's device plugin.
# Idempotent and quick when everything is present. The Temporal CLI is installed on first use
# by scripts/temporal-cli.ts.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { echo "setup: $*"; }

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages (npm ci)"
  # Some npm releases write a lock file without other platforms' optional binaries (swc,
  # resolvers) and then refuse it in `npm ci`; `npm install` takes the same lock as it is.
  npm ci --no-audit --no-fund || {
    say "npm ci refused the lock file; installing with npm install from the same lock"
    npm install --no-audit --no-fund
  }
fi

# Installs Debian packages with apt-get, as root or through sudo; stops the setup when neither can.
apt_install() {
  local as_root
  if ! command -v apt-get >/dev/null 2>&1; then
    say "no apt-get here: install $* yourself" >&2
    exit 1
  elif [ "$(id -u)" -eq 0 ]; then as_root=(); elif command -v sudo >/dev/null 2>&1; then as_root=(sudo); else
    say "not root and no sudo: install $* yourself" >&2
    exit 1
  fi
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

missing=()
for tool in redis-server mosquitto mosquitto_ctrl; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "missing ${missing[*]}; installing redis-server, mosquitto and mosquitto-clients with apt-get"
  apt_install redis-server mosquitto mosquitto-clients
fi

# PostgreSQL (pin history): scripts/dev-servers/postgres.ts runs Debian's binaries from
# /usr/lib/postgresql/<version>/bin, which are not on PATH; PATH is the fallback.
has_postgres() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/postgres" ] && return 0
  done
  command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 && command -v postgres >/dev/null 2>&1
}
if ! has_postgres; then
  say "missing PostgreSQL (initdb, pg_ctl); installing Debian's postgresql with apt-get"
  apt_install postgresql
fi

# The browser tests drive Debian's Chromium through playwright-core (never a Playwright download).
if [ ! -x /usr/bin/chromium ]; then
  say "missing /usr/bin/chromium; installing Debian's chromium with apt-get"
  apt_install chromium
fi

# The cluster harness (npm run cluster, docs/cluster.md) balances its gateways with Debian's
# haproxy, as docker-compose.yml does (deploy/haproxy.cfg). Only the binary is used: the harness
# runs it itself; the package's own service is not started here.
if ! command -v haproxy >/dev/null 2>&1 && [ ! -x /usr/sbin/haproxy ]; then
  say "missing haproxy; installing Debian's haproxy with apt-get"
  apt_install haproxy
fi

# The broker plugin that logs devices in against Redis (docs/broker-credentials.md): built with
# gcc into .tools/ from deploy/mosquitto-plugin/, again only when its source is newer.
plugin_src=deploy/mosquitto-plugin/dds_device_auth.c
plugin_so=.tools/mosquitto/dds_device_auth.so
if [ ! -f "$plugin_so" ] || [ "$plugin_src" -nt "$plugin_so" ]; then
  if ! command -v gcc >/dev/null 2>&1 || [ ! -f /usr/include/mosquitto_broker.h ] || [ ! -f /usr/include/mosquitto.h ] ||
    [ ! -f /usr/include/hiredis/hiredis.h ] || [ ! -f /usr/include/cjson/cJSON.h ] || [ ! -f /usr/include/openssl/sha.h ]; then
    say "missing what the broker plugin builds with; installing gcc and the mosquitto, hiredis, cjson and openssl headers with apt-get"
    apt_install gcc libc6-dev mosquitto-dev libmosquitto-dev libhiredis-dev libcjson-dev libssl-dev
  fi
  say "building $plugin_so"
  mkdir -p .tools/mosquitto
  gcc -O2 -Wall -Wextra -Werror -fPIC -shared -o "$plugin_so" "$plugin_src" -lhiredis -lcjson -lcrypto
fi

say "ok"
