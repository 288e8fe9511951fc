#!/usr/bin/env bash
# Regenerate the client libraries in clients/ from docs/openapi.json: the
# Python package clients/python/agentgate_api (openapi-python-client) and
# the TypeScript types clients/typescript/src/generated/schema.ts
# (openapi-typescript), with the generators pinned in
# clients/python/requirements.txt and clients/typescript/package-lock.json
# (scripts/install-clients.sh installs them). Both are generated from the
# document as clients/tools/prepare_document.py leaves it (nested `$defs`
# hoisted into components.schemas, a shared operationId made unique, a
# oneOf of string constants as an enum; see its docstring). The clients'
# package versions are set to the document's info.version (the
# workspace's version).
#
#   scripts/gen-clients.sh           write the generated files into clients/
#   scripts/gen-clients.sh --check   generate into a scratch folder and
#                                    compare: exit 1 with the differences
#                                    when the checked-in files are stale
#
# The test suite::client_libraries runs `--check`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

check=false
case "${1:-}" in
  "") ;;
  --check) check=true ;;
  *)
    echo "usage: scripts/gen-clients.sh [--check]" >&2
    exit 2
    ;;
esac

venv=clients/python/.venv
ts=clients/typescript
if [ ! -x "$venv/bin/openapi-python-client" ] || [ ! -x "$ts/node_modules/.bin/openapi-typescript" ]; then
  echo "gen-clients: the generators are not installed: run scripts/install-clients.sh" >&2
  exit 1
fi

scratch="$(mktemp -d /tmp/agentgate-gen-clients.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
document="$scratch/openapi.json"
"$venv/bin/python" clients/tools/prepare_document.py docs/openapi.json "$document"
version="$("$venv/bin/python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["info"]["version"])' "$document")"

# Python: the generator writes the package into a fresh folder (its ruff
# hooks need ruff on PATH: the venv's, pinned).
PATH="$root/$venv/bin:$PATH" "$venv/bin/openapi-python-client" generate \
  --path "$document" \
  --config clients/python/openapi-python-client.yaml \
  --meta none \
  --output-path "$scratch/agentgate_api" \
  --fail-on-warning >"$scratch/python-generator.log" 2>&1 || {
  cat "$scratch/python-generator.log" >&2
  echo "gen-clients: openapi-python-client failed (its output is above)" >&2
  exit 1
}

# TypeScript: the types of every path and schema. A property with a
# default is optional in a request (`--default-non-nullable=false`): the
# server fills it in, so a caller may leave it out.
"$ts/node_modules/.bin/openapi-typescript" "$document" \
  --default-non-nullable=false \
  --output "$scratch/schema.ts" >"$scratch/typescript-generator.log" 2>&1 || {
  cat "$scratch/typescript-generator.log" >&2
  echo "gen-clients: openapi-typescript failed (its output is above)" >&2
  exit 1
}

python_version() {
  sed -n 's/^version = "\(.*\)"$/\1/p' clients/python/pyproject.toml | head -n 1
}
typescript_version() {
  node -e 'process.stdout.write(require(process.argv[1]).version)' "$root/$ts/package.json"
}

if $check; then
  stale=0
  if ! diff -ru clients/python/agentgate_api "$scratch/agentgate_api" -x __pycache__; then
    stale=1
  fi
  if ! diff -u "$ts/src/generated/schema.ts" "$scratch/schema.ts"; then
    stale=1
  fi
  if [ "$(python_version)" != "$version" ]; then
    echo "clients/python/pyproject.toml: version $(python_version), the document's is $version" >&2
    stale=1
  fi
  if [ "$(typescript_version)" != "$version" ]; then
    echo "$ts/package.json: version $(typescript_version), the document's is $version" >&2
    stale=1
  fi
  if [ "$stale" != 0 ]; then
    echo "gen-clients: the generated clients are stale: run scripts/gen-clients.sh" >&2
    exit 1
  fi
  echo "gen-clients: the generated clients match docs/openapi.json (version $version)"
  exit 0
fi

rm -rf clients/python/agentgate_api
cp -r "$scratch/agentgate_api" clients/python/agentgate_api
mkdir -p "$ts/src/generated"
cp "$scratch/schema.ts" "$ts/src/generated/schema.ts"
sed -i "s/^version = \".*\"$/version = \"$version\"/" clients/python/pyproject.toml
(cd "$ts" && npm version "$version" --no-git-tag-version --allow-same-version >/dev/null)
echo "gen-clients: clients/python/agentgate_api and $ts/src/generated/schema.ts from docs/openapi.json (version $version)"
