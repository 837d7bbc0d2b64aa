#!/usr/bin/env bash
# run-tests.sh -- run the test suite: Criterion binaries and CLI scripts.
#
# Usage: scripts/run-tests.sh ITEM...
#   Each ITEM is a test binary (build/tests/test_*) or a CLI test script
#   (tests/cli/*.sh, run with bash). Items run one at a time, in the order
#   given, each with TMPDIR set to a fresh temporary directory (removed when
#   the item passes). Output goes to a log file and is shown only when the
#   item fails. The run stops at the first failing item.
#
# Environment:
#   BIN, FIXTURES  passed on to the tests (tools directory, fixtures)
#   LOGDIR         where the logs go (default: a temporary directory)
#   TEST_FLAGS     extra arguments for the Criterion binaries
#   TEST_TIMEOUT   seconds before an item is killed (default 300)
#
# The last line printed is always "N passed, M failed".
set -u

passed=0
failed=0
tmproot=${TMPDIR:-/tmp}
logdir=${LOGDIR:-$(mktemp -d "$tmproot/heapfmt-logs.XXXXXX")}
timeout_s=${TEST_TIMEOUT:-300}
mkdir -p "$logdir"

summary() {
    echo "$passed passed, $failed failed"
}

run_item() { # item tmpdir
    local runner=()
    if command -v timeout >/dev/null 2>&1; then
        runner=(timeout -k 10 "$timeout_s")
    fi
    case $1 in
    *.sh) TMPDIR=$2 "${runner[@]}" bash "$1" ;;
    # TEST_FLAGS is split into words on purpose.
    # shellcheck disable=SC2086
    *) TMPDIR=$2 "${runner[@]}" "$1" ${TEST_FLAGS:-} ;;
    esac
}

for item in "$@"; do
    name=$(basename "$item")
    log=$logdir/${name%.sh}.log
    tmp=$(mktemp -d "$tmproot/heapfmt-test.XXXXXX")
    start=$(date +%s%N)
    run_item "$item" "$tmp" </dev/null >"$log" 2>&1
    rc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    if [ "$rc" -eq 0 ]; then
        printf 'PASS  %-36s %6d ms\n' "$item" "$ms"
        passed=$((passed + 1))
        rm -rf "$tmp"
    else
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
            printf 'FAIL  %-36s timed out after %d s\n' "$item" "$timeout_s"
        else
            printf 'FAIL  %-36s exit %d\n' "$item" "$rc"
        fi
        echo "---- last lines of $log ----"
        tail -n 60 "$log"
        echo "---- (temporary files kept in $tmp)"
        failed=$((failed + 1))
        summary
        exit 1
    fi
done
summary
