#!/usr/bin/env bash
# The project's test command (the README's, and what .ci/run calls):
# installs the pinned real CLIs, Debian's Chromium (for the dashboard's
# browser test), Debian's PostgreSQL and iproute2 (the partition fault
# drill's network namespaces), systemd-analyze (for the example
# units' test) and Debian's podman and runc (the container sandbox's
# tests), starts a throwaway PostgreSQL cluster on a Unix socket in a
# temporary folder (AGENTGATE_TEST_POSTGRES: the store's tests run on
# SQLite and on it), then checks formatting and
# lints, builds the book (mdbook build docs: scripts/install-mdbook.sh
# installs the pinned mdbook; the book's links are checked by the test
# suite::docs_links), then runs every test with cargo-nextest (.config/nextest.toml: the
# fault drills and the benchmarks' small-scale runs each run alone),
# including the end-to-end tests that drive the real CLIs against
# `agentgate fake-llm`, then the doc tests (which nextest does not run).
# Arguments go to `cargo nextest run --workspace` instead (e.g. `-E
# 'test(/fault_drill/)'` or a test name).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scripts/install-nextest.sh
scripts/install-mdbook.sh
scripts/install-clis.sh
scripts/install-clients.sh
scripts/install-browser.sh
scripts/install-postgres.sh
scripts/install-systemd.sh
scripts/install-podman.sh
scripts/install-schemathesis.sh
pg_dir=$(mktemp -d /tmp/agentgate-pg.XXXXXX)
trap 'scripts/pg-cluster.sh stop "$pg_dir"; rm -rf "$pg_dir"' EXIT
AGENTGATE_TEST_POSTGRES=$(scripts/pg-cluster.sh start "$pg_dir")
export AGENTGATE_TEST_POSTGRES
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
mdbook build docs
if [ "$#" -gt 0 ]; then
  cargo nextest run --workspace --locked "$@"
  exit
fi
start=$SECONDS
cargo nextest run --workspace --locked
cargo test --workspace --locked --doc
echo "== the tests took $((SECONDS - start)) s"
