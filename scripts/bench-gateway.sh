#!/usr/bin/env bash
# Measures the model gateway's cost on this machine: builds the release
# binaries, then runs crates/agentgate-fixtures/src/bin/bench-gateway.rs,
# which prints, side by side in one process, the time to first byte and the
# total time of streamed model calls straight to an in-process fake-llm and
# through the gateway (p50, p90 and the added time), then the gateway's
# memory per concurrent stream (a process serving only the gateway, idle
# and with 200 slow streams open).
#
#   scripts/bench-gateway.sh [--calls N] [--streams N]
#
# Fails only when a call fails, never on a timing.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

cargo build --release --quiet -p agentgate-fixtures --bin bench-gateway
bin="${CARGO_TARGET_DIR:-$root/target}/release"
echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates || echo ' (with local changes)')"
exec "$bin/bench-gateway" "$@"
