#!/bin/sh
# install-deps.sh -- make sure the Debian packages heapfmt builds with are
# installed.
#
# Installs only what is missing (after an apt-get update), and does nothing
# when everything is there. As root it installs; as another user it lists
# the missing packages and the command to install them, and fails. On a
# system without dpkg it only prints the list of what is needed.
set -eu

# What building and testing heapfmt needs, as Debian 12 package names.
# libzstd-dev: Zstandard, the default block codec of format 1.1.
# python3-pymongo: tests/export/check_mongo.py checks the MongoDB export
# with MongoDB's own bson module.
# ruby-bundler, git: tests/cli/ruby_gem.sh installs the gem with Bundler
# from a git: and a path: source.
# libunwind-dev: the malloc tracker unwinds with unw_backtrace (15x faster
# than glibc backtrace(), libheapfmt-malloc/hm_stacks.c); libdw-dev: it
# names frames and their source lines from DWARF (hm_symbols.c).
# chromium: tests/cli/report_browser.sh renders heapfmt-report's page in
# headless Chromium (skipped without it).
# nodejs: tests/cli/import_v8.sh checks the V8 heap snapshot import
# against snapshots the real Node writes (skipped without it).
# openjdk-17-jdk-headless: tests/cli/import_hprof.sh checks the HPROF
# import against a real JVM's jmap -dump and jmap -histo (skipped without).
# gdb: gcore writes the cores heapfmt-core reads in tests, and the attach
# tools (heapfmt-ruby, heapfmt-malloc -p) inject through it at run time.
# libc6-dbg: heapfmt-core is tested with glibc's symbols and without.
# libjemalloc2, libtcmalloc-minimal4, libmimalloc2.0: the allocators that
# heapfmt-core detects and heapfmt-replay replays under.
# golang-go: `go tool pprof` reads heapfmt-export's pprof profiles in tests.
# clickhouse-server, clickhouse-client: a real engine loads the exports.
# heaptrack: the malloc tracker's peer in make bench.
PACKAGES="gcc make libc6-dev zlib1g-dev libzstd-dev libunwind-dev libdw-dev libjansson-dev libcriterion-dev pkg-config ruby ruby-dev ruby-bundler git python3 python3-pymongo chromium nodejs openjdk-17-jdk-headless gdb libc6-dbg libjemalloc2 libtcmalloc-minimal4 libmimalloc2.0 golang-go clickhouse-server clickhouse-client heaptrack"

# DuckDB is not in Debian 12: tests/cli/export_engines.sh and make bench
# load exports into it through its npm package, @duckdb/node-api (which
# ships the engine's binary), installed once here, pinned, into
# $HEAPFMT_DUCKDB_DIR (the tests look there), rather than fetched by every
# test run (70 MB). npm comes with nodejs from some sources; Debian's own
# nodejs needs the npm package.
DUCKDB_DIR=${HEAPFMT_DUCKDB_DIR:-/usr/local/lib/heapfmt-duckdb}
DUCKDB_PACKAGE=@duckdb/node-api@1.5.6-r.1
duckdb_installed() {
    [ -f "$DUCKDB_DIR/node_modules/@duckdb/node-api/package.json" ] &&
        grep -q '"version": *"1.5.6-r.1"' "$DUCKDB_DIR/node_modules/@duckdb/node-api/package.json"
}

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps: not a Debian-like system; make sure these (or your"
    echo "distribution's equivalents) are installed: $PACKAGES"
    echo "and, for the DuckDB tests: npm install --prefix $DUCKDB_DIR $DUCKDB_PACKAGE"
    exit 0
fi

missing=
for p in $PACKAGES; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case $status in
    *" installed") ;;
    *) missing="$missing $p" ;;
    esac
done
if ! command -v npm >/dev/null 2>&1 && ! duckdb_installed; then
    missing="$missing npm"
fi

if [ -z "$missing" ] && duckdb_installed; then
    echo "install-deps: all build dependencies are installed"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    [ -n "$missing" ] && echo "install-deps: missing packages:$missing" >&2
    [ -n "$missing" ] && echo "install-deps: run as root: apt-get update && apt-get install -y$missing" >&2
    duckdb_installed || echo "install-deps: missing DuckDB: npm install --prefix $DUCKDB_DIR $DUCKDB_PACKAGE" >&2
    exit 1
fi

if [ -n "$missing" ]; then
    echo "install-deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    # shellcheck disable=SC2086
    apt-get install -y --no-install-recommends $missing </dev/null
fi
if ! duckdb_installed; then
    echo "install-deps: installing $DUCKDB_PACKAGE in $DUCKDB_DIR"
    mkdir -p "$DUCKDB_DIR"
    npm install --prefix "$DUCKDB_DIR" --no-audit --no-fund --no-save \
        "$DUCKDB_PACKAGE" </dev/null
fi
