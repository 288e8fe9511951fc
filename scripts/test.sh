#!/usr/bin/env bash
# The project's test command (the README's, and what .ci/run calls):
# installs the pinned real CLIs and Debian's Chromium (for the dashboard's
# browser test), then checks formatting and lints, then runs every test,
# including the end-to-end tests that drive the real CLIs against
# `agentgate fake-llm`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

scripts/install-clis.sh
scripts/install-browser.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked "$@"
