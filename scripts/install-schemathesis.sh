#!/usr/bin/env bash
# Installs schemathesis, the OpenAPI fuzzer the API document's test runs
# (suite::serve_schemathesis), into .venv-schemathesis/ at the repository's
# root (ignored by git): a Python virtual environment holding exactly the
# pinned and hashed packages of scripts/schemathesis-requirements.txt.
# Kept when the venv already holds the pinned version. The test fails,
# never skips, without it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv-schemathesis"
lock="$root/scripts/schemathesis-requirements.txt"
version=$(sed -n 's/^schemathesis==\([^ ]*\).*/\1/p' "$lock")
if [[ -x "$venv/bin/schemathesis" ]] \
    && [[ "$("$venv/bin/pip" show schemathesis 2>/dev/null | sed -n 's/^Version: //p')" == "$version" ]]; then
    echo "schemathesis $version in $venv"
    exit 0
fi
python3 -m venv --clear "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps \
    --require-hashes -r "$lock"
"$venv/bin/pip" check
echo "schemathesis $("$venv/bin/pip" show schemathesis | sed -n 's/^Version: //p') in $venv"
