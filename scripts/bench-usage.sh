#!/usr/bin/env bash
# Measures how long a usage report (`agentgate usage`, `GET /v1/usage`)
# takes on SQLite stores of 10k, 100k and 1M runs: builds the release
# bench, then runs crates/agentgate-fixtures/src/bin/bench-usage/main.rs,
# which generates each store (runs over 90 days, several providers, models,
# agents, chains, sessions and labels) and prints the time of the last 30
# days' report by day for each dimension, in ms and as a ratio to a
# `SELECT COUNT(*) FROM runs` measured in the same process. Target: under
# 1 s for a month's report at one million runs.
#
#   scripts/bench-usage.sh [--sizes N,N,...] [--repeat N] [--dir DIR]
#
# Fails when a report's totals disagree with the runs generated, never on
# a timing. The 1M store takes about 1 GiB of disk while it is measured.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

cargo build --release --quiet -p agentgate-fixtures --bin bench-usage
bin="${CARGO_TARGET_DIR:-$root/target}/release"
echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates || echo ' (with local changes)')"
exec "$bin/bench-usage" "$@"
