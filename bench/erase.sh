#!/usr/bin/env bash
# Wall time and peak RSS of `erase` on a back-filled file of JOBS jobs of ~600 words (the scale
# phase's shape: 40 utterances of 15 words, 10,000 jobs a day from 2026-01-01), the built CLI as an
# operator runs it (bin/transcript-sync), default budget; UTTERANCES and WORDS change the shape. Two
# erasures, one after the other: one job (--job), then the 1,000 oldest jobs (--before: 2.4 hours of
# history). Each rewrites the file.
#   npm run build && bench/erase.sh JOBS [DIR]      # DIR: where the file goes (default: a temp folder)
# Rows go to stdout as jobs,step,peak KiB,seconds,exit,file bytes before,file bytes after.
set -u
JOBS=$1
BIN=$(dirname "$0")/../bin/transcript-sync
W=$(mktemp -d "${2:-${TMPDIR:-/tmp}}/erase-bench-XXXXXX")
PORT=$((20000 + RANDOM % 20000))
node "$BIN" simulate --port $PORT --jobs "$JOBS" --utterances "${UTTERANCES:-40}" --words "${WORDS:-15}" --seed 12 \
  --start 2026-01-01T00:00:00Z --rate 10000/d --limit-cap 1000 --log-level warn >"$W/sim.out" 2>&1 &
SIM=$!
trap 'kill $SIM 2>/dev/null; rm -rf "$W"' EXIT
sleep 2
export TSYNC_BASE_URL=http://127.0.0.1:$PORT TSYNC_API_KEY=sim-key TSYNC_DB=$W/db.duckdb TSYNC_LOG_LEVEL=warn
one() { # step args...
  local step=$1; shift
  local before; before=$(stat -c %s "$TSYNC_DB" 2>/dev/null || echo 0)
  /usr/bin/time -o "$W/time" -f "%M,%e,%x" "$BIN" "$@" >/dev/null 2>"$W/err"
  echo "$JOBS,$step,$(tail -1 "$W/time"),$before,$(stat -c %s "$TSYNC_DB")"
}
one back-fill sync --rate-limit 1000
ID=$(node "$BIN" query --format csv "SELECT id FROM jobs ORDER BY created_at DESC LIMIT 1" | tail -1)
one "erase --job (1 job)" erase --job "$ID" --yes
one "erase --before (1,000 jobs)" erase --before 2026-01-01T02:24:00Z --yes
