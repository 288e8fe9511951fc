#!/usr/bin/env bash
# Measures warm sessions (`agentgate run --warm --session NAME`) against
# cold ones with the real agent CLIs: builds the release binaries, then runs
# crates/agentgate-fixtures/src/bin/bench-warm/main.rs, which points Claude
# Code, Codex, Gemini CLI and Qwen Code (clis/node_modules, see
# scripts/install-clis.sh) at an in-process scripted model server and prints,
# per CLI, the median wall time of cold and warm turns 1 and 2 against the
# server's own time for one request, the warm process group's RSS, and
# whether a warm turn 2 meets its goal (<= 1.10 x server + 50 ms).
#
#   scripts/bench-warm.sh [--cli NAME]... [--turns N] [--requests N]
#
# Fails only when a run fails or answers wrongly, never on a timing.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

cargo build --release --quiet -p agentgate -p agentgate-fixtures --bins
bin="${CARGO_TARGET_DIR:-$root/target}/release"
exec "$bin/bench-warm" --agentgate "$bin/agentgate" --clis "$root/clis/node_modules/.bin" "$@"
