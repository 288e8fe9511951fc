#!/usr/bin/env bash
# The project's test command (the README's, and what .ci/run calls):
# installs the pinned real CLIs, Debian's Chromium (for the dashboard's
# browser test), Debian's PostgreSQL and iproute2 (the partition fault
# drill's network namespaces) and systemd-analyze (for the example
# units' test), starts a throwaway PostgreSQL cluster on a Unix socket in a
# temporary folder (AGENTGATE_TEST_POSTGRES: the store's tests run on
# SQLite and on it), then checks formatting and
# lints, then runs every test, including the end-to-end tests that drive the
# real CLIs against `agentgate fake-llm`, and the fault drill last, alone.
# Arguments go to one `cargo test --workspace` instead.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scripts/install-clis.sh
scripts/install-browser.sh
scripts/install-postgres.sh
scripts/install-systemd.sh
pg_dir=$(mktemp -d /tmp/agentgate-pg.XXXXXX)
trap 'scripts/pg-cluster.sh stop "$pg_dir"; rm -rf "$pg_dir"' EXIT
AGENTGATE_TEST_POSTGRES=$(scripts/pg-cluster.sh start "$pg_dir")
export AGENTGATE_TEST_POSTGRES
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
if [ "$#" -gt 0 ]; then
  cargo test --workspace --locked "$@"
  exit
fi
# The fault drill times processes against each other (kills, leases,
# stamps of when each stand-in started and ended): it runs on its own
# after the rest, so the load of the real CLIs' tests beside it does not
# decide its timings.
cargo test --workspace --locked -- --skip suite::fault_drill::
cargo test -p agentgate --test all --locked -- suite::fault_drill::
