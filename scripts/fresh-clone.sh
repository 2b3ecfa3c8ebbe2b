#!/usr/bin/env bash
# End-to-end check as a new user: clone the repository into a temporary
# folder, run the README's two set-up commands there, check that the first
# prints the paper's residual program byte for byte, and run .ci/run.
#
# Usage: scripts/fresh-clone.sh [REPO]   (default: this repository)
set -euo pipefail
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
git clone -q "$repo" "$dir/deepcps"
cd "$dir/deepcps"

expected='(exit)[pt] {
  @pt: "4*2" (prod)[pt]
  @pt: "1+prod" (sum)[pt]
  @pt: "sum+3" (sum)[pt]
  @pt: exit sum
}'
echo "== cargo run --release -- run corpus/paper/arith_built.dcps"
got=$(cargo run -q --release -- run corpus/paper/arith_built.dcps)
if [ "$got" != "$expected" ]; then
  echo "FAIL: residual differs from the paper's:"
  diff <(echo "$expected") <(echo "$got") || true
  exit 1
fi
echo "ok: the paper's residual, byte for byte"

echo "== cargo test --workspace"
cargo test -q --workspace

echo "== .ci/run"
CI=true bash .ci/run
echo "fresh clone: all good"
