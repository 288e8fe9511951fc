#!/usr/bin/env bash
# Install the real agent CLIs that the end-to-end tests drive, at the
# versions pinned in clis/package.json and clis/package-lock.json, into
# clis/node_modules (ignored by git). Needs Node.js >= 20 and npm.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/clis"

if ! command -v npm >/dev/null 2>&1; then
  echo "install-clis: npm is not installed (Node.js >= 20 with npm is needed)" >&2
  exit 1
fi

# The exact versions are pinned in package.json and the lock file.
# `npm install` (not `npm ci`) because npm's lock files omit the optional
# per-platform packages of other platforms (Claude, Codex and opencode ship
# native binaries that way) and `npm ci` then refuses the lock. It is quick
# when node_modules already matches, so the script is safe to run every time.
npm install --no-audit --no-fund --loglevel=error

status=0
for bin in claude codex gemini qwen opencode; do
  if version="$(timeout 60 "node_modules/.bin/$bin" --version 2>/dev/null | tail -n 1)"; then
    printf 'install-clis: %-9s %s\n' "$bin" "$version"
  else
    echo "install-clis: $bin did not run (node_modules/.bin/$bin --version failed)" >&2
    status=1
  fi
done
exit "$status"
