#!/usr/bin/env bash
# Installs what the test of the example systemd units (examples/systemd/)
# checks them with: systemd-analyze (Debian package systemd), which parses
# every key and value of a unit without starting it. Does nothing when it
# is there. The test fails, never skips, without it.
set -euo pipefail

if command -v systemd-analyze >/dev/null; then
    exit 0
fi
as_root=()
if [[ $(id -u) -ne 0 ]]; then
    as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get install -y --no-install-recommends systemd; then
    "${as_root[@]}" apt-get update
    "${as_root[@]}" apt-get install -y --no-install-recommends systemd
fi
command -v systemd-analyze
