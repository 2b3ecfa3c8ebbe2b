# Sourced by the scripts that time the release binary (bench.sh,
# par-bench.sh, hostile.sh): `release_setup NAME BUILD` checks for GNU time
# (peak RSS, faults), builds the release binary when BUILD is 1, and sets
# `bin` to it and `work` to a temporary directory removed on exit. Needs
# `root` (the repository) set by the caller.
release_setup() {
  [ -x /usr/bin/time ] || { echo "$1 needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 2; }
  if [ "$2" = 1 ]; then
    cargo build -q --release --manifest-path "$root/Cargo.toml" -p deepcps
  fi
  bin="$root/target/release/deepcps"
  [ -x "$bin" ] || { echo "no release binary at $bin" >&2; exit 2; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}
