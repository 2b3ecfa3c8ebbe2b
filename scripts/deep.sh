#!/usr/bin/env bash
# Deep programs (10^6 nested bodies) through the release binary on an
# ordinary 8 MiB stack limit, and the printing time of residuals of 10^4,
# 10^5 and 10^6 lines. The binary runs the machine on a big-stack thread, so
# this checks time and output, not the stack: tests/deep.rs is the stack
# check (in process, on 2 MiB threads). Usage: scripts/deep.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
cargo build -q --release
BIN=target/release/deepcps
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
ulimit -s 8192

# A chain that reduces to its exit: "1" (x0), "x0+1" (x1), .., $exit x{N-1}.
# A chain that stays residual (the first statement never runs, so no other
# does on natural staging), with one step at its bottom.
gen() { # $1 = n, $2 = first, $3 = tail
  awk -v n="$1" -v first="$2" -v tail="$3" 'BEGIN {
    printf "%s\"1\" (x0)\n", first
    for (i = 1; i < n; i++) printf "\"x%d+1\" (x%d)\n", i - 1, i
    printf tail, n - 1
  }'
}

fail=0
check() { # $1 = what, $2 = expected, $3 = actual
  if [ "$2" != "$3" ]; then echo "FAIL $1: expected $2, got $3"; fail=1; fi
}

gen "$N" "" '$exit x%d\n' > "$DIR/exit.dcps"
start=$(date +%s.%N)
out=$("$BIN" run "$DIR/exit.dcps")
printf 'exit chain   N=%d  %.2f s\n' "$N" "$(echo "$(date +%s.%N) - $start" | bc)"
check "exit chain" "$N" "$out"

for n in 10000 100000 "$N"; do
  gen "$n" "@never: " '@always: "6*7" (v)\n"v*x%d" (w)\n@never: $exit w\n' > "$DIR/res.dcps"
  start=$(date +%s.%N)
  lines=$("$BIN" run "$DIR/res.dcps" 2>/dev/null | wc -l)
  printf 'residual     n=%-8d %.2f s  (%d lines)\n' "$n" "$(echo "$(date +%s.%N) - $start" | bc)" "$lines"
  check "residual lines" "$((n + 2))" "$lines"
  # Formatting the same file: parse, resolve and print alone.
  start=$(date +%s.%N)
  lines=$("$BIN" fmt "$DIR/res.dcps" | wc -l)
  printf 'fmt          n=%-8d %.2f s  (%d lines)\n' "$n" "$(echo "$(date +%s.%N) - $start" | bc)" "$lines"
done
exit $fail
