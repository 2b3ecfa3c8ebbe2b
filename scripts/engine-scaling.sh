#!/usr/bin/env bash
# Linearity of the arena engine (`deepcps run --engine`) on the shapes that
# were quadratic in it: a loop defined inside a loop's body
# (corpus/bench/nested_loops.dcps: a recursive value per outer iteration
# that only its own name holds once done) and many values shared at once
# (corpus/bench/shared_closures.dcps), next to the CPS loop as a yardstick.
#
# For every workload it runs N and 4N and prints steps, wall time, peak RSS
# and the ratio wall(4N)/wall(N): about 4 when linear, 16 when quadratic.
# A ratio above 8 is reported as FAIL and the script exits with 1.
#
# Usage: scripts/engine-scaling.sh [--no-build] [N]   (default N: 20000)
# Needs GNU time (/usr/bin/time) for peak RSS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=1
n=20000
for a in "$@"; do
  case "$a" in
    --no-build) build=0 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *[!0-9]*|'') echo "usage: $0 [--no-build] [N]" >&2; exit 2 ;;
    *) n=$a ;;
  esac
done
# shellcheck source=lib/release.sh
. "$root/scripts/lib/release.sh"
release_setup engine-scaling.sh "$build"

fmt='%-16s %9s %10s %8s %8s %6s %s\n'
# shellcheck disable=SC2059
printf "$fmt" workload N steps wall_s rss_MB ratio status
failed=0
for w in loop_sum nested_loops shared_closures; do
  prev=""
  for size in "$n" $((4 * n)); do
    file="$work/${w}_$size.dcps"
    sed "s/^let N = [0-9]*$/let N = $size/" "$root/corpus/bench/$w.dcps" > "$file"
    if ! /usr/bin/time -f '%e %M' -o "$work/time" "$bin" run --engine --stats --max-steps 1000000000 "$file" > "$work/out" 2>&1; then
      echo "$w N=$size failed:" >&2
      cat "$work/out" >&2
      exit 1
    fi
    read -r wall rss < "$work/time"
    steps=$(sed -n 's/^steps: \([0-9]*\).*/\1/p' "$work/out")
    ratio=- status=ok
    if [ -n "$prev" ]; then
      ratio=$(awk -v a="$wall" -v b="$prev" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
      if awk -v r="$ratio" 'BEGIN { exit !(r > 8) }'; then
        status=FAIL
        failed=1
      fi
    fi
    # shellcheck disable=SC2059
    printf "$fmt" "$w" "$size" "$steps" "$wall" "$((rss / 1024))" "$ratio" "$status"
    prev=$wall
  done
done
exit "$failed"
