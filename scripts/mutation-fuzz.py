#!/usr/bin/env python3
"""Mutation fuzzing of the real binary, by hand (the coverage-guided cargo-fuzz
targets are in tests/fuzz/): random byte edits of every corpus program are run
through `deepcps run` (with step and time limits) and `deepcps fmt`; any panic
(exit 101), signal or hang, and any `fmt` output that does not format to
itself, is kept under the output folder.

Usage: scripts/mutation-fuzz.py [--seconds N] [--seed S] [--out DIR]
"""
import argparse, glob, os, random, re, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, 'target', 'release', 'deepcps')
TOKENS = [b'(', b')', b'{', b'}', b'[', b']', b'!', b'@', b':', b'"', b"'", b'$exit', b'if',
          b'fix', b'let', b'in', b'always', b'never', b'&', b'|', b',', b'x', b'0', b'-1',
          b'1e999', b'/*', b'//', b'\n', b'\xff', b'"a+"', b'"[1,2][5]"', b'!!', b'@x:', b'..']


def absolute_includes(text, folder):
    """Rewrites `include "rel"` to absolute paths so the mutant runs anywhere."""
    def fix(m):
        return b'include "' + os.path.join(folder, m.group(1).decode('utf-8', 'replace')).encode() + b'"'
    return re.sub(rb'include "([^"/][^"]*)"', fix, text)


def mutate(rng, src):
    b = bytearray(src)
    for _ in range(rng.randint(1, 6)):
        pos = rng.randint(0, max(0, len(b) - 1))
        op = rng.random()
        if op < 0.35 and len(b) > 1:
            del b[pos:pos + rng.randint(1, 8)]
        elif op < 0.7:
            b[pos:pos] = rng.choice(TOKENS)
        else:
            b[pos:pos + 1] = bytes([rng.randint(0, 255)])
    return bytes(b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seconds', type=float, default=120)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--out', default='/tmp/deepcps-mutation-fuzz')
    args = ap.parse_args()
    subprocess.run(['cargo', 'build', '-q', '--release', '--manifest-path', os.path.join(ROOT, 'Cargo.toml')], check=True)
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    files = sorted(glob.glob(os.path.join(ROOT, 'corpus', '**', '*.dcps'), recursive=True))
    case = os.path.join(args.out, 'case.dcps')
    formatted = os.path.join(args.out, 'formatted.dcps')
    runs, found = 0, []
    start = time.time()
    while time.time() - start < args.seconds:
        original = rng.choice(files)
        text = absolute_includes(mutate(rng, open(original, 'rb').read()), os.path.dirname(original))
        open(case, 'wb').write(text)
        problems = []
        try:
            r = subprocess.run([BIN, 'run', '--max-steps', '20000', '--timeout', '3', case], capture_output=True, timeout=30)
            if r.returncode not in (0, 1, 2, 3):
                problems.append('run exited %d' % r.returncode)
            f = subprocess.run([BIN, 'fmt', '--drop-comments', case], capture_output=True, timeout=30)
            if f.returncode not in (0, 2):
                problems.append('fmt exited %d' % f.returncode)
            elif f.returncode == 0:
                open(formatted, 'wb').write(f.stdout)
                again = subprocess.run([BIN, 'fmt', formatted], capture_output=True, timeout=30)
                if again.returncode != 0 or again.stdout != f.stdout:
                    problems.append('fmt output does not format to itself')
        except subprocess.TimeoutExpired:
            problems.append('hang')
        runs += 1
        if problems:
            keep = os.path.join(args.out, 'found_%d.dcps' % len(found))
            open(keep, 'wb').write(text)
            found.append((keep, problems))
    print('%d mutants in %.0f s, %d problems' % (runs, time.time() - start, len(found)))
    for keep, problems in found[:20]:
        print(keep, '; '.join(problems))
    sys.exit(1 if found else 0)


if __name__ == '__main__':
    main()
