#!/usr/bin/env bash
# The fault drill, again and again: seeds FIRST..LAST in a row, stopping at
# the first that fails (its output, with the stamps and logs it keeps, is
# named). With --load N, N busy loops keep the machine's cores busy while
# it runs, as a loaded CI machine would.
#
#   scripts/fault-drill-loop.sh [--sqlite | --partition] [--burst N] [--load N] [FIRST [LAST]]
#
# --partition: the partition drill (root, iproute2; its own cluster on a
# bridge, the workers in network namespaces), at the size its test runs.
# --burst N: each drill with a burst of N jobs queued at once (the e2e
# suite's burst drills use 5000), waiting up to 600 s for its drain; not
# with --partition.
# Defaults: PostgreSQL (a throwaway cluster, scripts/pg-cluster.sh), no
# burst, no load, seeds 1 to 20. Each drill's output is in
# target/drill-loop/SEED.out. Builds the debug binaries first. Exits 0
# when every drill passed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

backend=postgres
load=0
burst=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --sqlite) backend=sqlite; shift ;;
    --partition) backend=partition; shift ;;
    --load) load=${2:?--load needs a number}; shift 2 ;;
    --burst) burst=${2:?--burst needs a number}; shift 2 ;;
    -h|--help) sed -n 2,17p "$0"; exit 0 ;;
    -*) echo "fault-drill-loop: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
first=${1:-1}
last=${2:-20}
if ! [[ "$first" =~ ^[0-9]+$ && "$last" =~ ^[0-9]+$ && "$load" =~ ^[0-9]+$ && "$burst" =~ ^[0-9]+$ ]]; then
  echo "fault-drill-loop: FIRST, LAST, --load and --burst take whole numbers" >&2
  exit 2
fi
if [[ "$backend" == partition && "$burst" -gt 0 ]]; then
  echo "fault-drill-loop: --burst does not go with --partition" >&2
  exit 2
fi

cargo build -p agentgate -p agentgate-fixtures --bins --locked
out=target/drill-loop
mkdir -p "$out"

busy=()
pg_dir=""
cleanup() {
  for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [[ -n "$pg_dir" ]]; then
    scripts/pg-cluster.sh stop "$pg_dir" || true
    rm -rf "$pg_dir"
  fi
}
trap cleanup EXIT

store_args=(--sqlite)
if [[ "$backend" == partition ]]; then
  store_args=(--partition --pg-cluster scripts/pg-cluster.sh --jobs 60 --duration 20 --kills 0)
elif [[ "$backend" == postgres ]]; then
  pg_dir=$(mktemp -d /tmp/agentgate-drill-pg.XXXXXX)
  store_args=(--postgres "$(scripts/pg-cluster.sh start "$pg_dir")")
fi
if [[ "$burst" -gt 0 ]]; then
  store_args+=(--burst "$burst" --wait 600)
fi
for _ in $(seq 1 "$load"); do
  ( while :; do :; done ) &
  busy+=($!)
done

passed=0
for seed in $(seq "$first" "$last"); do
  started=$(date +%s)
  if target/debug/fault-drill "${store_args[@]}" --seed "$seed" >"$out/$seed.out" 2>&1; then
    passed=$((passed + 1))
    wall=$(grep -o 'wall time | [0-9.]* s' "$out/$seed.out" || true)
    echo "fault-drill-loop: seed $seed passed ($((  $(date +%s) - started )) s; $wall)"
  else
    echo "fault-drill-loop: seed $seed FAILED after $passed passed; see $out/$seed.out" >&2
    grep -E '^  - |kept in' "$out/$seed.out" >&2 || true
    exit 1
  fi
done
echo "fault-drill-loop: $passed of $passed drills passed on $backend (burst $burst) with $load busy loops"
