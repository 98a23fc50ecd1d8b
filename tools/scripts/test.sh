#!/usr/bin/env bash
# `make test` (the whole suite) and `make check` (--fast: the tests that start no process, no server and no git).
# Gates (lint, format, proto freshness, type-check) count as one check each, so a red gate shows in the last line,
# the one CI reads: "N passed, N failed" (", N skipped" may follow).
# Spec files or globs given as arguments run instead of the tier's own (no count floor then).
set -uo pipefail
shopt -s globstar nullglob
cd "$(dirname "$0")/../.."

tier=full
if [ "${1:-}" = "--fast" ]; then
  tier=fast
  shift
fi

passed=0
failed=0
failures=()

# The gates run at the same time (eslint and tsc each use one core; a clean clone spends minutes in them), each
# into its own log, printed in order once all have finished (report_gates).
gate_names=()
gate_logs=()
gate_pids=()
gate() {
  local name=$1 log
  shift
  log=$(mktemp)
  gate_names+=("$name")
  gate_logs+=("$log")
  (
    started=$SECONDS
    # Niced: a gate has no time limit, the tests do (a hook that starts a whole system), so on a loaded machine the
    # gates give way to them (a clean-clone CI run on a slow machine spent 676 s in eslint beside the tests).
    nice -n 10 "$@" >"$log" 2>&1
    echo "$? $((SECONDS - started))" >"$log.status"
  ) &
  gate_pids+=($!)
}

# MAINLINE_TEST_GATES=0 runs the tests alone (tools/testing/test/test-runner.test.ts checks the runner that way).
if [ "${MAINLINE_TEST_GATES:-1}" != 0 ]; then
  gate "type-check (tsc -b)" npx tsc -b
  # The type-check also builds every package's dist/. The whole suite's tests start hundreds of service, CLI and
  # dev-system processes; run compiled (@mainline/testing's nodeEntryArgs) each starts with half the CPU tsx takes
  # to compile its sources again, so the tests wait for the build, which has both cores to itself meanwhile (on a
  # clean clone it takes 25 s alone, 84 s beside eslint). A failed build leaves them on the sources.
  if [ $tier = full ]; then
    wait "${gate_pids[0]}"
    read -r status _ <"${gate_logs[0]}.status"
    [ "$status" -eq 0 ] && export MAINLINE_RUN_COMPILED=1
  fi
  gate "lint (eslint)" npx eslint --cache --cache-location node_modules/.cache/eslint .
  gate "format (prettier)" npx prettier --check --cache --log-level warn .
  [ $tier = full ] && gate "proto up to date (buf lint + generate)" npm run --silent -w @mainline/proto check
fi

# Printed (and counted) once the tests are done too: the gates run beside the tests, since on a clean clone eslint
# alone keeps one core busy for over a minute while the tests mostly wait on the processes they start.
report_gates() {
  [ ${#gate_names[@]} -gt 0 ] || return 0
  wait "${gate_pids[@]}" 2>/dev/null
  for i in "${!gate_names[@]}"; do
    read -r status seconds <"${gate_logs[$i]}.status"
    echo "== ${gate_names[$i]}: $seconds s"
    cat "${gate_logs[$i]}"
    if [ "$status" -eq 0 ]; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      failures+=("${gate_names[$i]}")
    fi
    rm -f "${gate_logs[$i]}" "${gate_logs[$i]}.status"
  done
}

# The tiers by file name, wherever the file lives: *.unit.test.ts start no process, no server and no git
# (tools/testing/hooks/fast-tier-guard.cjs fails one that does); every other *.test.ts may. The files are the
# checkout's own (tracked, or new and not ignored), so node_modules and dist never count and a moved folder
# needs no change here.
# A pattern that finds nothing is a mistake (a moved file, a typo), never a green run of fewer tests.
specs=()
if [ $# -eq 0 ]; then
  suffix=.test.ts
  [ $tier = fast ] && suffix=.unit.test.ts
  while IFS= read -r file; do
    [ -f "$file" ] && specs+=("$file")
  done < <(git ls-files --cached --others --exclude-standard -- "*$suffix" | sort -u)
  if [ ${#specs[@]} -eq 0 ]; then
    failed=$((failed + 1))
    failures+=("no test file matches *$suffix")
  fi
fi
for pattern in "$@"; do
  matched=0
  for file in $pattern; do
    specs+=("$file")
    matched=$((matched + 1))
  done
  if [ $matched -eq 0 ]; then
    failed=$((failed + 1))
    failures+=("no test file matches $pattern")
  fi
done

# At least this many tests (passed, failed or skipped) in the whole suite: the number stated in README.md's
# "Tests" section, so a test that silently stops running (a dropped file, a describe that never registers) fails.
# A subset has no floor unless MAINLINE_TEST_FLOOR gives one.
floor=${MAINLINE_TEST_FLOOR:-}
if [ -z "$floor" ] && [ $tier = full ] && [ $# -eq 0 ]; then
  floor=$(sed -n 's/.*`make test` runs at least \*\*\([0-9]*\)\*\* tests.*/\1/p' README.md | head -1)
  [ -n "$floor" ] || {
    failed=$((failed + 1))
    failures+=("README.md states no test count (\"\`make test\` runs at least **N** tests\")")
  }
fi

summary=$(mktemp)
times=$(mktemp)
mocha_status=0
if [ ${#specs[@]} -gt 0 ]; then
  echo "== tests (mocha, $tier tier, ${#specs[@]} files)"
  started=$SECONDS
  mapfile -t specs < <(node tools/scripts/test-times.cjs order "${specs[@]}")
  # Tests mostly wait on processes they start, so more jobs than cores pay: on 2 shared cores 4 beat 2 by 30 %,
  # and 6, faster still, timed a git fixture out under load (README "Tests").
  MAINLINE_TEST_SUMMARY=$summary MAINLINE_TEST_TIMES=$times npx mocha --parallel --jobs "${MAINLINE_TEST_JOBS:-4}" \
    --forbid-only --reporter tools/testing/reporters/summary-reporter.cjs "${specs[@]}"
  mocha_status=$?
  [ -s "$times" ] && node tools/scripts/test-times.cjs record "$times"
  echo "== tests: $((SECONDS - started)) s"
fi
rm -f "$times"
report_gates
count() { node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))[process.argv[2]]))' "$summary" "$1"; }
if [ -s "$summary" ] && counts=$(count passed) && fails=$(count failed) && skipped=$(count skipped); then
  passed=$((passed + counts))
  failed=$((failed + fails))
  # mocha exits non-zero for a failure outside any test (a hook, an uncaught error, a committed .only) too.
  if [ "$fails" -eq 0 ] && [ $mocha_status -ne 0 ]; then
    failed=$((failed + 1))
    failures+=("mocha exited with status $mocha_status")
  fi
  ran=$((counts + fails + skipped))
  if [ -n "$floor" ] && [ $ran -lt "$floor" ]; then
    failed=$((failed + 1))
    failures+=("$ran tests ran, fewer than the $floor the suite has at least (README.md)")
  fi
elif [ ${#specs[@]} -gt 0 ]; then
  failed=$((failed + 1))
  failures+=("mocha did not run (status $mocha_status)")
fi
# Every skipped test with its reason (skipBecause writes it into the title), so a reader can check each one.
[ -s "$summary" ] && node -e 'for (const t of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).skippedTests ?? []) console.log(`skipped: ${t}`)' "$summary"
rm -f "$summary"

if [ $tier = full ] && [ $# -eq 0 ] && [ -z "${MONGODB_URI:-}" ]; then
  echo "not exercised: the MongoDB store adapter (MONGODB_URI is unset; the embedded store ran the store contract)"
fi
[ ${#failures[@]} -eq 0 ] || echo "failed: ${failures[*]}"
echo "${passed} passed, ${failed} failed${skipped:+, ${skipped} skipped}"
[ "$failed" -eq 0 ]
