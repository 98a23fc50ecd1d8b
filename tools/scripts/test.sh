#!/usr/bin/env bash
# `make test`: every gate and every test, ending with the one line CI reads: "N passed, N failed".
# Gates (lint, proto freshness, type-check, ...) count as one check each, so a red gate shows in that line.
set -uo pipefail
cd "$(dirname "$0")/../.."

passed=0
failed=0
failures=()

gate() {
  local name=$1
  shift
  echo "== $name"
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures+=("$name")
  fi
}

gate "lint (eslint)" npx eslint --cache --cache-location node_modules/.cache/eslint .
gate "format (prettier)" npx prettier --check --log-level warn .
gate "proto up to date (buf lint + generate)" npm run --silent -w @mainline/proto check
gate "type-check (tsc -b)" npx tsc -b

summary=$(mktemp)
echo "== tests (mocha)"
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=("proto/test/**/*.test.ts" "contract/test/**/*.test.ts" "services/*/test/**/*.test.ts" "tools/test/**/*.test.ts" "tools/testing/test/**/*.test.ts")
MAINLINE_TEST_SUMMARY=$summary npx mocha --reporter tools/testing/reporters/summary-reporter.cjs "${specs[@]}"
mocha_status=$?
count() { node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))[process.argv[2]]))' "$summary" "$1"; }
if [ -s "$summary" ] && counts=$(count passed) && fails=$(count failed) && skipped=$(count skipped); then
  passed=$((passed + counts))
  failed=$((failed + fails))
  # mocha exits non-zero for a failure outside any test (a hook, an uncaught error) too.
  if [ "$fails" -eq 0 ] && [ $mocha_status -ne 0 ]; then
    failed=$((failed + 1))
    failures+=("mocha exited with status $mocha_status")
  fi
elif [ $mocha_status -ne 0 ]; then
  failed=$((failed + 1))
  failures+=("mocha did not run")
fi
# Every skipped test with its reason (skipBecause writes it into the title), so a reader can check each one.
[ -s "$summary" ] && node -e 'for (const t of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).skippedTests ?? []) console.log(`skipped: ${t}`)' "$summary"
rm -f "$summary"

[ ${#failures[@]} -eq 0 ] || echo "failed gates: ${failures[*]}"
echo "${passed} passed, ${failed} failed${skipped:+, ${skipped} skipped}"
[ "$failed" -eq 0 ]
