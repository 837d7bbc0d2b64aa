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
