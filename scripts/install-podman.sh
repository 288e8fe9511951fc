#!/usr/bin/env bash
# Installs the container engine the `--sandbox container` tests run the
# real Claude Code with (crates/agentgate-core/src/run/container/
# podman_tests.rs): Debian's podman (package podman, with the conmon,
# netavark and catatonit it recommends) and runc (package runc). runc,
# because crun, podman's default runtime on Debian 12, refuses a host with
# cgroups v1 and a v2 hierarchy beside it ("hybrid", as this project's
# machines are); the tests ask for runc with `--runtime runc` (see
# docs/guide/sandbox.md, "Container mode"). `tar` (the tests import their
# image from a tarball) is part of Debian's base. Does nothing when both
# are there. The tests fail, never skip, without them.
set -euo pipefail

if command -v podman >/dev/null && { command -v runc || ls /usr/sbin/runc; } >/dev/null 2>&1; then
    exit 0
fi
as_root=()
if [[ $(id -u) -ne 0 ]]; then
    as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
packages=(podman runc)
if ! "${as_root[@]}" apt-get install -y "${packages[@]}"; then
    "${as_root[@]}" apt-get update
    "${as_root[@]}" apt-get install -y "${packages[@]}"
fi
command -v podman
podman --version
