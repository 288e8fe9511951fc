#!/usr/bin/env bash
# Fuzzes agentgate's stream decoders (fuzz/, one cargo-fuzz target per
# decoder: claude, codex, gemini, qwen, opencode, cursor, agy), each for a bounded time.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 60, or $FUZZ_SECONDS); TARGETs default to all.
# The corpus of each target (fuzz/corpus/TARGET, not versioned) is seeded
# from the decoder fixtures; a crash leaves its input in
# fuzz/artifacts/TARGET/ and makes this script fail. Reproduce one with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run TARGET fuzz/artifacts/TARGET/crash-...
#
# cargo-fuzz is installed with `cargo install cargo-fuzz --locked` when
# missing. It needs nightly-only rustc flags (-Zsanitizer=address, the
# coverage passes); with a stable toolchain RUSTC_BOOTSTRAP=1 lets rustc
# accept them, and stable ships the AddressSanitizer runtime. Set
# FUZZ_SANITIZER=none to build without AddressSanitizer.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

secs=${FUZZ_SECONDS:-60}
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
  secs=$1
  shift
fi
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(claude codex gemini qwen opencode cursor agy)
for t in "${targets[@]}"; do
  case $t in
    claude | codex | gemini | qwen | opencode | cursor | agy) ;;
    *) echo "fuzz.sh: unknown target '$t' (claude, codex, gemini, qwen, opencode, cursor, agy)" >&2; exit 2 ;;
  esac
done

if ! cargo fuzz --version > /dev/null 2>&1; then
  echo "fuzz.sh: installing cargo-fuzz" >&2
  cargo install cargo-fuzz --locked
fi

export RUSTC_BOOTSTRAP=1
sanitizer=${FUZZ_SANITIZER:-address}
fixtures=crates/agentgate-providers/tests/fixtures/decode
shopt -s nullglob

for t in "${targets[@]}"; do
  corpus=fuzz/corpus/$t
  mkdir -p "$corpus"
  # Seeds: each capture's stdout, and stdout + NUL + stderr.
  for out in "$fixtures/$t"/*.stdout; do
    name=$(basename "$out" .stdout)
    cp "$out" "$corpus/seed-$name"
    err="$fixtures/$t/$name.stderr"
    [[ -f $err ]] && { cat "$out"; printf '\0'; cat "$err"; } > "$corpus/seed-$name-stderr"
  done
  echo "fuzz.sh: $t for ${secs}s" >&2
  cargo fuzz run --sanitizer "$sanitizer" "$t" "$corpus" -- \
    -max_total_time="$secs" -max_len=262144 -rss_limit_mb=4096 -timeout=30 -print_final_stats=1
done
