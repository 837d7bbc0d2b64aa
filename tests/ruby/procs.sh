# procs.sh -- background processes of a test, sourced by the tests that
# start long-running targets (tests/cli/ruby_attach*.sh):
#   track PID...       kill -9 them when the test exits, however it exits
#   wait_pidfile FILE  waits (10 s at most) for FILE to hold a pid; prints it
pids=()
track() {
    pids+=("$@")
}
cleanup_tracked() {
    local p
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
    wait 2>/dev/null
}
trap cleanup_tracked EXIT
wait_pidfile() {
    local _
    for _ in $(seq 200); do
        [ -s "$1" ] && break
        sleep 0.05
    done
    cat "$1" 2>/dev/null
}
