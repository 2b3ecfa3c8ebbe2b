#!/usr/bin/env bash
# Stress test of parallel reduction: generated staged
# programs on 8 threads with eager rounds (a round whenever the pending
# bodies branch, at every step), each compared with the sequential machine
# (outcome, error, printed term, warnings, step counts by kind) and checked
# for the machine's invariants, REPEAT times over fresh seeds. Each
# repetition runs under `timeout`, so a hang is reported as a hang.
#
#   scripts/stress.sh [REPEAT=1000] [PROGRAMS=100] [THREADS=8]
#
# The default is 1,000 repetitions of 100 programs (100,000 programs, about
# 15 minutes here). Seeds start at $DEEPCPS_STRESS_SEED (default: from the
# clock) and are printed, so a failure can be rerun with
# DEEPCPS_PAR_SEED=S DEEPCPS_PAR_CASES=1.
set -euo pipefail
cd "$(dirname "$0")/.."

repeat=${1:-1000}
programs=${2:-100}
threads=${3:-8}
seed=${DEEPCPS_STRESS_SEED:-$(( $(date +%s) % 1000000 * 1000 ))}
per_run_timeout=${DEEPCPS_STRESS_TIMEOUT:-300}

cargo test --release -p deepcps-tests --test parallel --no-run 2>&1 | tail -1
bin=$(cargo test --release -p deepcps-tests --test parallel --no-run --message-format=json 2>/dev/null |
    grep -o '"executable":"[^"]*parallel-[^"]*"' | head -1 | sed 's/"executable":"//; s/"$//')
[ -x "$bin" ] || { echo "stress: no test binary" >&2; exit 2; }

echo "stress: $repeat x $programs programs on $threads threads, seeds from $seed"
start=$(date +%s)
for ((i = 0; i < repeat; i++)); do
    s=$((seed + i * programs))
    status=0
    DEEPCPS_PAR_SEED=$s DEEPCPS_PAR_CASES=$programs DEEPCPS_PAR_THREADS=$threads \
        timeout "$per_run_timeout" "$bin" --exact generated_programs_are_the_same_on_every_thread_count \
        >/tmp/deepcps-stress.$$ 2>&1 || status=$?
    if [ "$status" = 124 ]; then
        echo "stress: HANG: repetition $i (seeds $s..$((s + programs - 1))) ran over ${per_run_timeout}s" >&2
        exit 1
    elif [ "$status" != 0 ]; then
        echo "stress: DIVERGENCE in repetition $i (seeds $s..$((s + programs - 1))):" >&2
        cat /tmp/deepcps-stress.$$ >&2
        exit 1
    fi
    if (( (i + 1) % 50 == 0 )); then
        echo "stress: $((i + 1))/$repeat repetitions, $(( (i + 1) * programs )) programs, $(( $(date +%s) - start )) s"
    fi
done
rm -f /tmp/deepcps-stress.$$
echo "stress: ok: $((repeat * programs)) programs on $threads threads, seeds $seed..$((seed + repeat * programs - 1)), $(( $(date +%s) - start )) s, no hang, no divergence"
