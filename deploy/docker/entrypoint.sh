#!/bin/sh
# Entry point of the one Mainline image: runs the service named by the first argument or by
# MAINLINE_SERVICE (set at build time with --build-arg SERVICE=..., or at run time).
set -eu
services="gateway queue-coordinator batch-runner flaky-analytics metrics webhooks"
service="${1:-${MAINLINE_SERVICE:-}}"
if [ $# -gt 0 ]; then shift; fi
for known in $services; do
  if [ "$service" = "$known" ]; then
    exec node --enable-source-maps "/app/services/$service/dist/src/main.js" "$@"
  fi
done
echo "mainline: unknown service '$service'; set MAINLINE_SERVICE to one of: $services" >&2
exit 64
