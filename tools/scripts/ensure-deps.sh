#!/usr/bin/env bash
# Installs what `make dev` and `make test` need on a fresh Debian machine with Node 20: npm packages from the
# lock file, the built web page, the nats-server Debian package (tests and `make dev` start their own servers
# from it), and chromium (the web page's browser tests drive it); it stops with a clear message when one of the
# last two cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/../.."

stamp=node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  echo "[setup] npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi

# The web page the gateway serves under / (web/dist, never committed): rebuilt when a source is newer than it.
page=web/dist/index.html
if [ ! -f "$page" ] || [ -n "$(find web/src web/index.html web/build.mjs package-lock.json -newer "$page" -print -quit)" ]; then
  echo "[setup] building the web page (web/dist)"
  npm run -s -w @mainline/web build
fi

if ! command -v "${NATS_SERVER_BIN:-nats-server}" >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] installing nats-server (Debian package)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server >/dev/null
  else
    echo "[setup] nats-server is missing. Install it with: sudo apt-get install -y nats-server" >&2
    exit 1
  fi
fi

tools/scripts/ensure-nats-server.sh

# promtool (Debian package prometheus) checks the metrics service's exposition text in its tests; without it
# they fall back to a JS parser, so a failed install only prints a note and never stops the build.
if ! command -v promtool >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] installing promtool (Debian package prometheus)"
    if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null; }; then
      echo "[setup] promtool could not be installed; metrics tests use their JS parser instead" >&2
    fi
  else
    echo "[setup] promtool is missing (metrics tests use their JS parser). Install it with: sudo apt-get install -y prometheus" >&2
  fi
fi

# Debian's chromium runs the web page's browser tests (playwright-core drives /usr/bin/chromium; nothing is
# downloaded by npm). Required: without it those tests fail, so a machine that cannot get it stops here and says why.
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] installing chromium (Debian package, for the web page's browser tests)"
    if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }; then
      echo "[setup] chromium could not be installed (apt-get install -y chromium failed); the browser tests need /usr/bin/chromium" >&2
      exit 1
    fi
  else
    echo "[setup] chromium is missing: the browser tests need /usr/bin/chromium. Install it with: sudo apt-get install -y chromium" >&2
    exit 1
  fi
fi
