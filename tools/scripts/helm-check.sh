#!/usr/bin/env bash
# `make helm-check`: helm lint --strict and helm template of deploy/helm/mainline with its own values and with
# each deploy/helm/mainline/ci/*.yaml, using the helm binary tools/scripts/helm.sh unpacks (no download, no
# cluster). `make test` needs none of this: tools/test/deploy/helm-chart.test.ts lints and renders the same.
set -uo pipefail
cd "$(dirname "$0")/../.."
chart=deploy/helm/mainline
# HELM: another helm command (tools/test/deploy/make-targets.test.ts checks this script's own logic with a stand-in).
helm=${HELM:-tools/scripts/helm.sh}

failed=0
check() {
  local what=$1
  shift
  if ! out=$("$helm" lint --strict "$chart" "$@" 2>&1); then
    echo "helm-check: lint failed for $what:" >&2
    echo "$out" >&2
    failed=$((failed + 1))
    return
  fi
  if ! out=$("$helm" template helm-check "$chart" "$@" 2>&1 >/dev/null); then
    echo "helm-check: template failed for $what:" >&2
    echo "$out" >&2
    failed=$((failed + 1))
    return
  fi
  echo "helm-check: $what: lint and template OK"
}

check "the chart's own values"
for values in "$chart"/ci/*.yaml; do
  check "$values" -f "$values"
done
[ "$failed" -eq 0 ] || { echo "helm-check: $failed failed" >&2; exit 1; }
