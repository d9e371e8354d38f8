#!/usr/bin/env bash
# Peak RSS and wall time of the reading commands, two builds side by side, each command on a fresh
# copy of FILE (docs/decisions/0016-readers-within-the-budget.md, BENCHMARKS.md).
#   BEFORE=/path/to/other/bin/transcript-sync bench/reading-memory.sh FILE LABEL [COMMANDS]
# The publish step syncs first: TSYNC_BASE_URL must serve the file's history (a simulator with the
# seed and sizes it was built from). Rows go to stdout as label,command,build,peak KiB,seconds,exit.
set -u
FILE=$1; LABEL=$2; CMDS=${3:-verify verify-hashes query report-billing report-status status export publish}
AFTER=${AFTER:-$(dirname "$0")/../bin/transcript-sync}
W=$(mktemp -d "$(dirname "$FILE")/reading-memory-XXXXXX")
trap 'rm -rf "$W"' EXIT
one() { # build bin name args...
  local build=$1 bin=$2 name=$3; shift 3
  /usr/bin/time -o "$W/time" -f "%M,%e,%x" node "$bin" "$@" >/dev/null 2>"$W/err"
  echo "$LABEL,$name,$build,$(tail -1 "$W/time")"
}
for name in $CMDS; do
  for build in before after; do
    bin=$BEFORE; [ $build = after ] && bin=$AFTER
    cp "$FILE" "$W/db.duckdb"; rm -rf "$W/out"
    case $name in
      verify) one $build "$bin" $name verify --db "$W/db.duckdb" ;;
      verify-hashes) one $build "$bin" $name verify --hashes --db "$W/db.duckdb" ;;
      query) one $build "$bin" $name query "SELECT count(*), sum(length(word)) FROM words" --db "$W/db.duckdb" ;;
      report-billing) one $build "$bin" $name report billing --db "$W/db.duckdb" ;;
      report-status) one $build "$bin" $name report status --db "$W/db.duckdb" ;;
      status) one $build "$bin" $name status --db "$W/db.duckdb" ;;
      export) one $build "$bin" $name export --out "$W/out" --db "$W/db.duckdb" ;;
      publish) TSYNC_API_KEY=${TSYNC_API_KEY:-sim-key} one $build "$bin" $name sync --publish "$W/out" --db "$W/db.duckdb" ;;
    esac
  done
done
