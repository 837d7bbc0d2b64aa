#!/usr/bin/env bash
# diff_errors.sh -- heapfmt-diff's exit codes: usage errors (2), errors (1)
# with a clean stdout, incomplete dumps (3) with results for what was read.
. "$(dirname "$0")/lib.bash"

diff=$BIN/heapfmt-diff
in_tmpdir

gen_dump a.dump -n 30000 -s 4 --block-size 4096
gen_dump b.dump -n 33000 -s 4 --block-size 4096

# ---- usage errors: exit 2, nothing on stdout, a hint on stderr ----
usage() { expect_usage_error "$diff" "$@"; } # WHAT ARG...
usage "no dump"
expect_err_has "heapfmt-diff: expected two or three dumps, got 0" "no dump"
usage "one dump" a.dump
usage "four dumps" a.dump b.dump a.dump b.dump
usage "unknown option" --bogus a.dump b.dump
expect_err_has "unrecognized option '--bogus'" "unknown option"
usage "unknown short option" -Z a.dump b.dump
usage "missing argument" a.dump b.dump --top
usage "bad --format" -f xml a.dump b.dump
expect_err_has "expected table, tsv, csv or json" "bad --format"
usage "bad --by" --by=type a.dump b.dump
expect_err_has "expected class, site, class,site, stack, frame, imemo or iseq" "bad --by"
usage "--top 0" --top 0 a.dump b.dump
usage "--top x" -n x a.dump b.dump
usage "bad regex" --match '(' a.dump b.dump
expect_err_has "invalid --match expression '('" "bad regex"
usage "stdin twice" - -
expect_err_has "standard input (-) can be only one of the dumps" "stdin twice"
usage "empty name" a.dump ''

# ---- errors: exit 1, "heapfmt-diff: FILE: message", stdout clean ----
run "$diff" a.dump missing.dump
expect_failure 1 "missing file"
expect_err_has "heapfmt-diff: missing.dump: No such file or directory" "missing file"
run "$diff" missing.dump a.dump b.dump
expect_failure 1 "missing first of three"
run "$diff" a.dump .
expect_failure 1 "directory"
expect_err_has "heapfmt-diff: .: Is a directory" "directory"
printf '{"address":"0x7f", "type":"STRING"}\n' >heap.json
run "$diff" a.dump heap.json
expect_failure 1 "JSON input"
expect_err_has "heapfmt-diff: heap.json: not a heapfmt dump" "JSON input"
printf 'hello\n' >text.txt
run "$diff" text.txt a.dump
expect_failure 1 "text input"
gen_dump nosites.dump -n 1000 --no-sites
run "$diff" --by=site nosites.dump nosites.dump
expect_failure 1 "--by=site without sites, nothing changed"
gen_dump nosites2.dump -n 1200 --no-sites
run "$diff" --by=site nosites.dump nosites2.dump
expect_failure 1 "--by=site without sites"
expect_err_has "heapfmt-diff: no allocation sites in these dumps" "--by=site without sites"
run "$diff" --list nosites.dump nosites2.dump
expect_success "--list without sites"
if [ -w /dev/full ]; then
    run "$diff" a.dump b.dump
    "$diff" a.dump b.dump >/dev/full 2>"$TMPDIR/.err"
    rc=$?
    err=$(cat "$TMPDIR/.err")
    out=
    expect_rc 1 "disk full"
    expect_err_has "heapfmt-diff: write error" "disk full"
fi

# ---- incomplete dumps: exit 3, results for what was read, warnings ----
size=$(stat -c %s b.dump)
head -c $((size / 2)) b.dump >cut.dump
run "$diff" -f tsv a.dump cut.dump
expect_rc 3 "truncated after"
expect_out_has "$(printf 'class\tnew_count')" "truncated after: results"
expect_err_has "heapfmt-diff: cut.dump: warning: incomplete dump" "truncated after"
expect_err_has "cut.dump: warning: objects in its lost blocks are reported as freed" "truncated after"
freed=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 { s += $4 } END { print s + 0 }')
[ "$freed" -gt 0 ] && pass || fail "truncated after: nothing freed"

run "$diff" -f tsv cut.dump a.dump
expect_rc 3 "truncated before"
expect_err_has "reported as new" "truncated before"

run "$diff" -f json a.dump b.dump cut.dump
expect_rc 3 "truncated d3"
expect_out_has '"complete": false' "truncated d3: json"
expect_err_has "not counted as retained" "truncated d3"

run sh -c "cat cut.dump | '$diff' a.dump -"
expect_rc 3 "truncated on stdin"
expect_err_has "(stdin): warning" "truncated on stdin"

# A damaged block in the middle: skipped with a warning, the rest is read.
cp b.dump bad.dump
printf 'XXXXXXXX' | dd of=bad.dump bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null
run "$diff" -f tsv a.dump bad.dump
expect_rc 3 "damaged block"
expect_err_has "bad.dump: warning:" "damaged block"
expect_out_has "$(printf 'class\tnew_count')" "damaged block: results"

# Cut inside the file header: an incomplete dump without objects.
head -c 5 a.dump >tiny.dump
run "$diff" -f tsv tiny.dump a.dump
expect_rc 3 "header cut"
expect_err_has "heapfmt-diff: tiny.dump: dump is truncated inside its header" "header cut"
new=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 { s += $2 } END { print s + 0 }')
[ "$new" -eq 30000 ] && pass || fail "header cut: $new new objects, expected 30000"
: >empty.dump
run "$diff" -f json a.dump b.dump empty.dump
expect_rc 3 "empty file"
expect_out_has '"complete": false' "empty file"

finish
