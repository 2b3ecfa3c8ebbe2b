#!/usr/bin/env bash
# Benchmarks of the workloads in corpus/bench/, on both machines, in one run.
#
# For every workload, size and machine it prints: steps, wall time, steps per
# second, peak RSS and the size of the printed result (residual or exit
# value), the ratio of wall time to the previous size's, and then one ratio
# line per workload and machine: wall(N=10^5)/wall(N=10^4), the linearity
# target (or, where a machine did not run both sizes, the largest
# pair it ran).
#
# The machines: `graph` is `deepcps run` without a machine flag (the graph
# machine, the binary's default), `stepping` is the graph machine without fast runs
# (`deepcps run --no-fast`: one body at a time on the graph), `reference`
# is `deepcps run --reference`. The reference
# reducer is quadratic by design: it runs only up to a size cap per workload
# (the rows above print "skipped"), and every run is killed after the timeout.
#
# Usage: scripts/bench.sh [--quick] [--only WORKLOAD] [--timeout SECONDS] [--no-cap] [--no-build]
#   --quick       small sizes (a smoke run of the script itself, ~15 s today)
#   --only W      one workload (loop_sum, nontail_sum, arith_builders or specialise)
#   --timeout S   kill a run after S seconds (default 120)
#   --no-cap      run the reference reducer at every size (up to the timeout)
#   --no-build    use target/release/deepcps as it is
# Needs GNU time (/usr/bin/time) for peak RSS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
timeout_s=120
quick=0
cap=1
build=1
only=""
usage="usage: $0 [--quick] [--only WORKLOAD] [--timeout SECONDS] [--no-cap] [--no-build]"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --timeout) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; timeout_s=$2; shift ;;
    --no-cap) cap=0 ;;
    --only) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; only=$2; shift ;;
    --no-build) build=0 ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift
done
# shellcheck source=lib/release.sh
. "$root/scripts/lib/release.sh"
release_setup bench.sh "$build"

# One line per workload: file, size variable, reference cap, sizes.
if [ "$quick" = 1 ]; then
  plan="loop_sum N 10000 1000 10000
nontail_sum N 100 100 1000
arith_builders N 100 10 100
specialise K 100 10 100"
else
  plan="loop_sum N 100000 1000 10000 100000 1000000 10000000
nontail_sum N 1000 1000 10000 100000 1000000
arith_builders N 100 10 100 1000 10000 100000 1000000
specialise K 1000 100 1000 10000 100000"
fi
if [ -n "$only" ]; then
  plan=$(printf '%s\n' "$plan" | awk -v w="$only" '$1 == w')
  [ -n "$plan" ] || { echo "$0: no workload '$only' (loop_sum, nontail_sum, arith_builders, specialise)" >&2; exit 2; }
fi
# Enough for the 10^7 loop (6*10^7 steps) and the 10^6 builders (~8*10^7).
max_steps=1000000000

if "$bin" run --help | grep -qi 'graph'; then
  default_is="the graph machine"
else
  default_is="the reference reducer (no graph machine in this binary yet)"
fi
echo "binary: $bin; rows 'graph' run its default machine: $default_is"
machines="graph reference"
if "$bin" run --help | grep -q -- '--no-fast'; then
  machines="graph stepping reference"
  echo "rows 'stepping' run the graph machine without fast runs (--no-fast)"
fi
echo "timeout ${timeout_s}s per run; max-steps $max_steps"
echo

fmt='%-15s %9s %-9s %11s %9s %12s %9s %10s %6s %s\n'
# shellcheck disable=SC2059
printf "$fmt" workload N machine steps wall_s steps/s rss_MB result_B ratio status
summary=""

# run_one NAME VAR N FLAG: runs one size on one machine, prints its row and
# sets `wall` (seconds, or empty if the run did not finish).
run_one() {
  local name=$1 var=$2 n=$3 flag=$4
  local src="$work/${name}_$n.dcps"
  sed -e "s|^let $var = .*|let $var = $n|" \
      -e "s|^include \"\.\./|include \"$root/corpus/|" \
      "$root/corpus/bench/$name.dcps" > "$src"
  local t0 t1 rc
  t0=$EPOCHREALTIME
  set +e
  # shellcheck disable=SC2086
  /usr/bin/time -f '%M' -o "$work/time" timeout "$timeout_s" \
    "$bin" run --stats --max-steps "$max_steps" $flag "$src" > "$work/out" 2> "$work/err"
  rc=$?
  set -e
  t1=$EPOCHREALTIME
  local status
  case $rc in
    0) status=ok ;;
    124) status="timeout (${timeout_s}s)" ;;
    1) status="runtime error" ;;
    3) status="limit" ;;
    *) status="failed (exit $rc)" ;;
  esac
  local steps rss bytes sps
  steps=$(grep -o '^steps: [0-9]*' "$work/err" | head -1 | cut -d' ' -f2 || true)
  rss=$(grep -E '^[0-9]+$' "$work/time" | tail -1 || true)
  rss=$(awk -v k="${rss:-}" 'BEGIN { if (k == "") print "-"; else printf "%.1f", k / 1024 }')
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  bytes=$(wc -c < "$work/out")
  sps=-
  if [ -n "${steps:-}" ]; then
    sps=$(awk -v s="$steps" -v w="$wall" 'BEGIN { printf "%.0f", s / (w > 0.001 ? w : 0.001) }')
  fi
  if [ "$status" != ok ]; then
    [ "$rc" = 124 ] && bytes=-
    sed 's/^/    | /' "$work/err" | grep -v '^    | steps:' | head -3 >&2 || true
  fi
  local ratio=-
  if [ -n "$prev_wall" ] && [ "$status" = ok ]; then
    ratio=$(awk -v a="$wall" -v b="$prev_wall" 'BEGIN { if (b > 0) printf "%.1f", a / b; else printf "-" }')
  fi
  # shellcheck disable=SC2059
  printf "$fmt" "$name" "$n" "$machine" "${steps:--}" "$wall" "$sps" "$rss" "$bytes" "$ratio" "$status"
  [ "$status" = ok ] || wall=""
  last_status=${status%% *}
}

while read -r name var refcap sizes; do
  for machine in $machines; do
    flag=""
    [ "$machine" = reference ] && flag="--reference"
    [ "$machine" = stepping ] && flag="--no-fast"
    prev_wall=""
    declare -A walls=()
    last_pair=""
    timed_out=""
    for n in $sizes; do
      if [ -n "$timed_out" ]; then
        # shellcheck disable=SC2059
        printf "$fmt" "$name" "$n" "$machine" - - - - - - "skipped (timed out at N=$timed_out)"
        continue
      fi
      if [ "$machine" = reference ] && [ "$cap" = 1 ] && [ "$n" -gt "$refcap" ]; then
        # shellcheck disable=SC2059
        printf "$fmt" "$name" "$n" "$machine" - - - - - - "skipped (reference too slow above N=$refcap)"
        continue
      fi
      wall=""
      run_one "$name" "$var" "$n" "$flag"
      if [ -n "$wall" ]; then
        walls[$n]=$wall
        [ -n "$prev_wall" ] && last_pair="$prev_n $n"
        prev_wall=$wall
        prev_n=$n
      else
        prev_wall=""
        [ "$last_status" = timeout ] && timed_out=$n
      fi
    done
    if [ -n "${walls[10000]:-}" ] && [ -n "${walls[100000]:-}" ]; then
      line=$(awk -v a="${walls[100000]}" -v b="${walls[10000]}" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
      summary+=$(printf '%-15s %-9s wall(N=10^5)/wall(N=10^4) = %s' "$name" "$machine" "$line")$'\n'
    elif [ -n "$last_pair" ]; then
      read -r a b <<< "$last_pair"
      line=$(awk -v x="${walls[$b]}" -v y="${walls[$a]}" 'BEGIN { printf "%.1f", (y > 0 ? x / y : 0) }')
      summary+=$(printf '%-15s %-9s wall(N=%s)/wall(N=%s) = %s (10^4 and 10^5 not both run)' "$name" "$machine" "$b" "$a" "$line")$'\n'
    else
      summary+=$(printf '%-15s %-9s no ratio (fewer than two sizes finished)' "$name" "$machine")$'\n'
    fi
    unset walls
  done
done <<< "$plan"

echo
echo "ratios (target for the graph machine: <= 12)"
printf '%s' "$summary"
