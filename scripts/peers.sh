#!/usr/bin/env bash
# deepcps beside a peer, in one run: Bend (`bend run-rs`, `bend run-c`) and
# deepcps on the same two workloads, with wall time, peak RSS and ratios.
#
# - tree: the sum of the leaves 0..2^D-1 of a balanced binary tree of
#   calls (corpus/bench/psum.dcps). deepcps runs it staged (each half a
#   body staged on the split point, as shipped) and unstaged (the `@mid:`
#   annotations removed: the same program, the same steps), on 1 and 2
#   threads. Bend's numbers are 24-bit, so its result is the sum modulo
#   2^24; the script checks each tool's result against the sum it should
#   print.
# - loop: a CPS loop summing 1..N (corpus/bench/loop_sum.dcps); in Bend, a
#   tail-recursive function with an accumulator.
# - both again compiled by `deepcps compile` (the unstaged tree and the loop
#   are runtime code); the time of building them is not counted.
#
# Bend and HVM are installed with cargo when missing (`cargo install
# hvm --version 2.0.22`, `cargo install bend-lang --version 0.2.38`: a few
# minutes of compiling, once). Ratios are wall(tool) / wall(the workload's
# first row: deepcps on 1 thread, staged for the tree) and are only
# comparable within one run: run it on an idle machine.
#
# Usage: scripts/peers.sh [--depth D] [--loop N] [--timeout SECONDS] [--no-build] [--no-install]
#   --depth D      the tree's depth (default 20: 2^20 leaves)
#   --loop N       the loop's iterations (default 10000000)
#   --timeout S    kill a run after S seconds (default 300)
#   --no-build     use target/release/deepcps as it is
#   --no-install   do not install Bend/HVM; their rows say "not installed"
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
depth=20
iters=10000000
timeout_s=300
build=1
install=1
usage="usage: $0 [--depth D] [--loop N] [--timeout SECONDS] [--no-build] [--no-install]"
while [ $# -gt 0 ]; do
  case "$1" in
    --depth) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; depth=$2; shift ;;
    --loop) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; iters=$2; shift ;;
    --timeout) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; timeout_s=$2; shift ;;
    --no-build) build=0 ;;
    --no-install) install=0 ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift
done
case "$depth$iters$timeout_s" in
  *[!0-9]*) echo "$usage" >&2; exit 2 ;;
esac
# shellcheck source=lib/release.sh
. "$root/scripts/lib/release.sh"
release_setup peers.sh "$build"

export PATH="$HOME/.cargo/bin:$PATH"
if [ "$install" = 1 ]; then
  command -v hvm >/dev/null || cargo install -q hvm --version 2.0.22
  command -v bend >/dev/null || cargo install -q bend-lang --version 0.2.38
fi

# The programs, written for this run.
sed "s/^let D = .*/let D = $depth/" "$root/corpus/bench/psum.dcps" > "$work/tree_staged.dcps"
sed 's/@mid: //g' "$work/tree_staged.dcps" > "$work/tree_plain.dcps"
grep -q '@mid' "$work/tree_plain.dcps" && { echo "peers.sh: could not unstage psum.dcps" >&2; exit 2; }
sed "s/^let N = .*/let N = $iters/" "$root/corpus/bench/loop_sum.dcps" > "$work/loop.dcps"
cat > "$work/tree.bend" <<EOF
def pow2(d, n):
  if d == 0:
    return n
  else:
    return pow2(d - 1, 2 * n)

def psum(lo, hi):
  if hi - lo == 1:
    return lo
  else:
    mid = (lo + hi) / 2
    return psum(lo, mid) + psum(mid, hi)

def main():
  return psum(0, pow2($depth, 1))
EOF
cat > "$work/loop.bend" <<EOF
def loop(i, acc):
  if i > $iters:
    return acc
  else:
    return loop(i + 1, acc + i)

def main():
  return loop(1, 0)
EOF

leaves=$((1 << depth))
tree_sum=$((leaves * (leaves - 1) / 2))
loop_sum=$((iters * (iters + 1) / 2))
mask=$(((1 << 24) - 1))

printf '%-6s %-24s %10s %10s %10s  %s\n' workload tool wall_s peak_MB "×first" result
# run WORKLOAD TOOL EXPECTED EXPECTED_24 CMD...: one row.
declare -A base
run() {
  local workload=$1 tool=$2 want=$3 want24=$4
  shift 4
  local out="$work/out" tm="$work/time"
  if ! command -v "$1" >/dev/null; then
    printf '%-6s %-24s %10s %10s %10s  %s\n' "$workload" "$tool" - - - "not installed"
    return
  fi
  local code=0
  timeout "$timeout_s" /usr/bin/time -f '%e %M' -o "$tm" "$@" > "$out" 2> "$work/err" || code=$?
  if [ "$code" != 0 ]; then
    printf '%-6s %-24s %10s %10s %10s  %s\n' "$workload" "$tool" - - - "failed (exit $code): $(head -c 120 "$work/err" | tr '\n' ' ')"
    return
  fi
  local wall rss got status
  read -r wall rss < <(tail -n 1 "$tm")
  # deepcps prints the value; Bend prints `Result: VALUE` among other lines.
  got=$(grep -o -E '(Result: )?-?[0-9]+$' "$out" | tail -n 1 | sed 's/Result: //')
  if [ "$got" = "$want" ]; then status="ok $got"
  elif [ "$got" = "$want24" ]; then status="ok $got (mod 2^24)"
  else status="WRONG: $got, expected $want"; fi
  if [ -z "${base[$workload]:-}" ]; then base[$workload]=$wall; fi
  local ratio=-
  if [ -n "${base[$workload]:-}" ]; then ratio=$(awk -v a="$wall" -v b="${base[$workload]}" 'BEGIN { printf "%.2f", a / b }'); fi
  printf '%-6s %-24s %10s %10.1f %10s  %s\n' "$workload" "$tool" "$wall" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$ratio" "$status"
}

run tree "deepcps staged 1 thread" "$tree_sum" - "$bin" run --threads 1 "$work/tree_staged.dcps"
run tree "deepcps staged 2 threads" "$tree_sum" - "$bin" run --threads 2 "$work/tree_staged.dcps"
run tree "deepcps plain 1 thread" "$tree_sum" - "$bin" run --threads 1 "$work/tree_plain.dcps"
run tree "deepcps plain 2 threads" "$tree_sum" - "$bin" run --threads 2 "$work/tree_plain.dcps"
# Compiled (deepcps compile: the unstaged tree and the loop are runtime
# code, translated as written); the build is not timed.
"$bin" compile "$work/tree_plain.dcps" -o "$work/tree_compiled" 2>/dev/null
"$bin" compile "$work/loop.dcps" -o "$work/loop_compiled" 2>/dev/null
run tree "deepcps compiled" "$tree_sum" - "$work/tree_compiled"
run tree "bend run-rs" - $((tree_sum & mask)) bend run-rs "$work/tree.bend"
run tree "bend run-c" - $((tree_sum & mask)) bend run-c "$work/tree.bend"
run loop "deepcps 1 thread" "$loop_sum" - "$bin" run --threads 1 "$work/loop.dcps"
run loop "deepcps 2 threads" "$loop_sum" - "$bin" run --threads 2 "$work/loop.dcps"
run loop "deepcps compiled" "$loop_sum" - "$work/loop_compiled"
run loop "bend run-rs" - $((loop_sum & mask)) bend run-rs "$work/loop.bend"
run loop "bend run-c" - $((loop_sum & mask)) bend run-c "$work/loop.bend"
echo "×first: wall time against the workload's first row (deepcps, 1 thread; staged for the tree)"
