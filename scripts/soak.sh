#!/usr/bin/env bash
# Soak test of parallel reduction: reduces every corpus
# program under several thread counts (default 1, 2 and 8), over and over
# for a set time, and checks every result against its snapshot.
#
# The release binary is built; corpus/ is copied to a temporary directory
# and its snapshots (NAME.out: outcome, step counts, result, diagnostics;
# NAME.graph: graph dump) are written there once, on the sequential machine
# (`deepcps test --bless --threads 1`). Then rounds of `deepcps test
# --threads N`, one run per thread count, go on until the time is up. Each
# run is under `timeout`, so a hang is reported as a hang; the first
# failure stops the soak with its diff. Prints a summary: rounds, runs per
# thread count, programs checked, failures. Exit code 0 when every run
# passed, 1 on a failure or a hang, 2 on a usage error.
#
# Usage: scripts/soak.sh [SECONDS] [THREADS...]   (default: 300 s; 1 2 8)
#   SOAK_NO_BUILD=1       use target/release/deepcps as it is
#   SOAK_RUN_TIMEOUT=S    the longest one run may take (default 300 s)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-300}
if [ $# -gt 0 ]; then shift; fi
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2 8)
per_run=${SOAK_RUN_TIMEOUT:-300}
number() { [[ $1 =~ ^[0-9]+$ ]]; }
number "$seconds" || { echo "soak.sh: \`$seconds\` is not a number of seconds" >&2; exit 2; }
number "$per_run" || { echo "soak.sh: SOAK_RUN_TIMEOUT=\`$per_run\` is not a number of seconds" >&2; exit 2; }
for n in "${threads[@]}"; do
  if ! number "$n" || [ "$n" -lt 1 ]; then
    echo "soak.sh: \`$n\` is not a number of threads (at least 1)" >&2
    exit 2
  fi
done

[ "${SOAK_NO_BUILD:-}" = 1 ] || cargo build -q --release --manifest-path "$root/Cargo.toml" -p deepcps
bin="$root/target/release/deepcps"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/corpus" "$work/corpus"

# The snapshots, once, on the sequential machine.
if ! "$bin" test --bless --threads 1 "$work/corpus" > "$work/bless.log" 2>&1; then
  echo "soak.sh: writing the snapshots failed:" >&2
  { grep -v '^\(ok  \|wrote\|skip\) ' "$work/bless.log" || true; } | head -200 >&2
  exit 1
fi
# `N passed, 0 failed, K skipped`: N programs per run.
programs=$(tail -1 "$work/bless.log" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
number "${programs:-}" || { echo "soak.sh: cannot read the count of programs: $(tail -1 "$work/bless.log")" >&2; exit 1; }
echo "soak: $programs programs of corpus/, snapshots written with 1 thread; ${seconds} s under threads ${threads[*]}"

declare -A runs
for n in "${threads[@]}"; do runs[$n]=0; done
rounds=0 checked=0 failures=0
summary() {
  local per=""
  for n in "${threads[@]}"; do per+=" ${n}:${runs[$n]}"; done
  echo "soak summary: $rounds rounds in ${SECONDS} s; runs by thread count${per}; $checked programs checked; $failures failures"
}

SECONDS=0
while [ "$SECONDS" -lt "$seconds" ]; do
  rounds=$((rounds + 1))
  for n in "${threads[@]}"; do
    [ "$SECONDS" -lt "$seconds" ] || break
    code=0
    timeout -k 10 "$per_run" "$bin" test --threads "$n" "$work/corpus" > "$work/run.log" 2>&1 || code=$?
    if [ "$code" = 124 ] || [ "$code" = 137 ]; then
      failures=$((failures + 1))
      echo "HANG: round $rounds, --threads $n: no answer within ${per_run} s; the last programs it reached:" >&2
      tail -5 "$work/run.log" >&2
      summary
      exit 1
    fi
    if [ "$code" != 0 ]; then
      failures=$((failures + 1))
      echo "FAIL: round $rounds, --threads $n (exit $code):" >&2
      { grep -v '^\(ok  \|skip\) ' "$work/run.log" || true; } | head -300 >&2
      summary
      exit 1
    fi
    runs[$n]=$((runs[$n] + 1))
    checked=$((checked + programs))
  done
done
summary
