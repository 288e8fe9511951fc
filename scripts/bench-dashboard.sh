#!/usr/bin/env bash
# Measures how long the dashboard takes to paint its runs list in headless
# Chromium (Debian's, scripts/install-browser.sh) with 10,000 runs in the
# store: builds the release binary and bench, then runs
# crates/agentgate-fixtures/src/bin/bench-dashboard/main.rs, which serves
# an empty store and a store of ended runs with `agentgate serve`, loads
# the page several times and prints the median time from the navigation's
# start to the list's first paint (the page's `runs-listed` mark), and its
# ratio to the empty store's. Target: under 500 ms with 10,000 runs.
#
#   scripts/bench-dashboard.sh [--runs N] [--repeat N]
#
# Fails when the list does not paint a full first page, never on a timing.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

cargo build --release --quiet -p agentgate --bin agentgate -p agentgate-fixtures --bin bench-dashboard
bin="${CARGO_TARGET_DIR:-$root/target}/release"
echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates || echo ' (with local changes)')"
exec "$bin/bench-dashboard" --agentgate "$bin/agentgate" "$@"
