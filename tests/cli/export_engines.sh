#!/usr/bin/env bash
# export_engines.sh -- heapfmt-export --format=rows in real analytical
# engines: a ClickHouse server started on loopback (tests/export/chserver.py:
# a throwaway config in $TMPDIR, a free port; stopped at the end) and DuckDB (the npm
# package @duckdb/node-api that scripts/install-deps.sh installs). Three
# dumps of each of two processes are loaded with the tables and commands
# of docs/fleet.md, and every documented query is compared with histo and
# heapfmt-diff: tests/export/check_sql.py does the work.
#
# An engine that is not installed is skipped with a message, except in CI
# (CI=true), where that is a failure.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
docs=$root/docs/fleet.md
duckdb_dir=${HEAPFMT_DUCKDB_DIR:-/usr/local/lib/heapfmt-duckdb}
missing=0
skip() {
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $1" >&2
        exit 1
    fi
    echo "SKIP: $1"
    missing=$((missing + 1))
}

# ---- the command line, without an engine ----
cd "$TMPDIR" || exit 1
gen_dump id.hfd -n 2000 -s 4
run "$BIN/heapfmt-export" -f rows id.hfd
expect_success "rows of objects"
first=$(printf '%s\n' "$out" | head -1)
meta_pid=$("$BIN/heapfmt-info" -p id.hfd | sed -n 's/^meta\.pid  *//p')
meta_time=$("$BIN/heapfmt-info" -p id.hfd | sed -n 's/^meta\.time  *\([0-9]*\).*/\1/p')
case $first in
"{\"host\":\"gen.local\",\"pid\":$meta_pid,\"time\":$meta_time,\"release\":\"\",\"id\":"*) pass ;;
*) fail "the identity from META starts the row: $first" ;;
esac
[ "$(printf '%s\n' "$out" | wc -l)" = 2000 ] && pass || fail "one row per object"
run "$BIN/heapfmt-export" -f rows --host=web-9 --pid=77 --time=2026-11-21T10:00:00Z --release=r5 -r meta id.hfd
expect_success "rows of meta with the identity given"
expect_out_has '{"host":"web-9","pid":77,"time":1795255200,"release":"r5","key":"producer","value":"heapfmt-gen' "the options win over META"
run "$BIN/heapfmt-export" --release=r5 id.hfd
expect_out_has "\"id\":\"0x" "ndjson keeps its documents"
expect_out_has "{\"host\":\"gen.local\",\"pid\":$meta_pid,\"time\":$meta_time,\"release\":\"r5\",\"id\":" \
    "and carries the identity when an option asks for it"
run "$BIN/heapfmt-export" -f mongo --pid=12 id.hfd
expect_out_has '"pid":{"$numberLong":"12"}' "mongo: the identity as Int64"
run "$BIN/heapfmt-export" id.hfd
case $out in *'"host":'*) fail "ndjson without an identity option is as before" ;; *) pass ;; esac
expect_usage_error "$BIN/heapfmt-export" "rows: one table" -f rows -r objects,edges id.hfd
expect_usage_error "$BIN/heapfmt-export" "rows: no dump tag" -f rows -t w1 id.hfd
expect_usage_error "$BIN/heapfmt-export" "a bad --time" --time=2026-02-30T00:00:00 id.hfd
expect_usage_error "$BIN/heapfmt-export" "an empty --host" --host= id.hfd
expect_usage_error "$BIN/heapfmt-export" "a --host too long" --host="$(printf '%0256d' 0)" id.hfd
expect_usage_error "$BIN/heapfmt-export" "a bad --pid" --pid=-1 id.hfd

args=()
# ---- DuckDB ----
if command -v node >/dev/null 2>&1 &&
    [ -f "$duckdb_dir/node_modules/@duckdb/node-api/package.json" ]; then
    args+=(--duckdb "$duckdb_dir")
else
    skip "DuckDB: no node or no @duckdb/node-api in $duckdb_dir (scripts/install-deps.sh installs it; HEAPFMT_DUCKDB_DIR names another directory)"
fi

# ---- ClickHouse: check_sql.py starts and stops the server ----
if command -v clickhouse-server >/dev/null 2>&1 && command -v clickhouse-client >/dev/null 2>&1; then
    args+=(--clickhouse)
else
    skip "ClickHouse: no clickhouse-server (Debian clickhouse-server and clickhouse-client; scripts/install-deps.sh)"
fi

if [ "${#args[@]}" -gt 0 ]; then
    mkdir -p "$TMPDIR/check"
    find_bson_python # rows are also checked as mongoimport reads them
    "${py:-python3}" "$root/tests/export/check_sql.py" --bin "$BIN" --docs "$docs" \
        --tmp "$TMPDIR/check" "${args[@]}"
    [ $? -eq 0 ] && pass || fail "check_sql.py (above)"
fi
[ "$missing" -gt 0 ] && echo "($missing engine(s) skipped)"
finish
