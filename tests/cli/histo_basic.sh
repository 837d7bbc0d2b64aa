#!/usr/bin/env bash
# histo_basic.sh -- command-line contract of histo on one dump: the table,
# the machine formats, footer vs --scan vs standard input, --by, the row
# options.
. "$(dirname "$0")/lib.bash"

gen=$BIN/heapfmt-gen
histo=$BIN/histo
in_tmpdir

run "$histo" --help
expect_success "--help"
expect_out_has "Usage: histo [OPTION]... DUMP..." "--help"
for o in --by= --sort= --top= --match= --min-count= --min-bytes= --all \
    --format= --human --scan --version "Exit status"; do
    expect_out_has "$o" "--help mentions $o"
done
run "$histo" -h
expect_success "-h"
run "$histo" --version
expect_success "--version"
expect_out_has "histo " "--version"
expect_out_has "libheapfmt" "--version"

run "$gen" --objects 300000 --seed 7 --block-size 65536 -o a.dump
expect_success "gen"
gen_dump a0.dump --objects 300000 --seed 7 --block-size 65536 --level 0

# The table: header, rows by bytes, a rule, the total of every object.
run "$histo" a.dump
expect_success "table"
expect_out_has "total (" "table"
first=$(printf '%s\n' "$out" | head -n 1)
[[ $first =~ ^\ *count\ +bytes\ \ class$ ]] && pass || fail "table header is '$first'"
total=$(printf '%s\n' "$out" | awk '/ total \(/ { print $1 }')
[ "$total" = 300000 ] && pass || fail "total count '$total', want 300000"
sorted=$(printf '%s\n' "$out" | sed -n '2,/^-/p' | grep -v '^-' | awk '{ print $2 }')
[ "$sorted" = "$(printf '%s\n' "$sorted" | sort -rn)" ] && pass ||
    fail "rows not sorted by bytes"

# TSV: a header, three columns, counts that add up to the dump's objects.
run "$histo" --format=tsv a.dump
expect_success "tsv"
tsv=$out
[ "$(printf '%s\n' "$tsv" | head -n 1)" = "$(printf 'count\tbytes\tclass')" ] &&
    pass || fail "tsv header"
bad=$(printf '%s\n' "$tsv" | awk -F'\t' 'NF != 3' | wc -l)
[ "$bad" -eq 0 ] && pass || fail "$bad tsv lines without 3 columns"
sum=$(printf '%s\n' "$tsv" | awk -F'\t' 'NR > 1 { s += $1 } END { print s }')
[ "$sum" = 300000 ] && pass || fail "tsv counts add up to $sum"
lines=$(printf '%s\n' "$tsv" | wc -l)

# Footer summary, --scan, level 0, and standard input (no footer: a scan)
# give the same histogram.
for args in "--scan a.dump" "a0.dump" "--scan a0.dump"; do
    # shellcheck disable=SC2086
    run "$histo" -f tsv $args
    expect_success "tsv $args"
    [ "$out" = "$tsv" ] && pass || fail "histo $args differs from the footer"
done
expect_run_out "$tsv" "tsv from a pipe" bash -c "cat a.dump | '$histo' -f tsv -"
run bash -c "cat a.dump | '$histo' -f json -"
expect_success "json from a pipe"
expect_out_has '"file": "-", "complete": true, "source": "scan"' "json from a pipe"
# Standard input redirected from a file can seek: the footer is used.
run bash -c "'$histo' -f json - < a.dump"
expect_success "json from stdin"
expect_out_has '"file": "-", "complete": true, "source": "footer"' "json from stdin"
run "$histo" -f json a.dump
expect_success "json"
expect_out_has '"source": "footer"' "json"
expect_out_has '"totals": {"rows": '"$((lines - 1))"', "count": 300000' "json totals"
if command -v jq >/dev/null 2>&1; then
    n=$(printf '%s\n' "$out" | jq '.rows | length')
    [ "$n" = "$((lines - 1))" ] && pass || fail "jq: $n json rows"
fi

# CSV: same rows, comma-separated.
run "$histo" --format csv a.dump
expect_success "csv"
[ "$(printf '%s\n' "$out" | head -n 1)" = "count,bytes,class" ] && pass ||
    fail "csv header"
[ "$(printf '%s\n' "$out" | wc -l)" = "$lines" ] && pass || fail "csv line count"

# --top, --match, --min-count, --min-bytes, --sort.
run "$histo" -f tsv -n 3 a.dump
expect_success "--top 3"
[ "$(printf '%s\n' "$out" | wc -l)" = 4 ] && pass || fail "--top 3 gives $(printf '%s\n' "$out" | wc -l) lines"
[ "$out" = "$(printf '%s\n' "$tsv" | head -n 4)" ] && pass || fail "--top 3 is not the head"
run "$histo" -n 2 a.dump
expect_success "table --top 2"
expect_out_has " other classes)" "table --top 2"
run "$histo" -f tsv --match '^(String|Array)$' a.dump
expect_success "--match"
[ "$(printf '%s\n' "$out" | tail -n +2 | cut -f 3 | sort | tr '\n' ' ')" = "Array String " ] &&
    pass || fail "--match rows: $out"
run "$histo" -f tsv --min-count 1000 a.dump
expect_success "--min-count"
small=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 && $1 < 1000' | wc -l)
[ "$small" -eq 0 ] && pass || fail "--min-count left $small small rows"
run "$histo" -f tsv --min-bytes 1M a.dump
expect_success "--min-bytes 1M"
small=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 && $2 < 1048576' | wc -l)
[ "$small" -eq 0 ] && pass || fail "--min-bytes left $small small rows"
run "$histo" -f tsv --sort=count a.dump
expect_success "--sort=count"
col=$(printf '%s\n' "$out" | tail -n +2 | cut -f 1)
[ "$col" = "$(printf '%s\n' "$col" | sort -rn)" ] && pass || fail "not sorted by count"
run "$histo" -f tsv -s name a.dump
expect_success "--sort=name"
col=$(printf '%s\n' "$out" | tail -n +2 | cut -f 3)
[ "$col" = "$(printf '%s\n' "$col" | LC_ALL=C sort)" ] && pass || fail "not sorted by name"

# --human: thousands separators and binary units in the table only.
run "$histo" --human a.dump
expect_success "--human"
expect_out_has "300,000" "--human"
expect_out_has " MiB  " "--human"
run "$histo" --human -f tsv a.dump
[ "$out" = "$tsv" ] && pass || fail "--human changed the TSV"

# --by=type and --by=site read the blocks; their totals are the same.
run "$histo" -f tsv --by=type a.dump
expect_success "--by=type"
[ "$(printf '%s\n' "$out" | head -n 1)" = "$(printf 'count\tbytes\ttype')" ] && pass || fail "type header"
expect_out_has "T_STRING" "--by=type"
[ "$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 { s += $1 } END { print s }')" = 300000 ] &&
    pass || fail "types do not add up"
run "$histo" -f tsv -b site a.dump
expect_success "--by=site"
expect_out_has "(no site)" "--by=site"
expect_out_has ".rb:" "--by=site"
[ "$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 { s += $1 } END { print s }')" = 300000 ] &&
    pass || fail "sites do not add up"

# A trend's sparkline needs no UTF-8 locale; with one it uses blocks.
run "$histo" a.dump a0.dump a.dump
expect_success "three identical dumps"
expect_out_has "total (" "three identical dumps"
run "$histo" --all -n 1 a.dump a0.dump a.dump
expect_out_has "~~~" "flat ASCII sparkline"
if locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$'; then
    run env LC_ALL=C.UTF-8 "$histo" --all -n 1 a.dump a0.dump a.dump
    expect_out_has "▄▄▄" "flat UTF-8 sparkline"
fi

finish
