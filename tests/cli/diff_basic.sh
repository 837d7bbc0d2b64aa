#!/usr/bin/env bash
# diff_basic.sh -- command-line contract of heapfmt-diff: two dumps (new and
# freed objects per class), three dumps (retained), --by, --list, filters,
# --top and the four output formats.
. "$(dirname "$0")/lib.bash"

diff=$BIN/heapfmt-diff
in_tmpdir

# heapfmt-gen with one seed and more objects writes the same heap with
# more objects appended: t2 holds t1 and 6,000 objects more, t3 6,000
# more again. other.dump is another process.
gen_dump t1.dump -n 60000 -s 1
gen_dump t2.dump -n 66000 -s 1
gen_dump t3.dump -n 72000 -s 1 --level 0
gen_dump other.dump -n 20000 -s 2

# Sums of TSV columns (after the header): "col1 col2 ..."
sums() { # COLUMN...
    printf '%s\n' "$out" | awk -F'\t' -v cols="$*" '
        NR > 1 { n = split(cols, c, " "); for (i = 1; i <= n; i++) s[i] += $c[i] }
        END { n = split(cols, c, " "); for (i = 1; i <= n; i++) printf "%s%d", (i > 1 ? " " : ""), s[i]; print "" }'
}
columns_ok() { # N WHAT
    local bad
    bad=$(printf '%s\n' "$out" | awk -F'\t' -v n="$1" 'NF != n' | wc -l)
    [ "$bad" -eq 0 ] && pass || fail "$2: $bad lines without $1 columns"
}
sorted_desc() { # COLUMN WHAT
    local col
    col=$(printf '%s\n' "$out" | tail -n +2 | cut -f "$1")
    [ "$col" = "$(printf '%s\n' "$col" | sort -rn)" ] && pass || fail "$2: not sorted"
}

# ---- two dumps ----
header=$(printf 'class\tnew_count\tnew_bytes\tfreed_count\tfreed_bytes')
run "$diff" -f tsv t1.dump t2.dump
expect_success "tsv diff"
[ "$(printf '%s\n' "$out" | head -n 1)" = "$header" ] && pass || fail "diff header"
columns_ok 5 "tsv diff"
[ "$(sums 2 4)" = "6000 0" ] && pass || fail "new/freed counts are $(sums 2 4), expected 6000 0"
sorted_desc 3 "tsv diff by new bytes"
tsv12=$out

run "$diff" -f tsv t2.dump t1.dump
expect_success "reverse diff"
[ "$(sums 2 4)" = "0 6000" ] && pass || fail "reverse: counts are $(sums 2 4)"
[ "$(sums 3)" = "0" ] && pass || fail "reverse: new bytes"
[ "$(sums 5)" = "$(printf '%s\n' "$tsv12" | awk -F'\t' 'NR > 1 { s += $3 } END { print s }')" ] &&
    pass || fail "freed bytes one way are not new bytes the other way"

expect_run_out "$header" "a dump against itself" "$diff" -f tsv t1.dump t1.dump

# CSV: the TSV's rows and columns, read back by a CSV reader.
run "$diff" -f csv t1.dump t2.dump
expect_success "csv diff"
printf '%s\n' "$out" >d12.csv
printf '%s\n' "$tsv12" >d12.tsv
if command -v python3 >/dev/null 2>&1; then
    python3 - d12.csv d12.tsv <<'PY' && pass || fail "csv rows are not the tsv rows"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
tsv = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()]
sys.exit(rows != tsv or len(rows) < 2)
PY
fi

# Standard input gives the same answer, for either dump.
expect_run_out "$tsv12" "before on stdin" sh -c "cat t1.dump | '$diff' -f tsv - t2.dump"
expect_run_out "$tsv12" "after on stdin" sh -c "cat t2.dump | '$diff' -f tsv t1.dump -"

# Table: a header, one line per class, a rule and a total.
run "$diff" t1.dump t2.dump
expect_success "table diff"
expect_out_has "NEW BYTES" "table header"
expect_out_has "DELTA BYTES" "table header"
last=$(printf '%s\n' "$out" | tail -n 1)
case $last in
"6000 "*"total ("*" classes)") pass ;;
*) fail "table total line: $last" ;;
esac
run "$diff" -H t1.dump t2.dump
expect_success "table --human"
last=$(printf '%s\n' "$out" | tail -n 1)
case $last in
"6,000 "*"iB "*"total ("*" classes)") pass ;; # KiB or MiB: human units
*) fail "--human total line: $last" ;;
esac
run "$diff" -n 3 t1.dump t2.dump
expect_success "table --top"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 7 ] && pass || fail "--top 3 table is not 7 lines"
expect_out_has " other classes)" "--top: the rest in one line"

# ---- three dumps ----
run "$diff" -f tsv t1.dump t2.dump t3.dump
expect_success "retained"
[ "$(printf '%s\n' "$out" | head -n 1)" = "$(printf 'class\tretained_count\tretained_bytes')" ] &&
    pass || fail "retained header"
columns_ok 3 "retained"
[ "$(sums 2)" = "6000" ] && pass || fail "retained count $(sums 2), expected 6000"
sorted_desc 3 "retained by bytes"
# What t2 added is what t3 retains of it.
[ "$(sums 3)" = "$(printf '%s\n' "$tsv12" | awk -F'\t' 'NR > 1 { s += $3 } END { print s }')" ] &&
    pass || fail "retained bytes differ from new bytes"
run "$diff" -f tsv t1.dump t2.dump t1.dump
expect_success "nothing survives in d3"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && pass || fail "retained rows though d3 = d1"
run sh -c "cat t1.dump | '$diff' -f tsv - t2.dump t3.dump"
expect_success "d1 on stdin"
[ "$(sums 2)" = "6000" ] && pass || fail "stdin retained"

# ---- --by ----
run "$diff" -f tsv --by=site t1.dump t2.dump
expect_success "--by=site"
[ "$(printf '%s\n' "$out" | head -n 1)" = "$(printf 'site\tnew_count\tnew_bytes\tfreed_count\tfreed_bytes')" ] &&
    pass || fail "site header"
columns_ok 5 "--by=site"
[ "$(sums 2)" = "6000" ] && pass || fail "by site: counts"
expect_out_has "(no site)" "objects without a site"
run "$diff" -f tsv --by=class,site t1.dump t2.dump t3.dump
expect_success "--by=class,site"
columns_ok 4 "--by=class,site"
[ "$(sums 3)" = "6000" ] && pass || fail "by class,site: counts"

# ---- --list ----
run "$diff" -f tsv --list t1.dump t2.dump
expect_success "--list"
[ "$(printf '%s\n' "$out" | head -n 1)" = "$(printf 'change\tid\tclass\ttype\tbytes\tsite')" ] &&
    pass || fail "list header"
columns_ok 6 "--list"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 6001 ] && pass || fail "list is not 6,000 objects"
sorted_desc 5 "list by bytes"
bad=$(printf '%s\n' "$out" | tail -n +2 | awk -F'\t' '$1 != "new" || length($2) != 18 || $2 !~ /^0x[0-9a-f]+$/' | wc -l)
[ "$bad" -eq 0 ] && pass || fail "$bad list lines with a bad change or id"
ids=$(printf '%s\n' "$out" | tail -n +2 | cut -f 2 | sort -u | wc -l)
[ "$ids" -eq 6000 ] && pass || fail "list ids are not distinct"
all=$out
run "$diff" -f tsv --list --top 7 t1.dump t2.dump
expect_success "--list --top"
[ "$out" = "$(printf '%s\n' "$all" | head -n 8)" ] && pass || fail "--top 7 is not the first 7 objects"
run "$diff" --list -n 3 t1.dump t2.dump t3.dump
expect_success "retained list table"
expect_out_has "retained" "retained list"
expect_out_has "CHANGE" "list table header"

# ---- filters ----
run "$diff" -f tsv --class String --class Hash t1.dump t2.dump
expect_success "--class"
classes=$(printf '%s\n' "$out" | tail -n +2 | cut -f 1 | sort | tr '\n' ' ')
[ "$classes" = "Hash String " ] && pass || fail "--class rows: $classes"
run "$diff" -f tsv --match '^Thread' t1.dump t2.dump
expect_success "--match"
bad=$(printf '%s\n' "$out" | tail -n +2 | cut -f 1 | grep -cv '^Thread')
[ "$bad" -eq 0 ] && pass || fail "--match kept $bad other classes"
[ "$(printf '%s\n' "$out" | wc -l)" -gt 1 ] && pass || fail "--match found nothing"
run "$diff" -f tsv --list --class String t1.dump t2.dump
expect_success "--list --class"
bad=$(printf '%s\n' "$out" | tail -n +2 | awk -F'\t' '$3 != "String"' | wc -l)
[ "$bad" -eq 0 ] && pass || fail "--list --class kept $bad others"

# ---- JSON ----
json_ok() { # WHAT
    if command -v python3 >/dev/null 2>&1; then
        printf '%s\n' "$out" | python3 -c 'import json, sys; json.load(sys.stdin)' &&
            pass || fail "$1: invalid JSON"
    elif command -v jq >/dev/null 2>&1; then
        printf '%s\n' "$out" | jq . >/dev/null && pass || fail "$1: invalid JSON"
    fi
}
run "$diff" -f json t1.dump t2.dump
expect_success "json diff"
json_ok "json diff"
expect_out_has '"mode": "diff"' "json mode"
expect_out_has '"complete": true' "json complete"
run "$diff" -f json --by=class,site -n 5 t1.dump t2.dump t3.dump
expect_success "json retained"
json_ok "json retained"
expect_out_has '"retained_count"' "json retained counts"
run "$diff" -f json --list -n 50 t1.dump t2.dump
expect_success "json list"
json_ok "json list"
expect_out_has '"count": 50' "json list count"

# ---- dumps of two processes: a warning, still exit 0 ----
run "$diff" -f tsv t1.dump other.dump
expect_rc 0 "different processes"
expect_err_has "heapfmt-diff: warning: t1.dump and other.dump come from different processes (pid" "different processes"
[ "$(printf '%s\n' "$out" | head -n 1)" = "$header" ] && pass || fail "output with a warning"
run "$diff" -f json t1.dump other.dump
json_ok "json with warnings"
expect_out_has '"message": "t1.dump and other.dump come from different processes' "json warning"

# ---- help and version ----
run "$diff" --help
expect_success "--help"
expect_out_has "Usage: heapfmt-diff [OPTION]... BEFORE AFTER" "--help"
run "$diff" --version
expect_success "--version"
expect_out_has "heapfmt-diff " "--version"

finish
