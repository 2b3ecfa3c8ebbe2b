#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET..]: runs the cargo-fuzz
# targets of tests/fuzz/ one after another, each for
# SECONDS_PER_TARGET seconds of fuzzing (default 300), one job at a time:
#
#   parse      arbitrary bytes through the loader; diagnostics rendered
#   roundtrip  programs that load: print, load again, print identically
#   machines   generated staged programs (the bytes are the generator's
#              choices) on the graph machine and the reference reducer,
#              2,000 steps each, compared as tests/equivalence.rs does
#
# Run by hand, not by CI: it needs a nightly toolchain (libFuzzer's
# sanitizer flags), which CI does not guarantee. Installs cargo-fuzz if
# missing. The parser and round-trip corpora are seeded from corpus/**/*.dcps.
# FUZZ_SANITIZER picks cargo-fuzz's sanitizer (default `none`: the crates
# forbid unsafe code, and without AddressSanitizer the `machines` target runs
# several times as many programs; `address` is cargo-fuzz's own default).
# Debug assertions stay on (cargo-fuzz's default), and so the graph
# machine's own checks. Prints per target the runs executed, the time fuzzed and the crashes found
# (files in tests/fuzz/artifacts/TARGET/); after a crash the target is
# started again until its time is used up. Minimise a crash with
#   cargo +nightly fuzz tmin --fuzz-dir tests/fuzz TARGET ARTIFACT
# and turn it into a regression test in tests/ (see tests/fuzz_regressions.rs).
set -euo pipefail

cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${1:-300}"
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(parse roundtrip machines)
FUZZ=tests/fuzz
SANITIZER="${FUZZ_SANITIZER:-none}"

if ! rustup toolchain list | grep -q '^nightly'; then
    echo "fuzz.sh: no nightly toolchain (rustup toolchain install nightly); cargo-fuzz needs one" >&2
    exit 2
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: installing cargo-fuzz"
    cargo install cargo-fuzz
fi

# Seeds: every corpus program for the byte-level targets; for `machines`,
# a few random byte strings (any bytes are a program there).
for t in parse roundtrip; do
    mkdir -p "$FUZZ/corpus/$t"
    find corpus -name '*.dcps' | while read -r f; do
        cp "$f" "$FUZZ/corpus/$t/seed-$(echo "$f" | tr '/' '_')"
    done
done
mkdir -p "$FUZZ/corpus/machines" "$FUZZ/logs"
for i in 1 2 3 4 5 6 7 8; do
    [ -e "$FUZZ/corpus/machines/seed-$i" ] || head -c $((32 * i)) /dev/urandom >"$FUZZ/corpus/machines/seed-$i"
done

echo "building the targets (sanitizer: $SANITIZER)"
cargo +nightly fuzz build --fuzz-dir "$FUZZ" -s "$SANITIZER" >"$FUZZ/logs/build.log" 2>&1 || {
    cat "$FUZZ/logs/build.log" >&2
    exit 1
}

total=0
summary=()
for t in "${TARGETS[@]}"; do
    mkdir -p "$FUZZ/artifacts/$t"
    before=$(find "$FUZZ/artifacts/$t" -type f | wc -l)
    log="$FUZZ/logs/$t.log"
    : >"$log"
    runs=0
    used=0
    while [ "$used" -lt "$SECONDS_PER_TARGET" ]; do
        left=$((SECONDS_PER_TARGET - used))
        start=$(date +%s)
        echo "== $t: fuzzing for ${left}s (log: $log)"
        # Exit code 1 is a crash (an artifact was written); go on.
        cargo +nightly fuzz run --fuzz-dir "$FUZZ" -s "$SANITIZER" "$t" -- \
            -max_total_time="$left" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
            -print_final_stats=1 >>"$log" 2>&1 || true
        end=$(date +%s)
        used=$((used + end - start))
        n=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{s += $2} END {print s + 0}')
        runs=$n
        if [ $((end - start)) -lt 2 ]; then
            echo "fuzz.sh: $t stopped at once; see $log" >&2
            break
        fi
    done
    after=$(find "$FUZZ/artifacts/$t" -type f | wc -l)
    found=$((after - before))
    total=$((total + used))
    summary+=("$(printf '%-10s runs %10d   time %5ds   crashes %d' "$t" "$runs" "$used" "$found")")
done

echo
echo "== fuzzing summary (artifacts in $FUZZ/artifacts/TARGET/)"
printf '%s\n' "${summary[@]}"
echo "total time: ${total}s"
