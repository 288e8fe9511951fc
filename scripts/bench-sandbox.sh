#!/usr/bin/env bash
# Measures the start-up time a sandbox adds per agent run on this machine:
# builds the release binaries, then runs
# crates/agentgate-fixtures/src/bin/bench-sandbox/main.rs, which prints,
# side by side in one process (interleaved: off, workspace, strict, off,
# ...), the median and p90 wall time of `agentgate run --no-store
# --sandbox LEVEL` with the `instant-cli` stand-in (which answers at once),
# the time each level adds over `off` and the ratio, each level's envelope
# `sandbox.state`; then `agentgate __sandbox SPEC` around /bin/true against
# /bin/true directly. Target: <= 10 ms added for workspace and strict.
#
#   scripts/bench-sandbox.sh [--runs N] [bench-sandbox options...]
#
# Fails when a level or the chain fails (printed as FAILED with the
# reason, not timed), never on a timing. `bench-sandbox --help` lists its
# options.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

cargo build --release --quiet -p agentgate -p agentgate-fixtures --bin agentgate --bin instant-cli --bin bench-sandbox
bin="${CARGO_TARGET_DIR:-$root/target}/release"
echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates || echo ' (with local changes)')"
exec "$bin/bench-sandbox" --agentgate "$bin/agentgate" --instant-cli "$bin/instant-cli" "$@"
