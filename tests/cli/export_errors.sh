#!/usr/bin/env bash
# export_errors.sh -- heapfmt-export on bad arguments and bad input: exit 2
# for usage errors, 1 for errors, always a message on stderr and nothing on
# stdout, and no output file left behind.
. "$(dirname "$0")/lib.bash"

gen=$BIN/heapfmt-gen
exp=$BIN/heapfmt-export
in_tmpdir

run "$gen" --objects 500 --seed 1 -o a.dump
expect_success "gen"

# Usage errors.
run "$exp"
expect_failure 2 "no argument"
expect_err_has "missing DUMP" "no argument"
run "$exp" a.dump a.dump
expect_failure 2 "two dumps"
run "$exp" --bogus a.dump
expect_failure 2 "unknown option"
expect_err_has "Try 'heapfmt-export --help'" "unknown option"
run "$exp" --format=xml a.dump
expect_failure 2 "--format=xml"
expect_err_has "ndjson, json, mongo, rows or pprof" "--format=xml"
run "$exp" -f
expect_failure 2 "-f without argument"
for r in foo "objects," ",edges" "objects,,meta" "" Objects; do
    run "$exp" --records="$r" a.dump
    expect_failure 2 "--records='$r'"
done
for t in "" "a b" "a:b" "x/y" "$(printf 'a%.0s' $(seq 65))" "caf$(printf '\xc3\xa9')"; do
    run "$exp" --dump-tag="$t" a.dump
    expect_failure 2 "--dump-tag='$t'"
done
run "$exp" --dump-tag="$(printf 'a%.0s' $(seq 64))" a.dump
expect_success "--dump-tag of 64 characters"
for m in -1 abc 1e3 16777217; do
    run "$exp" --max-refs="$m" a.dump
    expect_failure 2 "--max-refs=$m"
done
run "$exp" --format=mongo --max-refs=100001 a.dump
expect_failure 2 "mongo --max-refs=100001"
expect_err_has "16 MiB" "mongo --max-refs=100001"
run "$exp" --format=mongo --max-refs=100000 a.dump
expect_success "mongo --max-refs=100000"
run "$exp" --max-refs=16777216 a.dump
expect_success "ndjson --max-refs=16777216"
run "$exp" -o "" a.dump
expect_failure 2 "-o ''"

# Input errors: exit 1, and -o FILE is not created.
expect_failure_leaves_no out.json missing.dump "missing dump" \
    "$exp" -o out.json missing.dump
mkdir adir
run "$exp" adir
expect_failure 1 "a directory"
printf '{"address":"0x7f00", "type":"STRING"}\n' >heap.json
expect_failure_leaves_no out.json heap.json "a JSON file" \
    "$exp" -o out.json heap.json
run "$exp" - </dev/null
[ "$rc" -ne 0 ] && pass || fail "empty stdin: exit 0"
expect_out_empty "empty stdin"
run "$exp" -o nodir/out.json a.dump
expect_failure 1 "output in a missing directory"
expect_err_has "nodir/out.json" "output in a missing directory"

finish
