#!/usr/bin/env bash
# graph_weak.sh -- weak references hold nothing in heapfmt-graph unless
# --weak, on the dumps of real runtimes (HPROF's referents are checked by
# import_hprof.sh against a real JVM):
#   a V8 heap (tests/v8/weak.js, skipped without node): an Item held by a
#   chain of four references and by a WeakRef: path goes the long, strong
#   way; with --weak, through the WeakRef's target; dominators count the
#   Item in its holder's retained size, with --weak no more; heapfmt-report
#   shows the retained sizes dominators prints, with --weak or without;
#   a Ruby heap (tests/ruby/graph_weak.rb, skipped without ruby-dev): an
#   ObjectSpace::WeakMap's value that nothing else holds: HeapFmt.dump
#   writes the map's entries as weak references, so referrers names the
#   map, path finds no strong way, path --weak goes through the map.
. "$(dirname "$0")/lib.bash"
set +e

graph=$BIN/heapfmt-graph
root=$PWD
cd "$TMPDIR" || exit 1

expect_usage_error "$graph" "--weak and --no-weak" path --weak --no-weak x 1

# ---- V8 ----
if command -v node >/dev/null 2>&1; then
    run node "$root/tests/v8/weak.js" weak.heapsnapshot
    expect_success "node writes a snapshot"
    run "$BIN/heapfmt-import" -o v8.dump weak.heapsnapshot
    expect_success "import the snapshot"
    run "$graph" referrers -f tsv --class=Item v8.dump
    expect_success "referrers of the Item"
    expect_out_has "$(printf 'WeakRef\tobject\t32\t\ttarget (weak)')" \
        "the WeakRef's target is weak"
    item=$(printf '%s\n' "$out" | awk -F '\t' 'NR == 2 { print $1 }')
    run "$graph" path -f tsv v8.dump "$item"
    expect_success "path to the Item"
    got=$(printf '%s\n' "$out" | awk -F '\t' 'NR > 4 { printf "%s.", $4 }')
    [ "$got" = "deep.a.b.c.x." ] && pass ||
        fail "the strong way, deep.a.b.c.x, not the shorter weak one: $got"
    run "$graph" path --weak -f tsv v8.dump "$item"
    expect_success "path --weak to the Item"
    got=$(printf '%s\n' "$out" | awk -F '\t' 'NR > 4 { printf "%s.", $4 }')
    [ "$got" = "weakref.target (weak)." ] && pass ||
        fail "--weak: the shorter way through the WeakRef: $got"
    retained() { # DUMP_ARGS... : "Holder Item" retained sizes
        "$graph" dominators --by=class -n 100000 -f tsv "$@" v8.dump |
            awk -F '\t' '$1 == "Holder" { h = $4 } $1 == "Item" { i = $4 }
                         END { print h + 0, i + 0 }'
    }
    read -r holder item_size <<<"$(retained)"
    [ "$holder" -gt "$item_size" ] && [ "$item_size" -gt 0 ] && pass ||
        fail "the Holder retains the Item: $holder, $item_size"
    read -r holder item_size <<<"$(retained --weak)"
    [ "$holder" -lt "$item_size" ] && pass ||
        fail "--weak: the WeakRef shares the Item, the Holder does not retain it: $holder, $item_size"
    for w in "" --weak; do
        run "$BIN/heapfmt-report" $w -o "report$w.html" v8.dump
        expect_success "heapfmt-report $w"
        "$graph" dominators --by=class -n 50 -f json $w v8.dump > "dom$w.json"
        run python3 "$root/tests/report/check_report.py" "report$w.html" \
            dominators "dom$w.json"
        expect_success "the page's retained sizes are dominators $w's"
    done
    cmp -s dom.json dom--weak.json && fail "--weak changes the retained sizes" ||
        pass
else
    echo "SKIP: node not installed (the V8 part)"
fi

# ---- Ruby ----
cd "$root" || exit 1
if ruby -rrbconfig -e \
    'exit File.exist?(File.join(RbConfig::CONFIG["rubyhdrdir"], "ruby.h"))' \
    >/dev/null 2>&1 && [ -e "$BIN/../ruby/heapfmt.so" ]; then
    # a sanitizer build's extension needs its runtime first (as
    # tests/ruby/common.sh does, for ruby alone)
    ruby_env=()
    if nm "$BIN/../lib/libheapfmt.a" 2>/dev/null | grep -q ' __asan_'; then
        ruby_env=(env "LD_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so)"
                  "ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:use_sigaltstack=0}")
    fi
    run "${ruby_env[@]}" ruby -I "$BIN/../ruby" tests/ruby/graph_weak.rb "$TMPDIR"
    expect_success "a Ruby heap with a WeakMap"
    map=$(printf '0x%016x' "$(sed -n 1p "$TMPDIR/weak.ids")")
    key=$(printf '0x%016x' "$(sed -n 2p "$TMPDIR/weak.ids")")
    value=$(printf '0x%016x' "$(sed -n 3p "$TMPDIR/weak.ids")")
    dump=$TMPDIR/weak.dump
    run "$graph" referrers -f tsv "$dump" "$value"
    expect_success "referrers of the map's value"
    [ "$(printf '%s\n' "$out" | awk -F '\t' 'NR > 1 { print $2 "\t" $3 "\t" $7 }')" = \
        "$(printf '%s\tObjectSpace::WeakMap\t(weak)' "$map")" ] && pass ||
        fail "only the WeakMap references the value, weakly"
    run "$graph" referrers -f tsv "$dump" "$key"
    expect_out_has "$(printf '%s\tObjectSpace::WeakMap\tT_DATA' "$map")" \
        "the map references its key too"
    run "$graph" referrers --no-weak "$dump" "$value"
    expect_err_has "nothing in the dump references" "--no-weak hides it"
    run "$graph" path "$dump" "$value"
    expect_rc 0 "path to the map's value"
    expect_err_has "not reachable from any root by strong references" \
        "a WeakMap holds nothing"
    run "$graph" path --weak -f tsv "$dump" "$value"
    expect_success "path --weak"
    expect_out_has "$(printf 'MAP\t%s\tObjectSpace::WeakMap' "$map")" \
        "--weak: through the constant MAP"
    last=$(printf '%s\n' "$out" | tail -n 1 | cut -f 4,6)
    [ "$last" = "$(printf '(weak)\tWeakValue')" ] && pass ||
        fail "--weak: then the map's weak reference: $last"
else
    echo "SKIP: ruby-dev or the extension is missing (the Ruby part)"
fi

finish
