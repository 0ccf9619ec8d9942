#!/usr/bin/env bash
# Runs the suite RUNS times in a row (default 3) beside BURNERS CPU-burning processes (default 2), as a contributor's
# busy laptop or a shared CI runner would: with no arguments `npm test`, else `npx vitest run` with the arguments given
# (e.g. `--project http`). Prints how many runs passed; exits non-zero when any failed. docs/TESTING.md.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=${RUNS:-3}
burners=${BURNERS:-2}
pids=()
stop_burners() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
}
trap stop_burners EXIT

for ((i = 0; i < burners; i++)); do
  node -e 'for (;;);' &
  pids+=("$!")
done

passed=0
for ((run = 1; run <= runs; run++)); do
  if (($# == 0)); then
    npm test
  else
    npx tsc -p tsconfig.json && npx vitest run "$@"
  fi
  status=$?
  if ((status == 0)); then
    passed=$((passed + 1))
    echo "busy-test: run ${run} of ${runs} passed"
  else
    echo "busy-test: run ${run} of ${runs} failed (exit ${status})"
  fi
done
echo "busy-test: ${passed} of ${runs} runs passed beside ${burners} CPU burners"
((passed == runs))
