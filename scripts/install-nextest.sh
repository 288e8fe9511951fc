#!/usr/bin/env bash
# cargo-nextest, the test runner of scripts/test.sh: kept if this machine
# has it, else installed from crates.io at the pinned version.
set -euo pipefail
version=0.9.143
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest --version | head -1
  exit 0
fi
cargo install cargo-nextest --locked --version "$version"
