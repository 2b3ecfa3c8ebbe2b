#!/usr/bin/env bash
# How long `deepcps compile` takes on large programs, and how fast what it
# builds runs, in one run:
#
# - chain: a straight-line program of S expression steps (`"x0 + 1" (x1)`
#   and so on, one continuation after another; default S = 100000);
# - builders: the program the paper's builders make for the sum 1+..+N
#   (corpus/bench/arith_builders.dcps resized, default N = 10000), a chain
#   of N-1 additions built by staging;
# - loop: the CPS loop summing 1..L (corpus/bench/loop_sum.dcps, default
#   L = 10^7), compiled, against `deepcps run` on the same program.
#
# For the first two it prints the time of `compile --emit-c` (staging and
# translation: the C text), of the whole `compile` (the same and the C
# compiler), the difference (the C compiler and the link), the CPU time of
# the whole `compile` (its C compilers included: above its wall time when
# they ran at once), the size of the C, the peak RSS of the build, and
# whether the executable prints the sum. For the loop: the build time, the
# executable's and the machine's wall times (the best of three runs) and
# their ratio. Timings are seconds (GNU time, one run each but for the
# loop's): run it on an idle machine and compare within one run.
#
# Usage: scripts/compile-bench.sh [--chain S] [--builders N] [--loop L] [--no-build] [--bin FILE]
#   --bin FILE   time this deepcps binary instead of target/release/deepcps
#                (an earlier build, to compare within one sitting)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
chain=100000
builders=10000
iters=10000000
build=1
other=""
usage="usage: $0 [--chain S] [--builders N] [--loop L] [--no-build] [--bin FILE]"
while [ $# -gt 0 ]; do
  case "$1" in
    --chain) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; chain=$2; shift ;;
    --builders) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; builders=$2; shift ;;
    --loop) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; iters=$2; shift ;;
    --no-build) build=0 ;;
    --bin) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; other=$2; build=0; shift ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift
done
case "$chain$builders$iters" in
  *[!0-9]*|"") echo "$usage" >&2; exit 2 ;;
esac
# shellcheck source=lib/release.sh
. "$root/scripts/lib/release.sh"
release_setup compile-bench.sh "$build"
if [ -n "$other" ]; then
  [ -x "$other" ] || { echo "$0: no executable at $other" >&2; exit 2; }
  bin=$other
fi

# `timed OUT CMD..`: runs CMD with its output to OUT.log, and prints its
# wall time, its CPU time (user and system, the C compilers it ran
# included) and its peak RSS (MB), or FAILED.
timed() {
  local out=$1
  shift
  if /usr/bin/time -f '%e %U %S %M' -o "$out.time" "$@" >"$out.log" 2>&1; then
    awk '{ printf "%s %.2f %.0f", $1, $2 + $3, $4 / 1024 }' "$out.time"
  else
    echo "FAILED"
    sed 's/^/    /' "$out.log" >&2
  fi
}

# `best OUT CMD..`: the shortest wall time of three runs of CMD, in
# seconds to the millisecond, its output in OUT.log; or FAILED.
best() {
  local out=$1 t0 t1 ms best=""
  shift
  for _ in 1 2 3; do
    t0=$(date +%s%N)
    "$@" >"$out.log" 2>&1 || { echo FAILED; return; }
    t1=$(date +%s%N)
    ms=$(((t1 - t0) / 1000000))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  awk -v ms="$best" 'BEGIN { printf "%.3f", ms / 1000 }'
}

# `compile_row NAME FILE SUM`: times the C text and the build of FILE, runs
# the executable, checks that it prints SUM.
compile_row() {
  local name=$1 file=$2 sum=$3
  local emit build exe="$work/$name" got
  emit=$(timed "$work/$name-emit" "$bin" compile --emit-c -o "$work/$name.c" "$file")
  build=$(timed "$work/$name-build" "$bin" compile -o "$exe" "$file")
  got=$([ -x "$exe" ] && "$exe" || echo "no executable")
  local c_mb
  c_mb=$(awk -v b="$(stat -c %s "$work/$name.c" 2>/dev/null || echo 0)" 'BEGIN { printf "%.1f", b / 1e6 }')
  local e=${emit%% *} b=${build%% *} cpu peak
  cpu=$(echo "$build" | awk '{ print ($2 == "" ? "-" : $2) }')
  peak=$(echo "$build" | awk '{ print ($3 == "" ? "-" : $3) }')
  local cc
  cc=$(awk -v e="$e" -v b="$b" 'BEGIN { if (e ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/) printf "%.2f", b - e; else print "-" }')
  printf '%-10s %10s %10s %10s %10s %8s %10s  %s\n' "$name" "$e" "$b" "$cc" "$cpu" "$c_mb" "$peak" \
    "$([ "$got" = "$sum" ] && echo "prints $sum" || echo "WRONG: $got (want $sum)")"
}

# The chain: x_i = x_{i-1} + i, so the program prints S(S+1)/2.
{
  echo "let x0 = 0"
  awk -v s="$chain" 'BEGIN { for (i = 1; i <= s; i++) printf "\"x%d + %d\" (x%d)\n", i - 1, i, i }'
  echo "\$exit x$chain"
} >"$work/chain.dcps"

# The builders at N numbers, its include made absolute.
sed -e "s|^let N = .*|let N = $builders|" \
  -e "s|^include \"\\.\\./|include \"$root/corpus/|" \
  "$root/corpus/bench/arith_builders.dcps" >"$work/builders.dcps"

sed -e "s|^let N = .*|let N = $iters|" "$root/corpus/bench/loop_sum.dcps" >"$work/loop.dcps"

echo "binary: $bin; cc: $(cc --version | head -1); $(nproc) cores"
echo
printf '%-10s %10s %10s %10s %10s %8s %10s  %s\n' program "emit-c s" "compile s" "cc+link s" "CPU s" "C MB" "peak MB" result
compile_row chain "$work/chain.dcps" "$(awk -v s="$chain" 'BEGIN { printf "%.0f", s * (s + 1) / 2 }')"
compile_row builders "$work/builders.dcps" "$(awk -v n="$builders" 'BEGIN { printf "%.0f", n * (n + 1) / 2 }')"

echo
build=$(timed "$work/loop-build" "$bin" compile -o "$work/loop" "$work/loop.dcps")
compiled=$(best "$work/loop-run" "$work/loop")
machine=$(best "$work/loop-machine" "$bin" run "$work/loop.dcps")
want=$(awk -v n="$iters" 'BEGIN { printf "%.0f", n * (n + 1) / 2 }')
same="prints $want"
for f in loop-run loop-machine; do
  [ "$(cat "$work/$f.log")" = "$want" ] || same="WRONG: $f printed $(head -c 80 "$work/$f.log")"
done
echo "loop of $iters: built in ${build%% *} s; best of three runs: compiled $compiled s, machine $machine s:" \
  "$(awk -v c="$compiled" -v m="$machine" 'BEGIN { if (c > 0) printf "%.0fx", m / c; else print "-" }') faster; $same"
