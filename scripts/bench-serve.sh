#!/usr/bin/env bash
# Measures `agentgate serve` at scale on this machine: builds the release
# binaries, then runs crates/agentgate-fixtures/src/bin/bench-serve.rs,
# which starts a real server with `instant-cli` standing in for the agent
# CLI and prints the time from POST /v1/runs to the CLI's start (idle
# queue, against spawning the CLI directly), the server's memory per
# running job with 500 jobs held running at once (keepers and CLIs counted
# apart), and SSE fan-out to 100 clients of one run.
#
#   scripts/bench-serve.sh [--jobs N] [--clients N] [--latency-runs N]
#
# Fails only when a job fails or a client misses an event, never on a
# timing.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

cargo build --release --quiet -p agentgate -p agentgate-fixtures --bins
bin="${CARGO_TARGET_DIR:-$root/target}/release"
exec "$bin/bench-serve" --agentgate "$bin/agentgate" --instant-cli "$bin/instant-cli" "$@"
