#!/bin/sh
# A tool in plain shell: one JSON message per line on stdout, diagnostics
# on stderr, the runner's variables (RUN_ID, WORKSPACE, CANCEL_FILE, ...)
# in the environment.
set -eu
[ "${1:-}" = "--selftest" ] && { echo '{"selftest":"ok"}'; exit 0; }
emit() { printf '{"v":1,"type":"%s","run_id":"%s",%s}\n' "$1" "$RUN_ID" "$2"; }
input="" output=""
while [ $# -ge 2 ]; do
  case "$1" in
    --input) input=$2 ;;
    --output) output=$2 ;;
  esac
  shift 2
done
if [ ! -f "$input" ]; then
  emit error '"code":"E_INPUT_NOT_FOUND","msg":"no such file: '"$input"'","hint":"Put it in the workspace"'
  exit 30
fi
emit start '"step":"count"'
[ -e "$CANCEL_FILE" ] && { emit cancelled '"reason":"cancel-file"'; exit 130; }
words=$(wc -w < "$input" | tr -d ' ')
emit progress '"step":"count","pct":100,"msg":"counted"'
printf '{"words":%s}\n' "$words" > "$output"
sum=$(sha256sum "$output" | cut -d' ' -f1)
emit result '"status":"ok","artifacts":[{"path":"'"$output"'","sha256":"'"$sum"'"}],"metrics":{"words":'"$words"'}'
