#!/usr/bin/env bash
# ruby_module_eval.sh -- the module_eval leak of the article on hidden
# leaks (tests/ruby/module_eval_leak.rb: 10,000 methods eval'd into a
# module), found with one command in a real Ruby's dumps:
#   histo --by=imemo counts the T_IMEMO objects by subtype as ObjectSpace
#   does (count_imemo_objects), and shows the iseqs that grew;
#   heapfmt-diff --by=iseq names where the leaked code comes from: "(eval)"
#   without allocation tracing (Ruby 3.1 keeps no more), the eval site
#   itself, "(eval at FILE:LINE)", with it.
# Then the options' errors on dumps that are not Ruby heaps.
# Skipped without ruby-dev (tests/ruby/common.sh).
. tests/ruby/common.sh
. "$(dirname "$0")/lib.bash"
set +e

script=$(pwd)/tests/ruby/module_eval_leak.rb
line=$(grep -n 'BigModule.module_eval(method) # the eval site' "$script" | cut -d: -f1)
in_tmpdir

# The first row of a heapfmt-diff -f tsv output in $out.
first_row() { printf '%s\n' "$out" | sed -n 2p; }
# Whether $1 is 10,000 give or take 10: an iseq of the leak may sit where
# d1 had one (ids are addresses, and iseqs have no class to tell them
# apart), so that it looks old.
about_10000() { [ "$1" -ge 9990 ] && [ "$1" -le 10010 ]; }

for trace in 0 1; do
    mkdir -p "t$trace"
    run ruby -I "$RUBY_EXT_DIR" "$script" "t$trace" "$trace"
    expect_success "trace $trace: the leak runs"
    d=("t$trace/d1.hfd" "t$trace/d2.hfd" "t$trace/d3.hfd")

    # ---- histo --by=imemo: ObjectSpace's counts, and what grew ----
    run "$BIN/histo" --by=imemo -f tsv "${d[1]}"
    expect_success "trace $trace: histo --by=imemo"
    # (The call of HeapFmt.dump may make a call cache or two.)
    while read -r subtype count; do
        got=$(printf '%s\n' "$out" | awk -F '\t' -v n="$subtype" '$3 == n { print $1 }')
        case $subtype in
        callcache | constcache | callinfo) slack=2 ;;
        *) slack=0 ;;
        esac
        [ "${got:-0}" -ge "$count" ] && [ "${got:-0}" -le $((count + slack)) ] &&
            pass || fail "trace $trace: $subtype: histo says ${got:-none}, ObjectSpace $count"
    done <"t$trace/imemo.txt"
    run "$BIN/histo" --by=imemo -f tsv "${d[0]}" "${d[1]}"
    expect_success "trace $trace: histo --by=imemo D1 D2"
    row=$(printf '%s\n' "$out" | sed -n 2p)
    IFS=$'\t' read -r name _ _ delta _ <<<"$row"
    [ "$name" = iseq ] && pass || fail "trace $trace: the first row is not iseq: $row"
    about_10000 "$delta" && pass ||
        fail "trace $trace: iseqs grew by $delta, not 10,000"

    # ---- heapfmt-diff --by=iseq: where the leaked code comes from ----
    run "$BIN/heapfmt-diff" --by=iseq -f tsv "${d[@]}"
    expect_success "trace $trace: heapfmt-diff --by=iseq"
    if [ "$trace" = 1 ]; then
        want="iseq (eval at $script:$line):1"
    else
        want="iseq (eval):1"
    fi
    IFS=$'\t' read -r name count _ <<<"$(first_row)"
    [ "$name" = "$want" ] && pass ||
        fail "trace $trace: the first row is '$name', not '$want'"
    about_10000 "$count" && pass || fail "trace $trace: $count retained, not 10,000"
done

# Without the label, code eval'd at one place is one row; with -j, histo
# reads with one thread (the rows need every object's type) and says the
# same.
run "$BIN/histo" --by=iseq -f tsv t1/d2.hfd
expect_success "histo --by=iseq"
count=$(printf '%s\n' "$out" | awk -F '\t' '$3 ~ /^iseq \(eval at / { print $1 }')
about_10000 "${count:-0}" && pass || fail "histo --by=iseq: (eval at ...) $count"
one=$out
run "$BIN/histo" --by=iseq -j2 -f tsv t1/d2.hfd
[ "$out" = "$one" ] && pass || fail "histo --by=iseq -j2 differs from -j1"
run "$BIN/heapfmt-diff" --by=imemo -f tsv t0/d1.hfd t0/d2.hfd t0/d3.hfd
expect_success "heapfmt-diff --by=imemo"
IFS=$'\t' read -r name count _ <<<"$(first_row)"
[ "$name" = iseq ] && about_10000 "$count" && pass ||
    fail "heapfmt-diff --by=imemo: first row $name $count"

# ---- not Ruby heaps ----
gen_dump gen.hfd -n 2000 -s 1
run "$BIN/histo" --by=iseq gen.hfd
expect_failure 1 "histo --by=iseq on a dump without code locations"
expect_err_has "so --by=iseq has nothing to show" "histo --by=iseq: why"
run "$BIN/heapfmt-diff" --by=iseq gen.hfd gen.hfd
expect_failure 1 "heapfmt-diff --by=iseq on dumps without code locations"
expect_err_has "no instruction sequences or Procs with a code location" \
    "heapfmt-diff --by=iseq: why"
run "$BIN/heapfmt-import" -o v8.hfd "$FIXTURES/import/v8_small.heapsnapshot"
expect_success "import a V8 snapshot"
run "$BIN/histo" --by=imemo v8.hfd
expect_failure 1 "histo --by=imemo on a V8 heap"
expect_err_has "no T_IMEMO objects in this dump" "histo --by=imemo: why"
# ObjectSpace.dump_all's imemo_type, imported, is the subtype too.
run "$BIN/heapfmt-import" -o r31.hfd "$FIXTURES/import/ruby31.json"
expect_success "import a Ruby 3.1 dump_all"
run "$BIN/histo" --by=imemo -f tsv r31.hfd
expect_success "histo --by=imemo on an imported dump_all"
for subtype in ment callcache iseq; do
    want=$(grep -c "\"imemo_type\":\"$subtype\"" "$FIXTURES/import/ruby31.json")
    got=$(printf '%s\n' "$out" | awk -F '\t' -v n="$subtype" '$3 == n { print $1 }')
    [ "${got:-0}" = "$want" ] && pass || fail "dump_all's $subtype: $got, not $want"
done
finish
