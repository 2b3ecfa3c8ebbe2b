#!/usr/bin/env bash
# Benchmarks of the workloads in corpus/bench/, for each machine, in one run.
#
# For every workload and size it prints: steps, wall time, steps per second,
# peak RSS and the size of the printed result (residual or exit value), and
# for each size the ratio of wall time to the previous (10x smaller) size,
# which is what the linearity targets of ARCHITECTURE.md are stated in.
#
# Usage: scripts/bench.sh [--quick] [--timeout SECONDS]
#   --quick    smaller sizes (a smoke run of the script itself)
# Sizes are chosen per machine: the reference reducer is quadratic by design,
# so it gets sizes it finishes. Runs that exceed the timeout are reported as
# such. Needs GNU time (/usr/bin/time) and a release build, which it makes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
timeout_s=120
quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --timeout) timeout_s=$2; shift ;;
    *) echo "usage: $0 [--quick] [--timeout SECONDS]" >&2; exit 2 ;;
  esac
  shift
done
[ -x /usr/bin/time ] || { echo "bench.sh needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 2; }

cargo build -q --release --manifest-path "$root/Cargo.toml"
bin="$root/target/release/deepcps"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# workload  variable  sizes(reference)
if [ "$quick" = 1 ]; then
  plan="loop_sum N 100 1000
arith_builders N 5 10
specialise K 3 10"
else
  plan="loop_sum N 1000 10000 100000
arith_builders N 10 30 100
specialise K 10 30 100"
fi
machines="reference"

printf '%-15s %8s %-9s %10s %9s %12s %10s %9s %7s %s\n' workload size machine steps wall_s steps/s rss_kb result_b ratio status
for m in $machines; do
  while read -r name var sizes; do
    prev=""
    for n in $sizes; do
      src="$work/${name}_$n.dcps"
      sed -e "s|^let $var = .*|let $var = $n|" \
          -e "s|^include \"\.\./|include \"$root/corpus/|" \
          "$root/corpus/bench/$name.dcps" > "$src"
      set +e
      /usr/bin/time -f '%e %M' -o "$work/time" timeout "$timeout_s" \
        "$bin" run --stats --max-steps 1000000000 "--$m" "$src" > "$work/out" 2> "$work/err"
      rc=$?
      set -e
      case $rc in
        0) status=ok ;;
        124) status="timeout (${timeout_s}s)" ;;
        3) status="limit" ;;
        *) status="failed (exit $rc)" ;;
      esac
      steps=$(grep -o 'steps: [0-9]*' "$work/err" | head -1 | cut -d' ' -f2 || true)
      read -r wall rss < <(grep -E '^[0-9.]+ [0-9]+$' "$work/time" | tail -1 || echo "- -")
      bytes=$(wc -c < "$work/out")
      sps=-
      if [ -n "${steps:-}" ] && [ "$wall" != "-" ]; then
        sps=$(awk -v s="$steps" -v w="$wall" 'BEGIN { printf "%.0f", (w > 0 ? s / w : s / 0.005) }')
      fi
      ratio=-
      if [ -n "$prev" ] && [ "$wall" != "-" ]; then
        ratio=$(awk -v a="$wall" -v b="$prev" 'BEGIN { if (b > 0) printf "%.1f", a / b; else printf "-" }')
      fi
      printf '%-15s %8s %-9s %10s %9s %12s %10s %9s %7s %s\n' "$name" "$n" "$m" "${steps:--}" "$wall" "$sps" "$rss" "$bytes" "$ratio" "$status"
      prev=$wall
    done
  done <<< "$plan"
done
