#!/usr/bin/env bash
# The paper's own workload at scale: the stack builders of
# corpus/paper/arith_stack_actions.dcps invoked once per action of the sum
# 1+2+..+N, written out as a parser would emit them (`number F i (F)` and
# `add F (F)`, one statement each, 2N-1 actions), the residual program then
# run with `$exit`. A file of N actions is about 29 bytes an action.
#
# For every size it prints, for loading alone (`deepcps check`) and for the
# whole run (`deepcps run --stats --threads 1`: the graph machine handing
# over to the arena engine; or `--engine`, or `--graph`): wall time, peak RSS,
# bytes of memory per byte of source, steps and steps per second, and the
# ratio of wall time to the previous size's (linear: about 10).
#
# Usage: scripts/builders-bench.sh [--check-only] [--engine|--graph] [--no-build] [--timeout S] [N ...]
#   N             sizes (default: 10000 100000 1000000)
#   --check-only  time loading alone
#   --engine      run on the arena engine from the start (`deepcps run --engine`)
#   --graph       keep the run on the graph machine (`--no-handover`)
#   --no-build    use target/release/deepcps as it is
#   --timeout S   kill a run after S seconds (default 600)
# Needs GNU time (/usr/bin/time) for peak RSS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=1
runs=1
machine=(--threads 1)
timeout_s=600
sizes=()
usage="usage: $0 [--check-only] [--engine|--graph] [--no-build] [--timeout S] [N ...]"
while [ $# -gt 0 ]; do
  case "$1" in
    --check-only) runs=0 ;;
    --engine) machine=(--engine) ;;
    --graph) machine=(--threads 1 --no-handover) ;;
    --no-build) build=0 ;;
    --timeout) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; timeout_s=$2; shift ;;
    -h|--help) echo "$usage"; exit 0 ;;
    [0-9]*) sizes+=("$1") ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift
done
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)
# shellcheck source=lib/release.sh
. "$root/scripts/lib/release.sh"
release_setup builders-bench.sh "$build"

# gen N FILE: the builders program on 1+2+..+N.
gen() {
  {
    echo "include \"$root/corpus/paper/arith_stack_actions.dcps\""
    echo 'start (F)'
    echo 'number F 1 (F)'
    awk -v n="$1" 'BEGIN { for (i = 2; i <= n; i++) printf "number F %d (F)\nadd F (F)\n", i }'
    echo 'end F (program)'
    echo 'program $exit'
  } > "$2"
}

fmt='%-6s %9s %8s %9s %8s %11s %12s %6s %s\n'
# shellcheck disable=SC2059
printf "$fmt" what N wall_s rss_MB B/byte steps steps/s ratio status
declare -A prev=()
for n in "${sizes[@]}"; do
  src="$work/builders_$n.dcps"
  gen "$n" "$src"
  bytes=$(wc -c < "$src")
  for what in check run; do
    [ "$what" = run ] && [ "$runs" = 0 ] && continue
    if [ "$what" = check ]; then
      cmd=("$bin" check "$src")
    else
      cmd=("$bin" run --stats "${machine[@]}" --max-steps 1000000000 "$src")
    fi
    t0=$EPOCHREALTIME
    set +e
    /usr/bin/time -f '%M' -o "$work/time" timeout "$timeout_s" "${cmd[@]}" > "$work/out" 2> "$work/err"
    rc=$?
    set -e
    t1=$EPOCHREALTIME
    case $rc in
      0) status=ok ;;
      124) status="timeout (${timeout_s}s)" ;;
      *) status="failed (exit $rc)" ;;
    esac
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    kb=$(grep -E '^[0-9]+$' "$work/time" | tail -1 || echo 0)
    rss=$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')
    per=$(awk -v k="$kb" -v b="$bytes" 'BEGIN { printf "%.1f", k * 1024 / b }')
    steps=$(grep -o '^steps: [0-9]*' "$work/err" | head -1 | cut -d' ' -f2 || true)
    sps=-
    [ -n "$steps" ] && sps=$(awk -v s="$steps" -v w="$wall" 'BEGIN { printf "%.0f", s / (w > 0.001 ? w : 0.001) }')
    ratio=-
    [ -n "${prev[$what]:-}" ] && [ "$status" = ok ] && ratio=$(awk -v a="$wall" -v b="${prev[$what]}" 'BEGIN { printf "%.1f", a / b }')
    [ "$status" = ok ] && prev[$what]=$wall || prev[$what]=""
    # shellcheck disable=SC2059
    printf "$fmt" "$what" "$n" "$wall" "$rss" "$per" "${steps:--}" "$sps" "$ratio" "$status"
  done
done
echo "source: $((bytes)) bytes at N=${sizes[-1]}"
