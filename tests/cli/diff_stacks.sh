#!/usr/bin/env bash
# diff_stacks.sh -- heapfmt-diff --by=stack and --by=frame on native heaps
# made by heapfmt-gen --stacks: the new objects per stack and per frame are
# exactly the growth histo counts in each, with three dumps the retained
# ones; every format, standard input, truncated dumps (exit 3) and dumps
# without stacks (exit 1).
. "$(dirname "$0")/lib.bash"

diff=$BIN/heapfmt-diff
histo=$BIN/histo
in_tmpdir

run "$diff" --help
expect_out_has "frame" "--help mentions --by=frame"

# The same seed: the second dump holds the first one's objects and 10,000
# more, none freed.
gen_dump d1.dump --objects 20000 --seed 9 --stacks --block-size 4096
gen_dump d2.dump --objects 30000 --seed 9 --stacks --block-size 4096
gen_dump plain1.dump --objects 2000 --seed 9
gen_dump plain2.dump --objects 3000 --seed 9

for by in stack frame; do
    for f in table tsv json; do
        run "$diff" --by=$by -f $f d1.dump d2.dump
        expect_success "--by=$by -f $f"
    done
    run "$diff" --by=$by -f tsv d1.dump d2.dump
    tsv=$out
    sums=$(printf '%s\n' "$tsv" | awk -F'\t' 'NR > 1 {n += $2; f += $4} END {print n, f}')
    [ "$sums" = "10000 0" ] && pass || fail "--by=$by: new, freed '$sums', want '10000 0'"
    # Per row, what histo says grew.
    got=$(printf '%s\n' "$tsv" | awk -F'\t' 'NR > 1 && $2 > 0 {print $1 "\t" $2 "\t" $3}' | sort)
    run "$histo" --by=$by -f tsv d1.dump d2.dump
    want=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 && $4 > 0 {print $1 "\t" $4 "\t" $7}' | sort)
    [ -n "$want" ] && [ "$got" = "$want" ] && pass ||
        fail "--by=$by: new per row differs from histo's growth"
    expect_run_out "$tsv" "--by=$by from standard input" \
        bash -c "cat d2.dump | '$diff' --by=$by -f tsv d1.dump -"
    # Three dumps: what d2 added and d3 still holds.
    run "$diff" --by=$by -f tsv d1.dump d2.dump d2.dump
    expect_success "--by=$by retained"
    got=$(printf '%s\n' "$out" | tail -n +2 | sort)
    want=$(printf '%s\n' "$tsv" | awk -F'\t' 'NR > 1 && $2 > 0 {print $1 "\t" $2 "\t" $3}' | sort)
    [ "$got" = "$want" ] && pass || fail "--by=$by: retained differs from new"
    run "$diff" --by=$by -f tsv d1.dump d2.dump d1.dump
    expect_success "--by=$by nothing retained"
    [ "$out" = "$(printf '%s\tretained_count\tretained_bytes' $by)" ] && pass ||
        fail "--by=$by: retained rows when d3 is d1"
done
# The new objects of leaky_function, by frame, are those of its stacks.
run "$diff" --by=stack -f tsv d1.dump d2.dump
stacks=$(printf '%s\n' "$out" | awk -F'\t' 'index($1, "< leaky_function (app-server+0x1139)") {n += $2; b += $3} END {print n, b}')
run "$diff" --by=frame -f tsv d1.dump d2.dump
frame=$(printf '%s\n' "$out" | awk -F'\t' '$1 ~ /^leaky_function / {print $2, $3}')
[ "$stacks" = "$frame" ] && pass || fail "leaky_function: stacks '$stacks', frame '$frame'"

# A truncated dump: exit 3, the rows of what was read.
size=$(stat -c %s d2.dump)
head -c $((size * 3 / 4)) d2.dump > cut.dump
run "$diff" --by=frame -f tsv d1.dump cut.dump
expect_rc 3 "--by=frame, a truncated dump"
expect_err_has "incomplete" "--by=frame truncated: a warning"
expect_out_has "leaky_function" "--by=frame truncated: rows"

# No stacks at all.
run "$diff" --by=stack plain1.dump plain2.dump
expect_failure 1 "--by=stack without stacks"
expect_err_has "no call stacks" "--by=stack without stacks: says why"
run "$diff" --by=frame plain1.dump plain2.dump
expect_failure 1 "--by=frame without stacks"
expect_usage_error "$diff" "--by=stack,class" --by=stack,class d1.dump d2.dump

finish
