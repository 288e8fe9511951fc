#!/usr/bin/env bash
# Install what the client libraries in clients/ need for their generation
# (scripts/gen-clients.sh) and their tests (suite::clients):
#
# - clients/python/.venv (ignored by git): a venv of this machine's python3
#   (3.10 or later) with exactly clients/python/requirements.txt (every
#   package pinned, installed with --no-deps, then `pip check`);
# - clients/typescript/node_modules (ignored by git): `npm ci` from its
#   package-lock.json, on this machine's Node.js (20 or later) and npm.
#
# Each part is skipped when what it installed last is still what is pinned
# (a copy of the pins is kept beside the install), so the script is quick
# to run every time; a changed pin installs again.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/clients"
status=0

# Python.
venv=python/.venv
stamp="$venv/agentgate-requirements.txt"
if ! command -v python3 >/dev/null 2>&1; then
  echo "install-clients: python3 is not installed (3.10 or later is needed)" >&2
  exit 1
fi
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
  echo "install-clients: python3 is $(python3 --version 2>&1); 3.10 or later is needed" >&2
  exit 1
fi
# What the tools and the tests import, and their versions: one interpreter start.
check_python='import openapi_python_client, pytest, httpx, attrs, dateutil
from importlib.metadata import version
print("openapi-python-client", version("openapi-python-client"), "pytest", version("pytest"))'
if [ -x "$venv/bin/python" ] && cmp -s python/requirements.txt "$stamp" && "$venv/bin/python" -c "$check_python" >/dev/null 2>&1; then
  :
else
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r python/requirements.txt
  "$venv/bin/python" -m pip check --disable-pip-version-check >/dev/null
  cp python/requirements.txt "$stamp"
fi
if versions="$("$venv/bin/python" -c "$check_python" 2>/dev/null)"; then
  printf 'install-clients: %-9s %s; %s\n' python "$("$venv/bin/python" --version 2>&1)" "$versions"
else
  echo "install-clients: the Python venv does not work ($venv)" >&2
  status=1
fi

# TypeScript.
ts=typescript
stamp="$ts/node_modules/.agentgate-package-lock.json"
if ! command -v npm >/dev/null 2>&1; then
  echo "install-clients: npm is not installed (Node.js 20 or later with npm is needed)" >&2
  exit 1
fi
if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
  echo "install-clients: node is $(node --version); 20 or later is needed" >&2
  exit 1
fi
if [ -d "$ts/node_modules" ] && cmp -s "$ts/package-lock.json" "$stamp"; then
  :
else
  (cd "$ts" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$ts/package-lock.json" "$stamp"
fi
# tsc runs; the generator's and openapi-fetch's versions from their packages.
if tsc_version="$("$ts/node_modules/.bin/tsc" --version 2>/dev/null)" &&
  versions="$(cd "$ts" && node -e '
    const fs = require("fs");
    const v = (p) => JSON.parse(fs.readFileSync(`node_modules/${p}/package.json`, "utf8")).version;
    process.stdout.write(`openapi-typescript ${v("openapi-typescript")}, openapi-fetch ${v("openapi-fetch")}`);')"; then
  printf 'install-clients: %-9s %s; %s\n' node "$(node --version); tsc $tsc_version" "$versions"
else
  echo "install-clients: the TypeScript tools did not install ($ts/node_modules)" >&2
  status=1
fi
exit "$status"
