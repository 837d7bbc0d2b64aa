#!/usr/bin/env bash
# import_v8.sh -- heapfmt-import on real V8 heap snapshots written by the
# installed Node (tests/v8/leaky.js; skipped without node): histo of the
# import equals DevTools' Summary computed from the snapshot's JSON
# (tests/v8/snapshot.js), heapfmt-diff's new objects equal its Comparison
# and the real DevTools' (tests/v8/devtools_diff.mjs, from Chromium),
# heapfmt-graph's path to a Leaky goes through the global array; then cut
# and damaged snapshots and --from.
. "$(dirname "$0")/lib.bash"

imp=$BIN/heapfmt-import
histo=$BIN/histo
js=$PWD/tests/v8
cd "$TMPDIR" || exit 1

if ! command -v node >/dev/null 2>&1; then
    echo "SKIP: node not installed"
    exit 0
fi

run node "$js/leaky.js" before.heapsnapshot after.heapsnapshot
expect_success "node writes two snapshots"

run "$imp" -o before.dump before.heapsnapshot
expect_success "import a snapshot"
run "$imp" -o after.dump after.heapsnapshot
expect_success "import the second snapshot"
# element edges in order indexed (1.3): smaller, the same edges and labels
expect_indexed_smaller after.heapsnapshot

expect_import_meta before.dump v8.heapsnapshot 1

# Per class, objects and self sizes as DevTools' Summary counts them.
for d in before after; do
    run "$histo" -f tsv -s name $d.dump
    expect_success "histo $d"
    printf '%s\n' "$out" > $d.tsv
    run node "$js/snapshot.js" histo $d.heapsnapshot $d.tsv
    expect_success "histo of $d equals the snapshot's own counts"
done
count_of() { awk -F '\t' -v c="$2" '$3 == c { print $1 }' "$1"; }
[ "$(count_of before.tsv Leaky)" = 1000 ] && pass || fail "1000 Leaky before"
[ "$(count_of after.tsv Leaky)" = 1500 ] && pass || fail "1500 Leaky after"

# DevTools' Comparison: new Leaky objects by node id.
want=$(node "$js/snapshot.js" new before.heapsnapshot after.heapsnapshot Leaky)
run "$BIN/heapfmt-diff" -f tsv --class=Leaky before.dump after.dump
expect_success "diff"
got=$(printf '%s\n' "$out" | awk -F '\t' '$1 == "Leaky" { print $2 }')
[ "$want" = 500 ] && [ "$got" = "$want" ] && pass ||
    fail "new Leaky: diff says $got, the snapshots $want"

# DevTools' own Comparison, computed by the DevTools front end of the
# installed Chromium (tests/v8/devtools_diff.mjs): the same totals of new
# and freed objects and bytes, and the same rows wherever the class names
# agree (DevTools adds "Detached " to detached embedder nodes and names
# plain objects after their properties: heapfmt-diff(1) says so).
node "$js/devtools_diff.mjs" before.heapsnapshot after.heapsnapshot \
    > devtools.tsv 2> devtools.err
rc=$?
if [ $rc = 77 ]; then
    echo "SKIP: DevTools' Comparison: $(cat devtools.err)"
else
    [ $rc = 0 ] && pass || fail "devtools_diff.mjs: $(tail -n 3 devtools.err)"
    run "$BIN/heapfmt-diff" -f tsv before.dump after.dump
    expect_success "diff of the whole snapshots"
    printf '%s\n' "$out" > heapfmt.tsv
    ours=$(awk -F '\t' 'NR > 1 { a += $2; b += $3; c += $4; d += $5 }
        END { print a + 0, b + 0, c + 0, d + 0 }' heapfmt.tsv)
    theirs=$(awk -F '\t' '$1 == "totals" { print $2, $3, $4, $5 }' devtools.tsv)
    [ -n "$theirs" ] && [ "$ours" = "$theirs" ] && pass ||
        fail "new and freed (count, bytes): heapfmt-diff $ours, DevTools $theirs"
    # DevTools' "Detached X" rows summed into X, the name heapfmt gives
    rows=$(awk -F '\t' 'NR == FNR { if (FNR > 1) h[$1] = $2 " " $3 " " $4 " " $5; next }
        $1 == "totals" { next }
        { k = $1; sub(/^Detached /, "", k); a[k] += $2; b[k] += $3; c[k] += $4; d[k] += $5 }
        END {
            for (k in a) if (k in h) { n++; if (h[k] != a[k] " " b[k] " " c[k] " " d[k])
                printf "%s: heapfmt-diff %s, DevTools %s %s %s %s; ", k, h[k], a[k], b[k], c[k], d[k] }
            if (n < 3) printf "only %d rows in common", n
        }' heapfmt.tsv devtools.tsv)
    [ -z "$rows" ] && pass || fail "rows of DevTools' Comparison: $rows"
    leaky=$(awk -F '\t' '$1 == "Leaky" { print $2 }' devtools.tsv)
    [ "$leaky" = 500 ] && pass || fail "DevTools: $leaky new Leaky"
fi

# The path from the root to a Leaky: ... the global `keep`, an element.
id=$(node "$js/snapshot.js" first before.heapsnapshot Leaky)
run "$BIN/heapfmt-graph" path -f tsv before.dump "$id"
expect_success "graph path to a Leaky"
first=$(printf '%s\n' "$out" | sed -n 2p | cut -f 6,7)
[ "$first" = "$(printf '(root)\tv8:root')" ] && pass || fail "from the root: $first"
via=$(printf '%s\n' "$out" | tail -n 2 | cut -f 4,6 | tr '\t\n' ' :')
case $via in
"keep Array:[0] Leaky:") pass ;;
*) fail "the path ends keep -> Array -> [0] -> Leaky: $via" ;;
esac

# Through a pipe, and with --from=v8: the same heap.
run bash -c "'$imp' < before.heapsnapshot > pipe.dump"
expect_success "import from a pipe"
run "$imp" --from=v8 -o from.dump before.heapsnapshot
expect_success "--from=v8"
for d in pipe from; do
    run "$histo" -f tsv -s name $d.dump
    [ "$out" = "$(cat before.tsv)" ] && pass || fail "$d import differs"
done

# Cut in the edges: the nodes are all written, exit 3 with a warning.
size=$(wc -c < before.heapsnapshot)
expect_cut_import before.heapsnapshot $((size * 2 / 5)) "a cut snapshot" \
    "truncated snapshot"
total=$(printf '%s\n' "$cut_rows" | awk -F '\t' 'NR > 1 { n += $1 } END { print n }')
want=$(awk -F '\t' 'NR > 1 { n += $1 } END { print n }' before.tsv)
[ "$total" = "$want" ] && pass || fail "every node of a snapshot cut in its edges: $total of $want"

# A damaged byte is named by its offset.
sed '3s/^,/,x/' before.heapsnapshot > bad.heapsnapshot
run "$imp" -o bad.dump bad.heapsnapshot
expect_rc 3 "a damaged snapshot"
expect_err_has "bad.heapsnapshot: byte " "the damage's offset"
expect_err_has "expected a number" "what is wrong"

# --from forces a reader.
run "$imp" --from=ruby -o r.dump before.heapsnapshot
expect_failure 1 "--from=ruby on a snapshot"
expect_err_has "V8 heap snapshot" "--from=ruby names the snapshot"
printf '{"address":"0x1", "type":"OBJECT"}\n' > one.json
run "$imp" --from=v8 -o v.dump one.json
expect_failure 1 "--from=v8 on dump_all lines"
expect_usage_error "$imp" "--from=java" --from=java x

finish
