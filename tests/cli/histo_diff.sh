#!/usr/bin/env bash
# histo_diff.sh -- command-line contract of histo with two dumps (the
# per-class change) and with three or more (the trend).
. "$(dirname "$0")/lib.bash"

histo=$BIN/histo
in_tmpdir

# The same program at three moments (same class set, more objects), and
# another program (other classes: some vanish, some appear).
gen_dump t1.dump -n 200000 -s 1
gen_dump t2.dump -n 260000 -s 1
gen_dump t3.dump -n 330000 -s 1 --level 0
gen_dump other.dump -n 150000 -s 2 -c 300

# ---- two dumps ----
run "$histo" -f tsv --all t1.dump t2.dump
expect_success "tsv diff"
header=$(printf 'class\tcount_a\tcount_b\tdelta_count\tbytes_a\tbytes_b\tdelta_bytes')
[ "$(printf '%s\n' "$out" | head -n 1)" = "$header" ] && pass || fail "diff header"
bad=$(printf '%s\n' "$out" | awk -F'\t' 'NF != 7' | wc -l)
[ "$bad" -eq 0 ] && pass || fail "$bad diff lines without 7 columns"
bad=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 && ($4 != $3 - $2 || $7 != $6 - $5)' | wc -l)
[ "$bad" -eq 0 ] && pass || fail "$bad rows whose deltas are not b - a"
sums=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 { a += $2; b += $3 } END { print a, b }')
[ "$sums" = "200000 260000" ] && pass || fail "--all diff counts add up to $sums"
col=$(printf '%s\n' "$out" | tail -n +2 | cut -f 7)
[ "$col" = "$(printf '%s\n' "$col" | sort -rn)" ] && pass || fail "not sorted by delta bytes"

# Footer and scan agree on diffs too.
all_tsv=$out
run "$histo" -f tsv --all --scan t1.dump t2.dump
[ "$out" = "$all_tsv" ] && pass || fail "--scan diff differs"

# Unchanged classes are hidden unless --all.
run "$histo" -f tsv t1.dump t2.dump
expect_success "diff without --all"
bad=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 && $2 == $3 && $5 == $6' | wc -l)
[ "$bad" -eq 0 ] && pass || fail "$bad unchanged rows shown"
expect_run_out "$header" "a dump against itself" "$histo" -f tsv t1.dump t1.dump
run "$histo" t1.dump t1.dump
expect_success "table of a dump against itself"
expect_out_has "A: t1.dump" "legend"
expect_out_has "B: t1.dump" "legend"
expect_out_has "other classes)" "identical dumps: summed"

# Classes present in one dump only appear, with their sign.
run "$histo" -f tsv t1.dump other.dump
expect_success "diff of two programs"
gone=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 && $3 == 0 && $4 < 0 && $4 == -$2' | wc -l)
new=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 && $2 == 0 && $4 > 0 && $4 == $3' | wc -l)
[ "$gone" -gt 0 ] && pass || fail "no vanished class listed"
[ "$new" -gt 0 ] && pass || fail "no new class listed"
run "$histo" t1.dump other.dump
expect_out_has "  (gone)" "table marks vanished classes"
expect_out_has "  (new)" "table marks new classes"
expect_out_has "+/-bytes  class" "table header"
run "$histo" -f json t1.dump other.dump
expect_success "json diff"
expect_out_has '"status": "gone"' "json diff"
expect_out_has '"status": "new"' "json diff"
if command -v jq >/dev/null 2>&1; then
    bad=$(printf '%s\n' "$out" | jq '[.rows[] | select(.delta_count != .count_b - .count_a)] | length')
    [ "$bad" = 0 ] && pass || fail "jq: $bad json rows with a wrong delta"
fi

# Other sorts and filters work on the change.
run "$histo" -f tsv --sort=delta-count t1.dump other.dump
expect_success "--sort=delta-count"
col=$(printf '%s\n' "$out" | tail -n +2 | cut -f 4)
[ "$col" = "$(printf '%s\n' "$col" | sort -rn)" ] && pass || fail "not sorted by delta count"
run "$histo" -f tsv --min-count 500 t1.dump other.dump
expect_success "--min-count on a diff"
bad=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 && $4 < 500 && $4 > -500' | wc -l)
[ "$bad" -eq 0 ] && pass || fail "--min-count kept $bad small changes"
run "$histo" -f tsv -n 5 --match '^[A-Z]' t1.dump other.dump
expect_success "--top and --match on a diff"
[ "$(printf '%s\n' "$out" | wc -l)" -le 6 ] && pass || fail "--top 5 on a diff"

# ---- trends ----
run "$histo" -f tsv t1.dump t2.dump t3.dump
expect_success "tsv trend"
header=$(printf 'class\tgrowing\tcount_1\tcount_2\tcount_3\tbytes_1\tbytes_2\tbytes_3')
[ "$(printf '%s\n' "$out" | head -n 1)" = "$header" ] && pass || fail "trend header"
bad=$(printf '%s\n' "$out" | awk -F'\t' 'NF != 8' | wc -l)
[ "$bad" -eq 0 ] && pass || fail "$bad trend lines without 8 columns"
# Growing rows first; each really grew in both intervals.
flags=$(printf '%s\n' "$out" | tail -n +2 | cut -f 2 | uniq | tr '\n' ' ')
[ "$flags" = "1 0 " ] || [ "$flags" = "1 " ] && pass || fail "growing rows not first: $flags"
bad=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 && $2 == 1 &&
    !($4 >= $3 && $5 >= $4 && $7 >= $6 && $8 >= $7 &&
      ($4 > $3 || $7 > $6) && ($5 > $4 || $8 > $7))' | wc -l)
[ "$bad" -eq 0 ] && pass || fail "$bad rows flagged growing that did not grow"
bad=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 && $2 == 0 &&
    ($4 >= $3 && $5 >= $4 && $7 >= $6 && $8 >= $7 &&
     ($4 > $3 || $7 > $6) && ($5 > $4 || $8 > $7))' | wc -l)
[ "$bad" -eq 0 ] && pass || fail "$bad growing rows not flagged"
printf '%s\n' "$out" | grep -q "^String	1	" && pass || fail "String is not flagged growing"

run "$histo" t1.dump t2.dump t3.dump
expect_success "trend table"
expect_out_has "#1: t1.dump" "trend legend"
expect_out_has "#3: t3.dump" "trend legend"
expect_out_has "trend  class" "trend header"
expect_out_has "* grew in every interval" "trend footnote"
line=$(printf '%s\n' "$out" | grep -m1 '  String$')
case $line in
"* "*"  _"?"#  "*) pass ;;
*) fail "String trend line: '$line'" ;;
esac
tot=$(printf '%s\n' "$out" | grep 'total (' | awk '{ print $1, $2, $3 }')
[ "$tot" = "200000 260000 330000" ] && pass || fail "trend totals: $tot"

# A long trend needs no more open files than a short one.
many=()
for _ in $(seq 60); do many+=(t1.dump); done
run bash -c 'ulimit -n 24 && "$0" -f tsv --all "$@"' "$histo" "${many[@]}"
expect_success "60 dumps with 24 open files"
[ "$(printf '%s\n' "$out" | head -n 1 | awk -F'\t' '{ print NF, $NF }')" = "122 bytes_60" ] &&
    pass || fail "60-dump header: $(printf '%s\n' "$out" | head -n 1 | cut -c 1-60)"

# Up then down: nothing grew in every interval.
run "$histo" -f tsv t1.dump t3.dump t2.dump
expect_success "trend up and down"
bad=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 && $2 == 1' | wc -l)
[ "$bad" -eq 0 ] && pass || fail "$bad rows flagged growing in an up-down trend"

run "$histo" -f json t1.dump t2.dump t3.dump
expect_success "json trend"
expect_out_has '"growing": true' "json trend"
expect_out_has '"counts": [200000, 260000, 330000]' "json trend totals"

finish
