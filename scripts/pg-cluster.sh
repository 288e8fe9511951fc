#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests, on a Unix socket in a
# temporary folder; nothing listens on TCP.
#
#   scripts/pg-cluster.sh start DIR   # initdb + start; prints the URL
#   scripts/pg-cluster.sh stop DIR    # stop it (DIR can then be removed)
#
# With PG_CLUSTER_TLS=CERTDIR and PG_CLUSTER_PORT=PORT the cluster also
# listens on 127.0.0.1:PORT with TLS (ssl = on), using CERTDIR/server.crt
# and CERTDIR/server.key (copied into DIR, the key mode 0600, both owned by
# the cluster's user, as the server demands). TCP clients must use TLS
# (pg_hba.conf has `hostssl` lines only); the Unix socket stays plain. The
# URL printed is then the TCP one, postgres://agentgate@127.0.0.1:PORT/postgres.
#
# With PG_CLUSTER_LISTEN=ADDR and PG_CLUSTER_PORT=PORT the cluster also
# listens on ADDR:PORT in plain TCP, trusting clients of ADDR's own subnets
# (`host all all samenet trust`): the fault drill's partition, whose
# workers reach it over a bridge from network namespaces. The URL printed
# is then postgres://agentgate@ADDR:PORT/postgres.
#
# The server binaries come from Debian's `postgresql` package
# (/usr/lib/postgresql/<version>/bin), or PG_BIN. As root the cluster is
# made and run by the `postgres` user (initdb refuses root). Durability is
# off (fsync, synchronous_commit, full_page_writes): the data is thrown
# away, the tests want speed. PG_CLUSTER_DURABLE=1 keeps PostgreSQL's
# defaults (what scripts/bench-queue.sh measures against).
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
    listen="-c listen_addresses=''"
    url="postgres://agentgate@localhost/postgres?host=$dir"
    if [[ -n "${PG_CLUSTER_TLS:-}" ]]; then
        port=${PG_CLUSTER_PORT:?PG_CLUSTER_TLS needs PG_CLUSTER_PORT}
        install -m 644 "$PG_CLUSTER_TLS/server.crt" "$dir/server.crt"
        install -m 600 "$PG_CLUSTER_TLS/server.key" "$dir/server.key"
        if [[ $(id -u) -eq 0 ]]; then
            chown postgres: "$dir/server.crt" "$dir/server.key"
        fi
        printf '%s\n' 'local all all trust' 'hostssl all all 127.0.0.1/32 trust' \
            >"$dir/data/pg_hba.conf"
        listen="-c listen_addresses=127.0.0.1 -c port=$port -c ssl=on \
            -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key"
        url="postgres://agentgate@127.0.0.1:$port/postgres"
    fi
    if [[ -n "${PG_CLUSTER_LISTEN:-}" ]]; then
        port=${PG_CLUSTER_PORT:?PG_CLUSTER_LISTEN needs PG_CLUSTER_PORT}
        printf '%s\n' 'local all all trust' 'host all all samenet trust' \
            >"$dir/data/pg_hba.conf"
        listen="-c listen_addresses=$PG_CLUSTER_LISTEN -c port=$port"
        url="postgres://agentgate@$PG_CLUSTER_LISTEN:$port/postgres"
    fi
    # Tests want speed, not durability; PG_CLUSTER_DURABLE=1 (benchmarks)
    # keeps PostgreSQL's own defaults: fsync, synchronous commit.
    durability="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    if [[ -n "${PG_CLUSTER_DURABLE:-}" ]]; then
        durability=""
    fi
    as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start -o \
        "$listen -k $dir $durability \
         -c max_connections=400 -c shared_buffers=64MB" >/dev/null || {
        cat "$dir/server.log" >&2
        exit 1
    }
    echo "$url"
    ;;
stop)
    as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    ;;
*)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
