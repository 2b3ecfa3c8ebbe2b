#!/usr/bin/env bash
# The equivalence test of the graph machine against the reference reducer
# (tests/equivalence.rs) with many more generated programs than CI runs.
#
# Usage: scripts/equiv.sh [CASES] [FIRST_SEED]
#   CASES       generated programs (default 200000; CI runs 10000), and a
#               twentieth as many programs built by the paper's actions
#               (CI runs 300)
#   FIRST_SEED  the first seed (default 10000, just past CI's seeds)
# A failure prints the first differing programs in full, both machines'
# reports, and every failing seed; rerun one with
#   DEEPCPS_EQUIV_SEED=S DEEPCPS_EQUIV_CASES=1 cargo test -p deepcps-tests --test equivalence generated
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cases=${1:-200000}
first=${2:-10000}
cd "$root"
DEEPCPS_EQUIV_CASES=$cases DEEPCPS_EQUIV_SEED=$first \
  cargo test --release -p deepcps-tests --test equivalence generated_programs_agree -- --nocapture
DEEPCPS_EQUIV_BUILDERS=$((cases / 20)) \
  cargo test --release -p deepcps-tests --test equivalence generated_builder_programs_agree -- --nocapture
