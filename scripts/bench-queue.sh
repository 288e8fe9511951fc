#!/usr/bin/env bash
# Measures the queue's throughput with many workers on this machine: builds
# the release binaries, starts a throwaway PostgreSQL cluster with its
# default durability (fsync and synchronous commit on, as in production;
# scripts/pg-cluster.sh, Debian's PostgreSQL, see scripts/install-postgres.sh)
# unless --postgres URL is given, then runs
# crates/agentgate-fixtures/src/bin/bench-queue/: jobs claimed and
# finished per second by 1, 3 and 6 `agentgate worker` processes on
# `instant-cli`, and one worker draining the first 1,000 jobs of a backlog
# of 300, 10,000 and 100,000 (with the submit latency and the peak RSS at
# that depth), on SQLite and on PostgreSQL, side by side.
#
#   scripts/bench-queue.sh [--jobs N] [--workers LIST] [--backlogs LIST] [--drain N]
#                          [--concurrency N] [--only workers,backlog] [--postgres URL]
#
# Fails only when a job fails, never on a timing.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

cargo build --release --quiet -p agentgate -p agentgate-fixtures --bins
bin="${CARGO_TARGET_DIR:-$root/target}/release"
args=("$@")
if [[ " $* " != *" --postgres "* ]]; then
    pg_dir=$(mktemp -d /tmp/agentgate-bench-pg.XXXXXX)
    trap 'scripts/pg-cluster.sh stop "$pg_dir"; rm -rf "$pg_dir"' EXIT
    url=$(PG_CLUSTER_DURABLE=1 scripts/pg-cluster.sh start "$pg_dir")
    args+=(--postgres "$url")
fi
"$bin/bench-queue" --agentgate "$bin/agentgate" --instant-cli "$bin/instant-cli" "${args[@]}"
