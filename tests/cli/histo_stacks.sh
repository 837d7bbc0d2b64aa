#!/usr/bin/env bash
# histo_stacks.sh -- histo --by=stack, --by=frame and -f folded on native
# heaps made by heapfmt-gen --stacks: every format works, the rows add up
# to the dump, the top frame is never the allocator's or the tracker's,
# folded lines go outermost first and add up too; -j2 and standard input
# print what one thread and a file print; truncated dumps exit 3; folded
# with another --by or several dumps, and a dump without stacks, fail.
. "$(dirname "$0")/lib.bash"

histo=$BIN/histo
in_tmpdir

run "$histo" --help
expect_out_has "stack" "--help mentions --by=stack"
expect_out_has "folded" "--help mentions -f folded"

# Small blocks, so that -j2 has several and a cut loses some.
gen_dump s.dump --objects 30000 --seed 5 --stacks --block-size 4096
gen_dump s2.dump --objects 30000 --seed 5 --stacks --block-size 4096
cmp -s s.dump s2.dump && pass || fail "heapfmt-gen --stacks is not deterministic"
gen_dump n.dump --objects 3000 --seed 5 --block-size 4096

# The objects are those of the dump without --stacks.
gen_dump plain.dump --objects 30000 --seed 5 --block-size 4096
run "$histo" -f tsv plain.dump
expect_success "by class, no stacks"
classes=$out
run "$histo" -f tsv s.dump
[ "$out" = "$classes" ] && pass || fail "--stacks changed the objects"

# Totals of the dump, from the footer.
run "$histo" -f tsv s.dump
total=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 {c += $1; b += $2} END {print c, b}')

for by in stack frame; do
    for f in table tsv csv json; do
        run "$histo" --by=$by -f $f s.dump
        expect_success "--by=$by -f $f"
    done
    run "$histo" --by=$by -f tsv s.dump
    tsv=$out
    sums=$(printf '%s\n' "$tsv" | awk -F'\t' 'NR > 1 {c += $1; b += $2} END {print c, b}')
    [ "$sums" = "$total" ] && pass || fail "--by=$by rows add up to '$sums', not '$total'"
    expect_out_has "(no stack)" "--by=$by: objects without a stack"
    for j in 2 3; do
        run "$histo" --by=$by -f tsv -j $j s.dump
        expect_success "--by=$by -j $j"
        [ "$out" = "$tsv" ] && pass || fail "--by=$by -j $j differs from -j1"
    done
    expect_run_out "$tsv" "--by=$by from standard input" \
        bash -c "cat s.dump | '$histo' --by=$by -f tsv -"
done

# The top frame is the program's, never the tracker's or libc's.
run "$histo" --by=frame -f tsv s.dump
frames=$(printf '%s\n' "$out" | tail -n +2 | cut -f 3)
if printf '%s\n' "$frames" | grep -E '^(malloc|calloc|realloc|posix_memalign|_Znwm|__strdup|_int_memalign) |libheapfmt-malloc|libc\.so'; then
    fail "--by=frame shows an allocator frame"
else
    pass
fi
printf '%s\n' "$frames" | grep -qx 'leaky_function (app-server+0x1139) src/leak.c:12' &&
    pass || fail "--by=frame lacks leaky_function"
printf '%s\n' "$frames" | grep -qx 'libffi.so.8+0x7a1c' &&
    pass || fail "--by=frame: a frame without a function"
# Each stack's row is the row of its top frame: the stacks through
# leaky_function add up to its frame row.
run "$histo" --by=stack -f tsv s.dump
leaky=$(printf '%s\n' "$out" | awk -F'\t' 'index($3, "< leaky_function (app-server+0x1139)") {c += $1; b += $2} END {print c, b}')
run "$histo" --by=frame -f tsv --match '^leaky_function ' s.dump
row=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 {print $1, $2}')
[ "$leaky" = "$row" ] && pass || fail "leaky_function: stacks '$leaky', frame '$row'"

# Folded: outermost frame first, the tracker's last; the values add up to
# the bytes (counts with --sort=count); --by=stack is implied.
run "$histo" -f folded s.dump
expect_success "-f folded"
folded=$out
bytes=$(printf '%s\n' "$folded" | awk '{s += $NF} END {print s}')
[ "$bytes" = "${total#* }" ] && pass || fail "folded bytes $bytes, want ${total#* }"
bad=$(printf '%s\n' "$folded" | grep -v '^(no stack) ' |
      grep -Ev '^(clone3|_start|__libc_start_main|start_thread) \(' )
[ -z "$bad" ] && pass || fail "folded: a line not outermost first: ${bad%%$'\n'*}"
bad=$(printf '%s\n' "$folded" | grep -v '^(no stack) ' |
      grep -Ev ';((malloc|calloc|realloc|posix_memalign) \(libheapfmt-malloc\.so\+0x[0-9a-f]+\)|libheapfmt-malloc\.so\+0x2f10) [0-9]+$')
[ -z "$bad" ] && pass || fail "folded: a line not ending with the tracker: ${bad%%$'\n'*}"
lines=$(printf '%s\n' "$folded" | wc -l)
run "$histo" --by=stack -f tsv s.dump
rows=$(($(printf '%s\n' "$out" | wc -l) - 1))
[ "$lines" = "$rows" ] && pass || fail "folded: $lines lines for $rows stacks"
run "$histo" -f folded --sort=count s.dump
count=$(printf '%s\n' "$out" | awk '{s += $NF} END {print s}')
[ "$count" = "${total% *}" ] && pass || fail "folded counts $count, want ${total% *}"
expect_run_out "$folded" "folded -j2" "$histo" -f folded --by=stack -j2 s.dump
expect_run_out "$folded" "folded from standard input" \
    bash -c "'$histo' -f folded - < s.dump"
run "$histo" -f folded -n 3 s.dump
expect_success "folded --top"
[ "$(printf '%s\n' "$out" | wc -l)" = 3 ] && pass || fail "folded -n 3: not 3 lines"

# Truncated: what the complete blocks hold, exit 3, a warning.
size=$(stat -c %s s.dump)
head -c $((size / 2)) s.dump > cut.dump
for by in stack frame; do
    run "$histo" --by=$by -f tsv cut.dump
    expect_rc 3 "--by=$by on a truncated dump"
    expect_err_has "incomplete" "--by=$by truncated: a warning"
    expect_out_has "leaky_function" "--by=$by truncated: the rows read"
    one=$out
    run "$histo" --by=$by -f tsv -j2 cut.dump
    expect_rc 3 "--by=$by -j2 on a truncated dump"
    [ "$out" = "$one" ] && pass || fail "--by=$by -j2 differs on a truncated dump"
done
run "$histo" -f folded cut.dump
expect_rc 3 "folded on a truncated dump"

# Errors.
run "$histo" --by=stack n.dump
expect_failure 1 "--by=stack without stacks"
expect_err_has "no call stacks" "--by=stack without stacks: says why"
run "$histo" --by=frame n.dump
expect_failure 1 "--by=frame without stacks"
expect_usage_error "$histo" "folded --by=class" -f folded --by=class s.dump
expect_usage_error "$histo" "folded --by=frame" -f folded --by=frame s.dump
expect_usage_error "$histo" "folded with two dumps" -f folded s.dump s2.dump
expect_usage_error "$histo" "--by=stacks" --by=stacks s.dump

finish
