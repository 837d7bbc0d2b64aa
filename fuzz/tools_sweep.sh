#!/usr/bin/env bash
# tools_sweep.sh -- every tool over every input of a fuzz corpus.
#
# Usage: fuzz/tools_sweep.sh DUMP_DIR... [-- JSON_DIR...]
#
# The fuzzers' corpora hold thousands of small, strange inputs that reach
# every corner of the reader (build/fuzz/corpus/fuzz_read after `make fuzz`,
# or fuzz/corpus/fuzz_read). Each dump input is given to heapfmt-info (plain
# and --verify), histo (footer and --scan), heapfmt-export -r all and
# heapfmt-diff; each JSON input to heapfmt-import. Build the tools with the
# sanitizers (`make asan`, then BIN=build/asan/bin) for this to find memory
# errors. A run fails when it
#   - dies of a signal or reports a sanitizer error;
#   - exits with anything but 0, 1 or 3 (2 is for usage errors);
#   - exits 1 with output on stdout, or fails without a message;
#   - prints a stderr line that does not start with "prog: ".
# Environment: BIN (default build/asan/bin), TMPDIR.
set -u

BIN=${BIN:-build/asan/bin}
dumps=()
jsons=()
side=dumps
for a in "$@"; do
    if [ "$a" = -- ]; then
        side=jsons
    elif [ "$side" = dumps ]; then
        dumps+=("$a")
    else
        jsons+=("$a")
    fi
done
if [ ${#dumps[@]} -eq 0 ] && [ ${#jsons[@]} -eq 0 ]; then
    echo "usage: tools_sweep.sh DUMP_DIR... [-- JSON_DIR...]" >&2
    exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/heapfmt-sweep.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

runs=0
failed=0
have() { [ -x "$BIN/$1" ]; }

"$BIN/heapfmt-gen" -n 500 -s 9 -o "$work/ref.dump" || exit 1

check() { # tool arg...
    local tool=$1
    shift
    runs=$((runs + 1))
    local limit=()
    command -v timeout >/dev/null 2>&1 && limit=(timeout 60)
    "${limit[@]}" "$BIN/$tool" "$@" >"$work/out" 2>"$work/err"
    local rc=$? why=
    if grep -q -e 'Sanitizer' -e 'runtime error' "$work/err"; then
        why="sanitizer report"
    elif [ "$rc" -ge 124 ]; then
        why="exit $rc (signal or timeout)"
    elif [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && [ "$rc" -ne 3 ]; then
        why="exit $rc"
    elif [ "$rc" -eq 1 ] && [ -s "$work/out" ]; then
        why="exit 1 with output on stdout"
    elif [ "$rc" -ne 0 ] && [ ! -s "$work/err" ]; then
        why="exit $rc without a message"
    elif grep -v -q "^$tool: " "$work/err"; then
        why="a stderr line without the '$tool: ' prefix"
    fi
    if [ -n "$why" ]; then
        failed=$((failed + 1))
        echo "FAIL ($why): $tool $*"
        sed -n '1,30p' "$work/err" | sed 's/^/    /'
    fi
}

for d in "${dumps[@]}"; do
    for f in "$d"/*; do
        [ -f "$f" ] || continue
        check heapfmt-info "$f"
        check heapfmt-info --verify "$f"
        if have histo; then
            check histo "$f"
            check histo --scan --by=site "$f"
        fi
        have heapfmt-export && check heapfmt-export -r all "$f"
        have heapfmt-diff && check heapfmt-diff "$work/ref.dump" "$f"
    done
done
if have heapfmt-import; then
    for d in "${jsons[@]}"; do
        for f in "$d"/*; do
            [ -f "$f" ] || continue
            check heapfmt-import -o "$work/imported.dump" "$f"
        done
    done
fi
echo "tools_sweep: $runs runs, $failed failed"
[ "$failed" -eq 0 ]
