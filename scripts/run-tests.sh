#!/usr/bin/env bash
# run-tests.sh -- run the test suite: Criterion binaries and CLI scripts.
#
# Usage: scripts/run-tests.sh ITEM...
#   Each ITEM is a test binary (build/tests/test_*) or a CLI test script
#   (tests/cli/*.sh, run with bash). Up to TEST_JOBS items run at once,
#   started in the order given (so list the slow ones first), each with
#   TMPDIR set to a fresh temporary directory (removed when the item
#   passes). Output goes to a log file and is shown only when the item
#   fails. After the first failure no item is started and the running ones
#   are stopped.
#
# Environment:
#   BIN, FIXTURES  passed on to the tests (tools directory, fixtures)
#   LOGDIR         where the logs go (default: a temporary directory)
#   TEST_FLAGS     extra arguments for the Criterion binaries
#   TEST_TIMEOUT   seconds before an item is killed (default 300)
#   TEST_JOBS      items run at once (default 1)
#
# The last line printed is always "N passed, M failed".
set -u

passed=0
failed=0
tmproot=${TMPDIR:-/tmp}
logdir=${LOGDIR:-$(mktemp -d "$tmproot/heapfmt-logs.XXXXXX")}
timeout_s=${TEST_TIMEOUT:-300}
jobs=${TEST_JOBS:-1}
case $jobs in '' | *[!0-9]* | 0) jobs=1 ;; esac
mkdir -p "$logdir"

declare -A item_of=() start_of=() tmp_of=()

summary() {
    echo "$passed passed, $failed failed"
}

# Runs in the background job itself: exec, so that the job's pid is the
# runner's, and stopping it stops the item (timeout signals its group).
run_item() { # item tmpdir
    local runner=()
    if command -v timeout >/dev/null 2>&1; then
        runner=(timeout -k 10 "$timeout_s")
    fi
    export TMPDIR=$2
    case $1 in
    *.sh) exec "${runner[@]}" bash "$1" ;;
    # TEST_FLAGS is split into words on purpose.
    # shellcheck disable=SC2086
    *) exec "${runner[@]}" "$1" ${TEST_FLAGS:-} ;;
    esac
}

log_of() { local name; name=$(basename "$1"); echo "$logdir/${name%.sh}.log"; }

start() { # item
    local tmp
    tmp=$(mktemp -d "$tmproot/heapfmt-test.XXXXXX")
    run_item "$1" "$tmp" </dev/null >"$(log_of "$1")" 2>&1 &
    item_of[$!]=$1
    start_of[$!]=$(date +%s%N)
    tmp_of[$!]=$tmp
}

report() { # pid rc
    local item=${item_of[$1]} tmp=${tmp_of[$1]} ms
    ms=$((($(date +%s%N) - ${start_of[$1]}) / 1000000))
    unset "item_of[$1]" "start_of[$1]" "tmp_of[$1]"
    if [ "$2" -eq 0 ]; then
        printf 'PASS  %-36s %6d ms\n' "$item" "$ms"
        passed=$((passed + 1))
        rm -rf "$tmp"
        return 0
    fi
    if [ "$2" -eq 124 ] || [ "$2" -eq 137 ]; then
        printf 'FAIL  %-36s timed out after %d s\n' "$item" "$timeout_s"
    else
        printf 'FAIL  %-36s exit %d\n' "$item" "$2"
    fi
    echo "---- last lines of $(log_of "$item") ----"
    tail -n 60 "$(log_of "$item")"
    echo "---- (temporary files kept in $tmp)"
    failed=$((failed + 1))
    return 1
}

# Waits for one item to end; returns 1 when it failed.
reap() {
    local pid rc
    wait -n -p pid
    rc=$?
    report "$pid" "$rc"
}

stop_all() {
    local pid
    for pid in "${!item_of[@]}"; do
        kill -TERM "$pid" 2>/dev/null
    done
    for pid in "${!item_of[@]}"; do
        wait "$pid" 2>/dev/null
        echo "STOP  ${item_of[$pid]} (stopped after the failure above)"
        rm -rf "${tmp_of[$pid]}"
    done
}

for item in "$@"; do
    if [ "${#item_of[@]}" -ge "$jobs" ] && ! reap; then
        stop_all
        summary
        exit 1
    fi
    start "$item"
done
while [ "${#item_of[@]}" -gt 0 ]; do
    if ! reap; then
        stop_all
        summary
        exit 1
    fi
done
summary
