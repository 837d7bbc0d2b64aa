#!/usr/bin/env bash
# histo_errors.sh -- histo's exit codes: usage errors (2), errors (1) with
# a clean stdout, and incomplete dumps (3) with the partial histogram.
. "$(dirname "$0")/lib.bash"

gen=$BIN/heapfmt-gen
histo=$BIN/histo
in_tmpdir

run "$gen" -n 200000 -s 3 --block-size 16384 -o x.dump
expect_success "gen"
gen_dump x0.dump -n 200000 -s 3 --block-size 16384 --level 0
gen_dump nosites.dump -n 1000 --no-sites
size=$(stat -c %s x.dump)

# ---- usage errors: exit 2, nothing on stdout, a hint on stderr ----
usage() { expect_usage_error "$histo" "$@"; } # WHAT ARG...
usage "no dump"
expect_err_has "histo: no dump given" "no dump"
usage "unknown option" --bogus x.dump
expect_err_has "unrecognized option '--bogus'" "unknown option"
usage "unknown short option" -Z x.dump
usage "missing argument" x.dump -n
usage "bad --sort" --sort=size x.dump
expect_err_has "expected one of bytes, count, name, delta, delta-count" "bad --sort"
usage "bad --by" --by=module x.dump
usage "bad --format" -f xml x.dump
usage "--top 0" --top 0 x.dump
usage "--top x" --top x x.dump
usage "--min-count -1" --min-count -1 x.dump
usage "--min-bytes 5X" --min-bytes 5X x.dump
usage "--min-bytes overflow" --min-bytes 99999999999999999T x.dump
usage "--sort=delta with one dump" --sort=delta x.dump
expect_err_has "needs two or more dumps" "--sort=delta with one dump"
usage "bad regex" --match '(' x.dump
expect_err_has "invalid --match regular expression" "bad regex"
usage "stdin twice" - -
usage "empty name" ''

# ---- errors: exit 1, "histo: FILE: message", stdout clean ----
run "$histo" missing.dump
expect_failure 1 "missing file"
expect_err_has "histo: missing.dump: No such file or directory" "missing file"
run "$histo" x.dump missing.dump
expect_failure 1 "missing second file"
run "$histo" x.dump x.dump x.dump missing.dump
expect_failure 1 "missing file in a trend"
run "$histo" .
expect_failure 1 "directory"
expect_err_has "histo: .: Is a directory" "directory"
printf 'count\tbytes\tclass\n' >text.tsv
run "$histo" text.tsv
expect_failure 1 "text file"
expect_err_has "histo: text.tsv: not a heapfmt dump" "text file"
printf '{"address":"0x7f01", "type":"STRING"}\n' >objspace.json
run "$histo" objspace.json
expect_failure 1 "JSON file"
expect_err_has "histo: objspace.json: " "JSON file"
run "$histo" --by=site nosites.dump
expect_failure 1 "--by=site without sites"
expect_err_has "histo: nosites.dump: no allocation sites" "--by=site without sites"
run "$histo" --by=type nosites.dump
expect_success "--by=type without sites"
if [ -w /dev/full ]; then
    run bash -c "'$histo' x.dump > /dev/full"
    expect_rc 1 "write error"
    expect_err_has "histo: write error" "write error"
fi

# ---- incomplete dumps: exit 3, the partial histogram, what was lost ----
head -c $((size / 2)) x.dump >half.dump
run "$histo" -f tsv half.dump
expect_rc 3 "truncated"
expect_err_has "histo: half.dump: warning: " "truncated"
expect_err_has "incomplete dump" "truncated"
partial=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 { s += $1 } END { print s + 0 }')
if [ "$partial" -gt 0 ] && [ "$partial" -lt 200000 ]; then pass; else
    fail "truncated dump counted $partial objects"
fi
run "$histo" half.dump
expect_rc 3 "truncated table"
expect_out_has "total (" "truncated table"
run bash -c "head -c $((size / 2)) x.dump | '$histo' -f tsv -"
expect_rc 3 "truncated pipe"
piped=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 { s += $1 } END { print s + 0 }')
[ "$piped" = "$partial" ] && pass || fail "pipe counted $piped, file $partial"
run "$histo" -f tsv x.dump half.dump
expect_rc 3 "truncated in a diff"
expect_out_has "delta_bytes" "truncated in a diff"
run "$histo" x.dump half.dump
expect_out_has "B: half.dump  (incomplete: partial counts)" "diff legend"
head -c 10 x.dump >h10.dump
run "$histo" -f json h10.dump
expect_rc 3 "cut inside the header"
expect_out_has '"complete": false' "cut inside the header"
: >empty.dump
run "$histo" empty.dump
expect_rc 3 "empty file"

# A damaged block: a scan skips it (exit 3); the footer path does not read
# blocks and gives the whole histogram from the intact footer (exit 0).
cp x0.dump bad.dump
printf '\xff\xff\xff\xff' | dd of=bad.dump bs=1 seek=$((size / 3)) conv=notrunc status=none
run "$histo" -f tsv --scan bad.dump
expect_rc 3 "damaged block, --scan"
expect_err_has "skipped" "damaged block, --scan"
damaged=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 { s += $1 } END { print s + 0 }')
if [ "$damaged" -gt 0 ] && [ "$damaged" -lt 200000 ]; then pass; else
    fail "damaged dump counted $damaged objects"
fi
run "$histo" -f tsv bad.dump
expect_success "damaged block, footer"
[ "$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 { s += $1 } END { print s }')" = 200000 ] &&
    pass || fail "footer of a damaged dump"
run "$histo" --by=type bad.dump
expect_rc 3 "damaged block, --by=type"

finish
