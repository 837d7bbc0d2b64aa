#!/usr/bin/env bash
# output_files.sh -- every tool that writes a file (heapfmt-export,
# -report, -import, -gen; tools/common/cli_file.h) never destroys its
# input and never leaves a half-written output under the final name
# (issue 31):
#   - an output that is an input (by name, through a symbolic or a hard
#     link, or as the file standard input reads) is refused, the input
#     untouched;
#   - a run that fails (a write error) or is interrupted (SIGTERM,
#     SIGINT) leaves the file that was there, and no temporary;
#   - while it runs, its bytes go to a hidden temporary beside the output;
#   - two runs writing one output at the same time do not mix: the file is
#     one of their outputs, whole.
. "$(dirname "$0")/lib.bash"

in_tmpdir
imp=$BIN/heapfmt-import
exp=$BIN/heapfmt-export
rep=$BIN/heapfmt-report
gen=$BIN/heapfmt-gen
info=$BIN/heapfmt-info

gen_dump d.hfd -n 20000
cp d.hfd d.orig
ln -s d.hfd link.hfd
ln d.hfd hard.hfd

# A dump_all JSON of n objects (ids ascending, references to the previous
# ones), for heapfmt-import.
make_json() { # n
    awk -v n="$1" 'BEGIN {
        print "{\"type\":\"ROOT\", \"root\":\"vm\", \"references\":[\"0x10000\"]}"
        for (i = 0; i < n; i++) {
            a = 65536 + 40 * i
            printf "{\"address\":\"0x%x\", \"type\":\"STRING\", \"class\":\"0x8\", \"bytesize\":%d, \"value\":\"s%d\", \"references\":[\"0x%x\"], \"memsize\":40}\n", a, i % 50, i, a - 40 * (i % 7)
        }
    }'
}
make_json 3000 >small.json
cp small.json small.orig

# The hidden temporaries of outputs (.NAME.XXXXXX.tmp) in this directory.
temporaries() {
    ls -A | grep '^\..*\.tmp$'
}

# --- never the input ---------------------------------------------------------

refuse() { # what input-to-keep CMD...
    local what=$1 keep=$2
    shift 2
    cp "$keep" keep.before
    run "$@"
    expect_failure 1 "$what"
    expect_err_has "not overwriting it" "$what"
    cmp -s "$keep" keep.before && pass || fail "$what: the input changed"
}

for o in d.hfd link.hfd hard.hfd "$TMPDIR/./d.hfd"; do
    refuse "export -o $o" d.hfd "$exp" -r all -o "$o" d.hfd
    refuse "report -o $o" d.hfd "$rep" -o "$o" d.orig d.hfd
done
refuse "export -o d.hfd - <d.hfd" d.hfd sh -c "exec '$exp' -o d.hfd - <d.hfd"
refuse "export -o link.hfd hard.hfd" d.hfd "$exp" -o link.hfd hard.hfd
ln -s small.json small.link
refuse "import -o small.json" small.json "$imp" -o small.json small.json
refuse "import -o small.link" small.json "$imp" -o small.link small.json
refuse "import -o small.json - <small.json" small.json \
    sh -c "exec '$imp' -o small.json - <small.json"
cmp -s d.hfd d.orig && cmp -s small.json small.orig && pass ||
    fail "an input changed"
# another file of the same content is not the input
cp d.hfd copy.hfd
run "$exp" -o copy.hfd d.hfd
expect_success "export over a copy of the input"

# --- a failed run leaves what was there ---------------------------------------

# Writes past 64 KiB fail with EFBIG (SIGXFSZ ignored): each tool fails
# in the middle of its output.
limited() {
    ( trap '' XFSZ; ulimit -f 64; exec "$@" )
}
fails_cleanly() { # what out CMD...
    local what=$1 o=$2
    shift 2
    echo "the output of before" >"$o"
    run limited "$@"
    expect_failure 1 "$what"
    [ "$(cat "$o")" = "the output of before" ] && pass ||
        fail "$what: $o was replaced or damaged"
    [ -z "$(temporaries)" ] && pass || fail "$what: a temporary stayed: $(temporaries)"
}
gen_dump big.hfd -n 200000 --level 0
make_json 200000 >big.json
fails_cleanly "export, write error" out.json "$exp" -r all -o out.json big.hfd
fails_cleanly "gen, write error" out.hfd "$gen" -n 200000 --level 0 -o out.hfd
fails_cleanly "import, write error" out.hfd "$imp" --level 0 -o out.hfd big.json
fails_cleanly "report, write error" out.html "$rep" -o out.html big.hfd big.hfd
# and a new output is not created at all
rm -f new.json
run limited "$exp" -r all -o new.json big.hfd
expect_failure 1 "export to a new file, write error"
[ ! -e new.json ] && pass || fail "a failed export left new.json"

# --- an interrupted run leaves what was there -------------------------------

# The input comes from a FIFO that the test holds open: the tool has
# opened its output and waits. Meanwhile the output's name keeps what was
# there and the bytes go to a hidden temporary; a signal removes it.
interrupted() { # what sig out input-file CMD... (reading fifo)
    local what=$1 sig=$2 o=$3 input=$4
    shift 4
    rm -f fifo
    mkfifo fifo
    echo "the output of before" >"$o"
    # job control: else a background job ignores SIGINT, and so the tool
    set -m
    "$@" 2>err.int &
    local pid=$!
    set +m
    exec {w}>fifo
    head -c 40000 "$input" >&"$w"
    local tmp=
    for _ in $(seq 200); do
        tmp=$(ls -A | grep "^\.$o\..*\.tmp\$" | head -1)
        [ -n "$tmp" ] && break
        sleep 0.02
    done
    [ -n "$tmp" ] && pass || fail "$what: no temporary beside $o while it runs"
    [ "$(cat "$o")" = "the output of before" ] && pass ||
        fail "$what: $o changed while the tool runs"
    kill -s "$sig" "$pid"
    timeout 20 tail --pid="$pid" -f /dev/null || kill -9 "$pid"
    wait "$pid"
    local st=$?
    exec {w}>&-
    [ "$st" -gt 128 ] && pass || fail "$what: exit $st, not the signal's"
    [ "$(cat "$o")" = "the output of before" ] && pass ||
        fail "$what: $o was replaced or damaged"
    [ -z "$(temporaries)" ] && pass || fail "$what: the temporary stayed: $(temporaries)"
}
interrupted "import, SIGTERM" TERM out.hfd big.json "$imp" -o out.hfd fifo
interrupted "import, SIGINT" INT out.hfd big.json "$imp" -o out.hfd fifo
interrupted "export, SIGTERM" TERM out.json big.hfd "$exp" -r all -o out.json fifo
interrupted "export, SIGHUP" HUP out.json big.hfd "$exp" -r all -o out.json fifo

# --- two runs writing one output ------------------------------------------------

# Two imports from FIFOs fed by turns, both writing all.hfd: each must
# have written blocks before the other ends. The file is then the output
# of the one that ended last, whole: it verifies and equals that import's
# output written alone.
make_json 150000 >a.json
sed 's/"s\([0-9]*\)"/"t\1"/' a.json >b.json
run "$imp" -o a.hfd a.json
expect_success "import a alone"
run "$imp" -o b.hfd b.json
expect_success "import b alone"
rm -f fa fb all.hfd
mkfifo fa fb
"$imp" -o all.hfd fa 2>err.a &
pa=$!
"$imp" -o all.hfd fb 2>err.b &
pb=$!
exec {wa}>fa {wb}>fb
half=$(($(stat -c %s a.json) / 2))
head -c "$half" a.json >&"$wa"
head -c "$half" b.json >&"$wb"
sleep 0.5
tail -c +"$((half + 1))" a.json >&"$wa"
exec {wa}>&-
wait "$pa"
ra=$?
tail -c +"$((half + 1))" b.json >&"$wb"
exec {wb}>&-
wait "$pb"
rb=$?
[ "$ra" = 0 ] && [ "$rb" = 0 ] && pass || fail "two imports: exit $ra and $rb"
# (their META differ: the time, the source's name; their objects do not)
"$exp" -r objects,roots,classes all.hfd >all.objects 2>&1
"$exp" -r objects,roots,classes b.hfd >b.objects 2>&1
cmp -s all.objects b.objects && pass ||
    fail "two imports: all.hfd does not hold the last import's objects"
run "$info" --verify all.hfd
expect_success "two imports: the file verifies"
run "$BIN/histo" all.hfd
expect_success "two imports: histo reads it whole"

finish
