#!/usr/bin/env bash
# End-to-end test of `deepcps debug` in a real terminal: the release binary
# runs inside tmux; keys go in with send-keys, the screen comes back with
# capture-pane, and each step of a debugging walkthrough is checked:
# start, ten steps, a breakpoint on `pt`, continue to it, step back, run to
# the end and read the paper's residual, help, a resize, quitting with the
# terminal restored; then a long run (1.2 million steps) that keeps the
# screen updating and pauses on a key; a panic that gives the terminal back;
# SIGTERM, SIGHUP and SIGINT that give it back too; Ctrl-C while paused saying how
# to quit; Ctrl-C stopping `deepcps run` with the counts so far; bench's
# table and progress; compile's progress line on a long build; and a
# runaway program ended at the memory limit in the debugger.
#
# Usage: scripts/tui-e2e.sh [--no-build]   (installs tmux with apt-get when missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if ! command -v tmux >/dev/null; then
  echo "== installing tmux"
  (apt-get update -qq && apt-get install -y -qq tmux) >/dev/null 2>&1 || { echo "FAIL: cannot install tmux" >&2; exit 1; }
fi
[ "${1:-}" = "--no-build" ] || cargo build -q --release -p deepcps
bin="$root/target/release/deepcps"
sock="deepcps-e2e-$$"
work=$(mktemp -d)
t() { tmux -L "$sock" "$@"; }
cleanup() { t kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

fail() { echo "FAIL: $1" >&2; echo "--- screen:" >&2; t capture-pane -p -t "$cur" >&2 || true; exit 1; }

# Waits (up to $2 tenths of a second, 10 s by default) until the screen
# shows $1.
wait_for() {
  for _ in $(seq 1 "${2:-100}"); do
    if t capture-pane -p -t "$cur" | grep -qF -- "$1"; then return 0; fi
    sleep 0.1
  done
  fail "the screen never showed: $1"
}

# Presses Space on a running debugger and sets pause_ms to the time until
# the screen says it paused (polled every 10 ms; at most 5 s).
pause_now() {
  local t0 t1
  t0=$(date +%s%N)
  t send-keys -t "$cur" Space
  for _ in $(seq 1 500); do
    t capture-pane -p -t "$cur" | grep -qF "paused at step" && break
    sleep 0.01
  done
  t1=$(date +%s%N)
  wait_for "paused at step"
  pause_ms=$(( (t1 - t0) / 1000000 ))
}

# Each program gets a session of its own on one tmux server (killing the
# server between programs races with starting the next).
cur=e2e0
start() {
  cur="e2e$((${cur#e2e} + 1))"
  t new-session -d -s "$cur" -x "${3:-120}" -y "${4:-40}" \
    "cd '$root' && TERM=xterm-256color '$bin' debug '$1'; echo \"deepcps exited \$?\"; stty -a | grep -q ' icanon' && echo cooked; sleep 600"
  wait_for "$2"
}

echo "== the walkthrough on arith_built.dcps"
start corpus/paper/arith_built.dcps "‖ paused │ step 0 │"
wait_for "term · step 0"
wait_for " thread"
t send-keys -t "$cur" 1 0 s
wait_for "step 10 │"
t send-keys -t "$cur" b p t Enter
wait_for "1 [x] pt is bound"
t send-keys -t "$cur" c
wait_for "breakpoint 1: pt is bound (step 284)"
t send-keys -t "$cur" u
wait_for "step 283 │"
t send-keys -t "$cur" '?'
wait_for "deepcps debug: keys"
t send-keys -t "$cur" Escape
sleep 0.3
t capture-pane -p -t "$cur" | grep -qF "deepcps debug: keys" && fail "help did not close"
t send-keys -t "$cur" r
wait_for "■ ended │ step 330"
for line in '(exit)[pt] {' '@pt: "4*2" (prod)[pt]' '@pt: "1+prod" (sum)[pt]' '@pt: "sum+3" (sum)[pt]' '@pt: exit sum'; do
  wait_for "$line"
done
echo "ok: start, 10 steps, breakpoint on pt, step back, help, run to the end, the paper's residual"

t resize-window -t "$cur" -x 40 -y 12
wait_for "exit value"
t resize-window -t "$cur" -x 20 -y 5
wait_for "too small"
t resize-window -t "$cur" -x 120 -y 40
wait_for "■ ended │ step 330"
echo "ok: resized to 40x12, 20x5 (too small) and back"

t send-keys -t "$cur" q
wait_for "deepcps exited 0"
wait_for "cooked"
echo "ok: q quits with exit code 0 and the terminal back in cooked mode"

echo "== a long run keeps drawing and pauses on a key"
sed 's/let N = 1000/let N = 200000/' corpus/bench/loop_sum.dcps > "$work/loop.dcps"
start "$work/loop.dcps" "‖ paused │ step 0 │"
t send-keys -t "$cur" c
wait_for "▶ running"
s1=$(t capture-pane -p -t "$cur" | grep -o '│ step [0-9]*' | head -1 | tr -dc 0-9 || true)
sleep 0.5
s2=$(t capture-pane -p -t "$cur" | grep -o '│ step [0-9]*' | head -1 | tr -dc 0-9 || true)
[ -n "$s1" ] && [ -n "$s2" ] && [ "$s2" -gt "$s1" ] || fail "the step count did not move while running ($s1, $s2)"
pause_now
# The screen answers within a frame or two; 1 s leaves room for a loaded CI
# machine (tmux's own capture takes a few milliseconds each time).
[ "$pause_ms" -lt 1000 ] || fail "pausing took $pause_ms ms"
s3=$(t capture-pane -p -t "$cur" | grep -o '│ step [0-9]*' | head -1 | tr -dc 0-9 || true)
sleep 0.5
s4=$(t capture-pane -p -t "$cur" | grep -o '│ step [0-9]*' | head -1 | tr -dc 0-9 || true)
[ "$s3" = "$s4" ] || fail "still running after the pause ($s3, $s4)"
echo "ok: running drew steps $s1 then $s2; paused at $s3, seen on screen $pause_ms ms after the key"
t send-keys -t "$cur" C-c
t send-keys -t "$cur" q
wait_for "deepcps exited 0"

echo "== a wide program on two threads: rounds outlast the slices, the pause stops one, going back replays into it"
sed 's/^let D = .*/let D = 20/' corpus/bench/psum.dcps > "$work/psum.dcps"
cur="e2e$((${cur#e2e} + 1))"
t new-session -d -s "$cur" -x 120 -y 40 \
  "cd '$root' && TERM=xterm-256color '$bin' debug --threads 2 '$work/psum.dcps'; echo \"deepcps exited \$?\"; sleep 600"
wait_for "‖ paused │ step 0 │"
wait_for "2 threads"
t send-keys -t "$cur" c
wait_for "▶ running"
sleep 1
pause_now
[ "$pause_ms" -lt 1000 ] || fail "pausing in a round took $pause_ms ms"
s5=$(t capture-pane -p -t "$cur" | grep -o '│ step [0-9]*' | head -1 | tr -dc 0-9 || true)
[ -n "$s5" ] && [ "$s5" -gt 0 ] || fail "no steps before the pause ($s5)"
# The first step back replays the stretch the round ran, on one thread
# (some seconds here): up to 120 s on a slow machine.
t send-keys -t "$cur" u
wait_for "│ step $((s5 - 1)) │" 1200
echo "ok: paused in a round at step $s5, $pause_ms ms after the key; one step back replayed to $((s5 - 1))"
t send-keys -t "$cur" q
wait_for "deepcps exited 0"

echo "== a panic gives the terminal back"
cur="e2e$((${cur#e2e} + 1))"
t new-session -d -s "$cur" -x 120 -y 40 \
  "cd '$root' && DEEPCPS_DEBUG_TEST_PANIC=1 TERM=xterm-256color '$bin' debug corpus/paper/arith_built.dcps; echo \"deepcps exited \$?\"; stty -a | grep -q ' icanon' && echo cooked; sleep 600"
wait_for "deepcps exited 101"
wait_for "internal error"
wait_for "cooked"
t capture-pane -p -t "$cur" | grep -qF "paused" && fail "the debugger's screen was left behind"
echo "ok: after a panic, exit code 101, the message on the normal screen, the terminal cooked"

echo "== SIGTERM, SIGHUP and SIGINT (kill -INT) give the terminal back"
# tmux's view of the pane: on the alternate screen or not, cursor shown or not.
screen_state() { t display -p -t "$cur" '#{alternate_on} #{cursor_flag}'; }
for sig in TERM:143 HUP:129 INT:130; do
  name=${sig%:*}
  code=${sig#*:}
  start corpus/paper/arith_built.dcps "‖ paused │ step 0 │"
  [ "$(screen_state)" = "1 0" ] || fail "the debugger is not on the alternate screen with the cursor hidden: $(screen_state)"
  # The pane's shell runs deepcps as its child; signal that process alone.
  pid=$(pgrep -P "$(t display -p -t "$cur" '#{pane_pid}')" -x deepcps || true)
  [ -n "$pid" ] || fail "no deepcps process under the pane"
  kill -s "$name" "$pid"
  wait_for "deepcps exited $code"
  wait_for "SIG$name received: the debugger ended"
  wait_for "cooked"
  [ "$(screen_state)" = "0 1" ] || fail "after SIG$name the pane is not back on the main screen with the cursor shown: $(screen_state)"
done
echo "ok: SIGTERM, SIGHUP and SIGINT: exit codes 143, 129 and 130, the main screen, the cursor shown, the terminal cooked"

echo "== Ctrl-C while paused says how to quit; the exit value shows after a run from far down"
start corpus/paper/arith_built.dcps "‖ paused │ step 0 │" 100 20
t send-keys -t "$cur" C-c
wait_for "Ctrl-C stops a run; press q to quit"
t send-keys -t "$cur" 1 0 0 s
wait_for "step 100 │"
t send-keys -t "$cur" j r
wait_for "■ ended │ step 330"
wait_for "(exit)[pt] {"
wait_for "@pt: exit sum"
t send-keys -t "$cur" q
wait_for "deepcps exited 0"
echo "ok: Ctrl-C while paused names q; after j and r the exit value is on screen"

echo "== Ctrl-C stops deepcps run cleanly, with the counts so far"
printf 'fix loop(i) {\n  "i+1" (j)\n  loop j\n} in\nloop 0\n' > "$work/forever.dcps"
cur="e2e$((${cur#e2e} + 1))"
t new-session -d -s "$cur" -x 120 -y 20 \
  "cd '$root' && '$bin' run '$work/forever.dcps' --max-steps 1000000000000; echo \"deepcps exited \$?\"; sleep 600"
sleep 1
t send-keys -t "$cur" C-c
wait_for "deepcps exited 130"
wait_for "interrupted after"
wait_for "steps: "
echo "ok: Ctrl-C: exit code 130, 'interrupted after N steps' and the step counts"

echo "== deepcps bench on a terminal: the table, JSON beside it, Ctrl-C"
cur="e2e$((${cur#e2e} + 1))"
t new-session -d -s "$cur" -x 160 -y 30 \
  "cd '$root' && '$bin' bench corpus/bench/loop_sum.dcps; echo \"deepcps exited \$?\"; sleep 600"
wait_for "deepcps exited 0" 300
wait_for "summary: 1 program: 1 pass"
cur="e2e$((${cur#e2e} + 1))"
t new-session -d -s "$cur" -x 160 -y 30 \
  "cd '$root' && '$bin' bench --json '$work/bench.json' corpus/bench/loop_sum.dcps >/dev/null; echo \"deepcps exited \$?\"; sleep 600"
wait_for "deepcps exited 0" 300
grep -q '"program"' "$work/bench.json" || fail "bench --json wrote no rows"
mkdir -p "$work/bench"
sed 's/^let N = .*/let N = 1000000000/; s/expect: exit 500500/expect: exit/' corpus/bench/loop_sum.dcps > "$work/bench/a_long.dcps"
cp corpus/bench/loop_sum.dcps "$work/bench/b_short.dcps"
cur="e2e$((${cur#e2e} + 1))"
t new-session -d -s "$cur" -x 160 -y 30 \
  "cd '$root' && '$bin' bench --max-steps 100000000000 --timeout 600 '$work/bench'; echo \"deepcps exited \$?\"; sleep 600"
wait_for "a_long.dcps"
sleep 1
t send-keys -t "$cur" C-c
wait_for "deepcps exited 130"
wait_for "interrupted (Ctrl-C): 1 of 2"
t capture-pane -p -t "$cur" | grep -qF "b_short.dcps" && fail "bench started a program after Ctrl-C"
echo "ok: bench on a terminal finishes (also with --json), Ctrl-C stops it with exit 130 and the table so far"

echo "== deepcps compile on a terminal: a line says what it does, then goes"
awk 'BEGIN { print "let x0 = 0"; for (i = 1; i <= 20000; i++) printf "\"x%d + %d\" (x%d)\n", i - 1, i, i; print "$exit x20000" }' > "$work/chain.dcps"
cur="e2e$((${cur#e2e} + 1))"
t new-session -d -s "$cur" -x 160 -y 30 \
  "cd '$work' && '$bin' compile chain.dcps; echo \"deepcps exited \$?\"; ./chain; sleep 600"
wait_for "compiling the C: " 300
wait_for "deepcps exited 0" 600
wait_for "200010000"
t capture-pane -p -t "$cur" | grep -qF "compiling the C" && fail "the progress line stayed on the screen"
echo "ok: compile shows its progress on a terminal and clears it"

echo "== breakpoints: no staging variable is refused; stuck stops only on a stuck body the term shows"
start corpus/paper/arith_built.dcps "‖ paused │ step 0 │" 200 50
t send-keys -t "$cur" b z z z Enter
wait_for "\`zzz\` is no staging variable of this program; its staging variables: Snext, bt, ct"
t send-keys -t "$cur" b s t u c k Enter
wait_for "1 [x] a body turns stuck"
t send-keys -t "$cur" c
wait_for "■ ended │ step 330"
t capture-pane -p -t "$cur" | grep -qF "breakpoint 1" && fail "the stuck breakpoint stopped arith_built"
printf '(s) {\n  $exit (x) {\n    @s: x 1\n  }\n} always\n' > "$work/stuck.dcps"
start "$work/stuck.dcps" "‖ paused │ step 0 │" 200 50
t send-keys -t "$cur" b s t u c k Enter
t send-keys -t "$cur" c
wait_for "breakpoint 1: a body turns stuck (step 1): the body at"
wait_for "stuck.dcps:3:5 waits for \`x\`"
t send-keys -t "$cur" q
echo "ok: breakpoints on no staging variable refused with the choices; stuck stops name the body"

echo "== 80x24: the hidden panes named, the help whole, search counts, the exit value's graph"
start corpus/paper/arith_built.dcps "‖ paused │ step 0 │" 80 24
wait_for "pane 1/4 · Tab: graph, chains, breakpoints"
wait_for "? help"
t send-keys -t "$cur" '?'
wait_for "Esc closes this help"
wait_for "or bound (its bodies"
wait_for "a large term's part left out"
wait_for "q  quit"
t send-keys -t "$cur" Escape
sleep 1
t send-keys -t "$cur" / n u m b e r Enter
wait_for "/number: match 1 of 5"
t send-keys -t "$cur" n
wait_for "/number: match 2 of 5"
t send-keys -t "$cur" Escape
sleep 1
t send-keys -t "$cur" r
wait_for "■ ended │ step 330"
t send-keys -t "$cur" Tab
wait_for "[λ(exit)[pt]]"
t capture-pane -p -t "$cur" | grep -qF '@never: $exit' && fail "the graph pane shows the exit value's holder"
t send-keys -t "$cur" q
echo "ok: at 80x24 the panes, the help, search and the exit value's graph read whole"

echo "== a runaway program under ulimit -v 4 GB: limits and messages, never an abort"
printf 'fix grow(t) {\n  grow [t, t]\n} in\ngrow []\n' > "$work/grow.dcps"
limited() { (ulimit -v 4000000; "$bin" "$@" "$work/grow.dcps" >"$work/out" 2>"$work/err"); echo $?; }
[ "$(limited run)" = 3 ] && grep -q "node limit reached" "$work/err" || fail "run: $(cat "$work/err")"
[ "$(limited run --max-steps 30)" = 3 ] && grep -q "step limit reached" "$work/err" || fail "run --max-steps: $(cat "$work/err")"
for cmd in "run --stop-after 30" "dump --max-steps 30" "dump --step 30" "dot --step 30" "chains --step 30"; do
  # shellcheck disable=SC2086
  code=$(limited $cmd)
  [ "$code" = 3 ] && grep -q "is too large to build" "$work/err" && grep -q -- "--max-nodes" "$work/err" \
    || fail "$cmd: exit $code: $(cat "$work/err")"
done
cur="e2e$((${cur#e2e} + 1))"
t new-session -d -s "$cur" -x 160 -y 30 \
  "cd '$root' && (ulimit -v 4000000; TERM=xterm-256color '$bin' debug '$work/grow.dcps'); echo \"deepcps exited \$?\"; stty -a | grep -q ' icanon' && echo cooked; sleep 600"
wait_for "‖ paused │ step 0 │"
t send-keys -t "$cur" 3 0 s
# The debugger shows a window of the term, the doubled tuple elided.
wait_for "term window on the ready body (1 …, 0 above) · step 30"
wait_for "grow …"
t send-keys -t "$cur" q
wait_for "deepcps exited 0"
wait_for "cooked"
echo "ok: under ulimit -v, run stops at the node limit; run, dump, dot and chains refuse a term too large to write out, the debugger shows a window of it"

echo "== the debugger stops a runaway at the memory limit and keeps the terminal"
printf 'fix grow(t, k) { "[t, t]" (u) grow u k } in grow [1] $exit\n' > "$work/tuple_grow.dcps"
for limit in "3000000:--max-memory 200M:memory limit reached" "1000000::address space limit reached"; do
  kb=${limit%%:*}
  rest=${limit#*:}
  flag=${rest%%:*}
  says=${rest#*:}
  cur="e2e$((${cur#e2e} + 1))"
  t new-session -d -s "$cur" -x 160 -y 30 \
    "cd '$root' && (ulimit -v $kb; TERM=xterm-256color '$bin' debug $flag '$work/tuple_grow.dcps'); echo \"deepcps exited \$?\"; stty -a | grep -q ' icanon' && echo cooked; sleep 600"
  wait_for "‖ paused │ step 0 │"
  t send-keys -t "$cur" r
  wait_for "$says" 600
  wait_for "showing the last snapshot"
  t send-keys -t "$cur" q
  wait_for "deepcps exited 0"
  wait_for "cooked"
done
echo "ok: the debugger ends a runaway at --max-memory (under ulimit -v 3 GB) and at the address space (1 GB), says so, and quits cleanly"

echo "== bad input: a file that does not parse, --threads 0"
out=$("$bin" debug corpus/err/syntax_truncated.dcps 2>&1 || true)
echo "$out" | grep -q "syntax_truncated.dcps" || { echo "FAIL: no diagnostic: $out" >&2; exit 1; }
out=$("$bin" debug --threads 0 corpus/paper/arith_built.dcps 2>&1 || true)
echo "$out" | grep -q "the number of threads is at least 1" || { echo "FAIL: --threads 0 not refused: $out" >&2; exit 1; }
echo "ok: diagnostics and refusals outside the terminal"
echo "tui-e2e: all passed"
