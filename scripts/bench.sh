#!/usr/bin/env bash
# Measures what `agentgate run` adds over calling an agent CLI directly, as
# whole processes: builds the release binaries, then runs
# crates/agentgate-fixtures/src/bin/bench-run.rs against the `instant-cli`
# fixture (a fake Claude Code that answers at once).
#
#   scripts/bench.sh [--iterations N] [--warmup N] [bench-run options...]
#
# Prints median and p90 wall time of the direct CLI, of `agentgate --version`
# (the binary starting and exiting with no work) and of `agentgate run`
# (--no-store and with a temporary store), the added milliseconds, and the
# peak RSS of each run. Fails only when a run fails or answers wrongly,
# never on a timing. `bench-run --help` lists its options.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

cargo build --release --quiet -p agentgate -p agentgate-fixtures --bins
bin="${CARGO_TARGET_DIR:-$root/target}/release"
exec "$bin/bench-run" --agentgate "$bin/agentgate" --instant-cli "$bin/instant-cli" "$@"
