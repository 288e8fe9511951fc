#!/usr/bin/env bash
# Installs what the PostgreSQL backend's tests run against: Debian's
# PostgreSQL server (package postgresql; the binaries in
# /usr/lib/postgresql/<version>/bin) and the openssl binary (package
# openssl), with which the TLS tests make their certificates, and
# iproute2's `ip` (package iproute2), with which the partition fault drill
# makes its network namespaces. Does nothing when all are there.
# The tests fail, never skip, without it. scripts/pg-cluster.sh starts the
# throwaway cluster they use.
set -euo pipefail

if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && command -v openssl >/dev/null &&
    { command -v ip || ls /usr/sbin/ip /sbin/ip; } >/dev/null 2>&1; then
    exit 0
fi
as_root=()
if [[ $(id -u) -ne 0 ]]; then
    as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
packages=(postgresql openssl iproute2)
if ! "${as_root[@]}" apt-get install -y --no-install-recommends "${packages[@]}"; then
    "${as_root[@]}" apt-get update
    "${as_root[@]}" apt-get install -y --no-install-recommends "${packages[@]}"
fi
ls /usr/lib/postgresql/*/bin/initdb
command -v openssl
