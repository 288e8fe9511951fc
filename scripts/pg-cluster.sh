#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests, on a Unix socket in a
# temporary folder; nothing listens on TCP.
#
#   scripts/pg-cluster.sh start DIR   # initdb + start; prints the URL
#   scripts/pg-cluster.sh stop DIR    # stop it (DIR can then be removed)
#
# The server binaries come from Debian's `postgresql` package
# (/usr/lib/postgresql/<version>/bin), or PG_BIN. As root the cluster is
# made and run by the `postgres` user (initdb refuses root). Durability is
# off (fsync, synchronous_commit, full_page_writes): the data is thrown
# away, the tests want speed.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
if [[ -z "$cmd" || -z "$dir" ]]; then
    echo "usage: $0 start|stop DIR" >&2
    exit 2
fi

if [[ -z "${PG_BIN:-}" ]]; then
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
fi
if [[ -z "$PG_BIN" || ! -x "$PG_BIN/initdb" ]]; then
    echo "error: no PostgreSQL server binaries (install Debian's postgresql package, or set PG_BIN)" >&2
    exit 1
fi

as_owner() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

case "$cmd" in
start)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ $(id -u) -eq 0 ]]; then
        chown postgres: "$dir"
    fi
    chmod 700 "$dir"
    as_owner "$PG_BIN/initdb" -D "$dir/data" --auth=trust --username=agentgate \
        --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        exit 1
    }
    as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start -o \
        "-c listen_addresses='' -k $dir -c fsync=off -c synchronous_commit=off \
         -c full_page_writes=off -c max_connections=400 -c shared_buffers=64MB" >/dev/null || {
        cat "$dir/server.log" >&2
        exit 1
    }
    echo "postgres://agentgate@localhost/postgres?host=$dir"
    ;;
stop)
    as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    ;;
*)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
