#!/usr/bin/env bash
# export_engines.sh -- heapfmt-export --format=rows in real analytical
# engines: a ClickHouse server started here on loopback (a throwaway
# config in $TMPDIR, a free port; stopped at the end) and DuckDB (the npm
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

# ---- ClickHouse ----
server_pid=
stop_server() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        for _ in $(seq 100); do
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
        server_pid=
    fi
}
trap stop_server EXIT
if command -v clickhouse-server >/dev/null 2>&1 && command -v clickhouse-client >/dev/null 2>&1; then
    ch=$TMPDIR/clickhouse
    mkdir -p "$ch/data" "$ch/tmp" "$ch/user_files" "$ch/log"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    # two shards on this one server, in two databases: the Distributed
    # table of docs/fleet.md's "Scaling out"
    shard() {
        echo "<shard><replica><host>127.0.0.1</host><port>$port</port><default_database>$1</default_database></replica></shard>"
    }
    cat > "$ch/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$ch/log/server.log</log><errorlog>$ch/log/error.log</errorlog><size>10M</size><count>1</count></logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>$port</tcp_port>
  <path>$ch/data/</path>
  <tmp_path>$ch/tmp/</tmp_path>
  <user_files_path>$ch/user_files/</user_files_path>
  <users_config>$ch/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <max_concurrent_queries>16</max_concurrent_queries>
  <remote_servers><heapfmt_test>$(shard shard1)$(shard shard2)</heapfmt_test></remote_servers>
</yandex>
EOF
    cat > "$ch/users.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
EOF
    clickhouse-server --config-file="$ch/config.xml" >"$ch/log/stdout" 2>&1 &
    server_pid=$!
    up=0
    for _ in $(seq 600); do
        if clickhouse-client --host 127.0.0.1 --port "$port" --query 'SELECT 1' >/dev/null 2>&1; then
            up=1
            break
        fi
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    if [ "$up" = 1 ]; then
        pass
        args+=(--clickhouse "$port")
    else
        fail "clickhouse-server did not start: $(tail -5 "$ch/log/error.log" "$ch/log/stdout" 2>/dev/null)"
        stop_server
    fi
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
stop_server
[ "$missing" -gt 0 ] && echo "($missing engine(s) skipped)"
finish
