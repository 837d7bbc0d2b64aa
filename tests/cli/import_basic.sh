#!/usr/bin/env bash
# import_basic.sh -- command-line contract of heapfmt-import: conversions
# that work (exit 0, nothing on stderr), every input form, the output read
# back by the other tools.
. "$(dirname "$0")/lib.bash"

here=$(cd "$(dirname "$0")" && pwd)
imp=$BIN/heapfmt-import
info=$BIN/heapfmt-info
histo=$BIN/histo
fx=${FIXTURES:-$here/../fixtures}/import
cd "$TMPDIR" || exit 1

# --help, --version
run "$imp" --help
expect_success "--help"
expect_out_has "Usage: heapfmt-import" "--help"
expect_out_has "--strict" "--help"
expect_out_has "Exit status" "--help"
run "$imp" --version
expect_success "--version"
expect_out_has "heapfmt-import " "--version"

# Every fixture of a known Ruby version converts cleanly.
for v in ruby21 ruby27 ruby31 ruby33; do
    run "$imp" -o "$v.dump" "$fx/$v.json"
    expect_success "import $v"
    expect_out_empty "import $v -o"
    if [ -x "$info" ]; then
        run "$info" --verify "$v.dump"
        expect_success "verify $v"
    fi
done

# Object counts: every line but ROOT, SHAPE and NONE is an object.
if [ -x "$info" ]; then
    run "$info" --plain ruby31.dump
    [ "$(row objects)" = 36 ] && pass || fail "ruby31: objects row is '$(row objects)'"
    [ "$(row roots)" = 4 ] && pass || fail "ruby31: roots row is '$(row roots)'"
    [ "$(row meta.vm.name)" = ruby ] && pass || fail "ruby31: vm.name is '$(row meta.vm.name)'"
    run "$info" --plain ruby33.dump
    [ "$(row objects)" = 23 ] && pass || fail "ruby33: objects row is '$(row objects)'"
fi

# Classes resolved by name, counts and bytes per class (worked out by hand
# from tests/fixtures/import/ruby31.json; its include class has no class,
# as HeapFmt.dump writes one, so (no class) is two T_IMEMO and it).
if [ -x "$histo" ]; then
    run "$histo" -f tsv -s name ruby31.dump
    expect_success "histo ruby31"
    for r in "2	2480	Array" "3	221	String" "4	3712	Class" \
        "3	128	(no class)" "1	40	Process::Tms" "1	9000	Module"; do
        case $out in
        *"$r"*) pass ;;
        *) fail "histo ruby31: no row '$r'" ;;
        esac
    done
    run "$histo" -f tsv -s name ruby33.dump
    expect_out_has "2	1536	Shop::Cart<Legacy>" "histo ruby33: escaped class name"
fi

# Standard output and standard input; gzip by file or by pipe. A pipe is
# read once, a file twice: the records differ in order, not in content.
expect_run_file ruby27.dump out.dump "import to stdout" bash -c "'$imp' '$fx/ruby27.json' > out.dump"
expect_run_file ruby27.dump out2.dump "import -o -" bash -c "'$imp' -o - '$fx/ruby27.json' > out2.dump"
gzip -c "$fx/ruby27.json" > ruby27.json.gz
run "$imp" -o gz.dump ruby27.json.gz
expect_success "import gzip file"
run bash -c "'$imp' -o pipe.dump < '$fx/ruby27.json'"
expect_success "import from stdin (no file)"
run bash -c "gzip -c '$fx/ruby27.json' | '$imp' -o pipegz.dump -"
expect_success "import gzip from a pipe"
if [ -x "$histo" ]; then
    run "$histo" -f tsv -s name ruby27.dump
    ref=$out
    for d in gz.dump pipe.dump pipegz.dump; do
        run "$histo" -f tsv -s name "$d"
        [ "$out" = "$ref" ] && pass || fail "$d: histogram differs from the plain import"
    done
fi

# Compression levels and --one-pass give the same objects.
run "$imp" -l 0 -o l0.dump "$fx/ruby31.json"
expect_success "level 0"
run "$imp" -l 9 --one-pass -o l9.dump "$fx/ruby31.json"
expect_success "level 9, one pass"
if [ -x "$histo" ]; then
    run "$histo" -f tsv -s name ruby31.dump
    ref=$out
    for d in l0.dump l9.dump; do
        run "$histo" -f tsv -s name "$d"
        [ "$out" = "$ref" ] && pass || fail "$d: histogram differs"
    done
fi

# Codecs: zstd (the default), deflate and stored dumps of the same input
# hold the same heap, and heapfmt-info names the codec of each.
for c in default zstd deflate stored; do
    opt=--codec=$c
    [ "$c" = default ] && opt=--one-pass
    run "$imp" "$opt" -o "c-$c.dump" "$fx/ruby33.json"
    expect_success "--codec=$c"
    run "$info" "c-$c.dump"
    expect_success "info on the --codec=$c dump"
    want=$c
    [ "$c" = default ] && want=zstd
    case "$(row codecs)" in
    *"$want"*) pass ;;
    *) fail "--codec=$c: codecs row is '$(row codecs)'" ;;
    esac
done
run "$info" c-stored.dump
[ "$(row codecs)" = stored ] && pass || fail "stored: codecs row is '$(row codecs)'"
# Levels of each codec, and the worker thread.
run "$imp" --codec deflate -l 9 --threads -o c-d9.dump "$fx/ruby33.json"
expect_success "deflate level 9, --threads"
run "$imp" -l 19 --threads -o c-z19.dump "$fx/ruby33.json"
expect_success "zstd level 19, --threads"
run "$imp" --codec=zstd -l 0 -o c-z0.dump "$fx/ruby33.json"
expect_success "zstd level 0"
run "$info" c-z0.dump
[ "$(row codecs)" = stored ] && pass || fail "level 0: codecs row is '$(row codecs)'"
if [ -x "$histo" ]; then
    run "$histo" -f tsv -s name c-default.dump
    ref=$out
    for d in c-zstd c-deflate c-stored c-d9 c-z19 c-z0; do
        run "$histo" -f tsv -s name "$d.dump"
        [ -n "$out" ] && [ "$out" = "$ref" ] && pass ||
            fail "$d: histogram differs from the default codec's"
    done
fi
run "$imp" -v --codec=deflate -l 3 -o c-v.dump "$fx/ruby33.json"
expect_rc 0 "-v with a codec"
expect_err_has "(deflate level 3)" "-v names the codec"

# --verbose: counts and speed on stderr, still exit 0.
run "$imp" -v -o v.dump "$fx/ruby33.json"
expect_rc 0 "--verbose"
expect_err_has "objects 23" "--verbose"
expect_err_has "shapes 3" "--verbose"
expect_err_has "MB/s" "--verbose"

# A generated heap of many lines, in one go.
if command -v python3 >/dev/null 2>&1; then
    python3 "$here/../../bench/gen_dump_all.py" --size 2 --seed 5 -o big.json
    lines=$(wc -l < big.json)
    run "$imp" -o big.dump big.json
    expect_success "generated heap"
    if [ -x "$info" ]; then
        run "$info" --verify big.dump
        expect_success "verify generated heap"
        run "$info" --plain big.dump
        # the generator writes 6 ROOT lines, every other line is an object
        [ "$(row objects)" = $((lines - 6)) ] && pass ||
            fail "generated heap: objects row '$(row objects)', lines $lines"
    fi
fi

finish
