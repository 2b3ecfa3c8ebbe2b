#!/usr/bin/env bash
# The large hostile inputs on the release binary, with wall time
# and peak RSS each (the smaller ones are tests/hostile.rs): a 100 MB file
# (a comment; one-character garbage), a 10^6-element tuple (built, read,
# printed), 10^6-deep nestings (a diagnostic), an infinite core-time loop
# at the default step limit (memory flat), unbounded allocation at a node
# limit. Every case must end with its expected exit code; the script fails
# otherwise. About a minute on this machine.
#
# Usage: scripts/hostile.sh [--no-build]   (needs GNU time at /usr/bin/time)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/release.sh
. "$root/scripts/lib/release.sh"
release_setup hostile.sh "$([ "${1:-}" = "--no-build" ] && echo 0 || echo 1)"
fails=0

# case NAME EXPECTED_CODE FILE [ARGS..]
case_() {
  local name=$1 want=$2 file=$3
  shift 3
  local code=0
  /usr/bin/time -f "%e %M" -o "$work/time" "$bin" run "$file" "$@" > "$work/out" 2> "$work/err" || code=$?
  read -r secs kb < <(tail -1 "$work/time")
  local verdict=ok
  [ "$code" = "$want" ] || { verdict="FAIL (expected exit $want)"; fails=$((fails + 1)); }
  printf '%-40s exit %3s  %7.2f s  %8.1f MB  %s\n' "$name" "$code" "$secs" "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')" "$verdict"
  [ "$verdict" = ok ] || head -c 600 "$work/err" >&2
}

python3 - "$work" <<'PY'
import sys
w = sys.argv[1]
open(f"{w}/comment.dcps", "w").write("// " + "x" * 100_000_000 + "\n$exit 1\n")
open(f"{w}/garbage.dcps", "w").write("$exit 1\n" + "@" * 100_000_000)
n = 1_000_000
open(f"{w}/tuple.dcps", "w").write("$exit [" + ", ".join(str(i) for i in range(n)) + "]\n")
open(f"{w}/tuple_read.dcps", "w").write(
    "(t) {\n  \"t[999999]\" (x)\n  $exit x\n} [" + ", ".join(str(i) for i in range(n)) + "]\n")
open(f"{w}/lambdas.dcps", "w").write("(x) {" * n + "$exit 1" + "}" * n)
open(f"{w}/tuples.dcps", "w").write("$exit " + "[" * n + "1" + "]" * n)
open(f"{w}/stages.dcps", "w").write("@" + "(" * n + "always" + ")" * n + ": $exit 1")
open(f"{w}/forever.dcps", "w").write("fix loop(i) {\n  \"i+1\" (j)\n  loop j\n} in\nloop 0\n")
open(f"{w}/grow.dcps", "w").write("fix grow(t) {\n  grow [1, t]\n} in\ngrow []\n")
PY

echo "case                                     code     wall        peak RSS"
case_ "100 MB comment, then \$exit 1"            0 "$work/comment.dcps"
case_ "100 MB of '@' (a parse error)"            2 "$work/garbage.dcps"
case_ "10^6-element tuple, printed"              0 "$work/tuple.dcps"
case_ "10^6-element tuple, last element read"    0 "$work/tuple_read.dcps"
case_ "10^6 nested lambdas (a diagnostic)"       2 "$work/lambdas.dcps"
case_ "10^6 nested tuples (a diagnostic)"        2 "$work/tuples.dcps"
case_ "10^6 nested stage brackets (diagnostic)"  2 "$work/stages.dcps"
case_ "infinite loop, default step limit"        3 "$work/forever.dcps"
# A nested tuple growing without end: the node limit stops it (growing is
# linear since the look's scan is memoised, `Node::plain`: 20,000 nodes in
# 0.14 s, 200,000 in 0.66 s).
case_ "unbounded allocation, --max-nodes 20000"  3 "$work/grow.dcps" --max-nodes 20000
if [ "$fails" -gt 0 ]; then
  echo "hostile.sh: $fails case(s) failed" >&2
  exit 1
fi
echo "hostile.sh: all cases ended as expected"
