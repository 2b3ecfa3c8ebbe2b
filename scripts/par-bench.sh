#!/usr/bin/env bash
# Parallel reduction figures: every workload on 1 and on N
# threads (default 2), in one run, the thread counts alternating, each
# REPEAT times (median).
#
# Wide workloads: psum (a divide-and-conquer sum over 2^D
# leaves), tree_work (2^D independent core-time loops), specialise_wide (one
# interpreter specialised to W programs at once). Narrow workloads (chains,
# nothing to run side by side; the target is "no more than 5% slower"):
# loop_sum, arith_builders, specialise.
#
# For every run: steps, wall, user and system time, steps per second
# (steps / wall), peak RSS, minor and major page faults; per workload and
# size: speedup = wall(1 thread) / wall(N threads). The figures are
# medians over the repeats; this machine is noisy, so read ratios from one
# run of this script, never across runs.
#
# The ceiling: what this machine gives N independent processes. Each
# repetition also starts N sequential runs of the same program at once
# and times them until the last ends: ceiling = N * wall(1 thread) /
# wall(those N runs). Nothing is shared between those processes, so no
# parallel driver can beat it; on a VM whose cores share a host's caches,
# memory and scheduler it is well below N, and `speedup / ceiling` is how
# much of the machine the driver uses.
#
# Usage: scripts/par-bench.sh [--quick] [--threads N] [--repeat R] [--big] [--no-build] [--only NAME]
#   --quick      small sizes (a smoke run of the script, ~30 s)
#   --threads N  the parallel thread count compared with 1 (default 2)
#   --repeat R   runs per point (default 3)
#   --big        add psum at D = 24 (about 200 M steps: many minutes per run)
#   --no-build   use target/release/deepcps as it is
#   --only NAME  only this workload (psum, tree_work, specialise_wide, ..)
# Needs GNU time (/usr/bin/time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
threads=2
repeat=3
quick=0
big=0
build=1
only=""
usage="usage: $0 [--quick] [--threads N] [--repeat R] [--big] [--no-build] [--only NAME]"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --threads) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; threads=$2; shift ;;
    --repeat) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; repeat=$2; shift ;;
    --big) big=1 ;;
    --no-build) build=0 ;;
    --only) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; only=$2; shift ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift
done
# shellcheck source=lib/release.sh
. "$root/scripts/lib/release.sh"
release_setup par-bench.sh "$build"

# file, kind, size variable, sizes
if [ "$quick" = 1 ]; then
  plan="psum wide D 12 14
tree_work wide D 8
specialise_wide wide W 256
loop_sum narrow N 100000
arith_builders narrow N 1000"
else
  plan="psum wide D 16 20
tree_work wide D 12
specialise_wide wide W 1024 4096
loop_sum narrow N 1000000
arith_builders narrow N 10000
specialise narrow K 10000"
  if [ "$big" = 1 ]; then
    plan="$plan
psum wide D 24"
  fi
fi

if [ -n "$only" ] && ! grep -q "^$only " <<< "$plan"; then
  echo "par-bench.sh: no workload '$only' at these sizes (psum, tree_work, specialise_wide, loop_sum, arith_builders, specialise)" >&2
  exit 2
fi

# median of the arguments (numbers)
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "# deepcps par-bench: 1 vs $threads threads, median of $repeat, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-16s %-6s %-5s %9s %3s %12s %8s %8s %7s %11s %9s %9s %6s\n' \
  workload kind size steps thr result wall_s user_s sys_s steps/s rss_MB minflt majflt
while read -r name kind var sizes; do
  if [ -n "$only" ] && [ "$name" != "$only" ]; then
    continue
  fi
  for size in $sizes; do
    src="$root/corpus/bench/$name.dcps"
    prog="$work/${name}_$size.dcps"
    # The size line is `let VAR = ...`; includes made absolute.
    sed -e "s|^let $var = .*|let $var = $size|" \
        -e "s|^include \"\.\./|include \"$root/corpus/|" "$src" > "$prog"
    declare -A wall=()
    # Runs alternate between the thread counts, so that a slow spell of
    # this machine falls on both.
    declare -A W=() U=() S=() R=() MI=() MA=() STEPS=() RES=()
    PAIR=""
    for ((r = 0; r < repeat; r++)); do
      # The ceiling (wide workloads): $threads sequential runs at once.
      if [ "$kind" = wide ]; then
        t0=$(date +%s.%N)
        for ((c = 0; c < threads; c++)); do
          "$bin" run --threads 1 --max-steps 10000000000 "$prog" > /dev/null 2>&1 &
        done
        wait
        PAIR+="$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') "
      fi
      for t in 1 "$threads"; do
        (/usr/bin/time -f '%e %U %S %M %R %F' -o "$work/time" \
          "$bin" run --threads "$t" --stats --max-steps 10000000000 "$prog" \
          > "$work/out" 2> "$work/err") || true
        read -r w u s m mi ma < <(tail -1 "$work/time")
        W[$t]+="$w "; U[$t]+="$u "; S[$t]+="$s "; R[$t]+="$m "; MI[$t]+="$mi "; MA[$t]+="$ma "
        STEPS[$t]=$(grep -o '^steps: [0-9]*' "$work/err" | head -1 | awk '{print $2}')
        RES[$t]=$(head -c 12 "$work/out" | tr -d '\n')
      done
    done
    for t in 1 "$threads"; do
      # shellcheck disable=SC2086
      w=$(median ${W[$t]})
      wall[$t]=$w
      steps=${STEPS[$t]}
      # shellcheck disable=SC2086
      printf '%-16s %-6s %-5s %9s %3s %12s %8s %8s %7s %11s %9s %9s %6s\n' \
        "$name" "$kind" "$size" "${steps:-?}" "$t" "${RES[$t]:-?}" "$w" "$(median ${U[$t]})" \
        "$(median ${S[$t]})" "$(awk -v s="${steps:-0}" -v w="$w" 'BEGIN { if (w > 0) printf "%.0f", s / w; else print "-" }')" \
        "$(awk -v k="$(median ${R[$t]})" 'BEGIN { printf "%.1f", k / 1024 }')" "$(median ${MI[$t]})" "$(median ${MA[$t]})"
    done
    # shellcheck disable=SC2086
    pair=$(median ${PAIR:-0})
    awk -v a="${wall[1]}" -v b="${wall[$threads]}" -v p="$pair" -v n="$name" -v s="$size" -v t="$threads" \
      'BEGIN { if (b > 0 && p == 0) printf "  speedup %s %s: wall(1)/wall(%s) = %.2f\n", n, s, t, a / b;
               if (b > 0 && p > 0) printf "  speedup %s %s: wall(1)/wall(%s) = %.2f; ceiling (%s sequential runs at once: %.2f s) = %.2f; speedup/ceiling = %.2f\n", n, s, t, a / b, t, p, t * a / p, (a / b) / (t * a / p) }'
  done
done <<< "$plan"
