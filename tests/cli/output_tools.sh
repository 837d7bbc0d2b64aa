#!/usr/bin/env bash
# output_tools.sh -- every tool in $BIN, and every option of theirs that
# names a file to write, follows the output rules of issue 31 (point 7):
#   - a tool either writes files through the options listed in WRITES
#     below, or writes none (READERS); a new tool, or a new FILE or DIR
#     option in a tool's --help, fails here until it is listed;
#   - each writer, in each of its formats: an output that is its input (by
#     name, a symbolic link, a hard link) is refused with the input
#     untouched; a successful run replaces the output by a rename (a hard
#     link to the old file keeps the old bytes: nothing was written into
#     it) and leaves no temporary; a run whose writes fail (ulimit -f)
#     exits 1, leaves the old file as it was and no temporary.
# heapfmt-malloc's dumps (--dir) are held to it in malloc.sh ("killed");
# heapfmt-ruby's (the target process writes a hidden temporary this tool
# makes, renamed once whole) in ruby_attach.sh, which needs a live Ruby;
# output_files.sh adds signals, standard input and two writers at once.
. "$(dirname "$0")/lib.bash"

in_tmpdir

# --- which tools write, through which options ---------------------------------

declare -A WRITES=(
    [heapfmt-core]="--output --free"
    [heapfmt-export]="--output"
    [heapfmt-gen]="--output"
    [heapfmt-import]="--output"
    [heapfmt-report]="--output"
    [heapfmt-malloc]="--dir"
    [heapfmt-replay]="--output"
    [heapfmt-ruby]="--output"
)
declare -A READS=( # FILE or DIR options that only read
    [heapfmt-core]="--sysroot --search --debug-dir"
    [heapfmt-ruby]="--ext"
    [heapfmt-graph]="--temp-dir" # scratch files, with no name
)
READERS=" heapfmt-diff heapfmt-graph heapfmt-info histo "

ntools=0
for b in "$BIN"/*; do
    [ -x "$b" ] && [ -f "$b" ] || continue
    t=${b##*/}
    ntools=$((ntools + 1))
    if [ -z "${WRITES[$t]+x}" ] && [[ $READERS != *" $t "* ]]; then
        fail "$t: not listed: add it to WRITES (and test it below) or READERS"
        continue
    fi
    # the long options whose argument is a FILE, DIR, PATH or PAGE
    for o in $("$b" --help 2>/dev/null |
        grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+[ =](FILE|DIR|PATH|PAGE)' |
        grep -oE -- '--[a-z-]+'); do
        case " ${WRITES[$t]:-} ${READS[$t]:-} " in
        *" $o "*) pass ;;
        *) fail "$t $o: a file option not listed in WRITES or READS" ;;
        esac
    done
done
[ "$ntools" -ge 10 ] && pass || fail "only $ntools tools in $BIN"

# --- inputs ----------------------------------------------------------------------

gen_dump d.hfd -n 30000 --level 0
awk 'BEGIN {
    print "{\"type\":\"ROOT\", \"root\":\"vm\", \"references\":[\"0x10000\"]}"
    for (i = 0; i < 20000; i++) {
        a = 65536 + 40 * i
        printf "{\"address\":\"0x%x\", \"type\":\"STRING\", \"class\":\"0x8\", \"bytesize\":%d, \"value\":\"s%d\", \"references\":[\"0x%x\"], \"memsize\":40}\n", a, i % 50, i, a - 40 * (i % 7)
    }
}' >d.json

# A core of a program with 40,000 blocks, half of them freed, when cc and
# gcore are here.
core=
if command -v cc >/dev/null && command -v gcore >/dev/null; then
    cat >heap.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(void)
{
    static void *p[40000];
    for (int i = 0; i < 40000; i++)
        p[i] = malloc(16 + (i % 64) * 8);
    for (int i = 0; i < 40000; i += 2)
        free(p[i]);
    puts("ready");
    fflush(stdout);
    pause();
    return 0;
}
EOF
    if cc -O1 -g -o heap heap.c 2>cc.err; then
        ./heap >heap.out &
        hpid=$!
        for _ in $(seq 200); do
            [ -s heap.out ] && break
            sleep 0.05
        done
        gcore -o heap.core "$hpid" >/dev/null 2>&1
        kill "$hpid"
        wait "$hpid" 2>/dev/null
        [ -s "heap.core.$hpid" ] && core=heap.core.$hpid
    fi
fi
[ -n "$core" ] || echo "SKIP: heapfmt-core's outputs (no cc, gcore, or no core)"

# --- the rules, for one way of writing --------------------------------------------

# Each writer: "NAME|INPUT|ARGS" where ARGS holds OUT for the output's
# name and IN for the input's (INPUT empty: the tool reads no file).
writers=(
    "export ndjson|d.hfd|$BIN/heapfmt-export -r all -o OUT IN"
    "export json|d.hfd|$BIN/heapfmt-export -f json -o OUT IN"
    "export mongo|d.hfd|$BIN/heapfmt-export -f mongo -r all -o OUT IN"
    "export rows|d.hfd|$BIN/heapfmt-export -f rows -r objects -o OUT IN"
    "export pprof|d.hfd|$BIN/heapfmt-export -f pprof -o OUT IN"
    "report|d.hfd|$BIN/heapfmt-report -o OUT IN"
    "import ruby|d.json|$BIN/heapfmt-import --level 0 -o OUT IN"
    "gen||$BIN/heapfmt-gen -n 30000 --level 0 -o OUT"
)
if [ -n "$FIXTURES" ] && [ -d "$FIXTURES/import" ]; then
    cp "$FIXTURES/import/v8_small.heapsnapshot" v8.heapsnapshot
    cp "$FIXTURES/import/android.hprof" a.hprof
    writers+=(
        "import v8|v8.heapsnapshot|$BIN/heapfmt-import --from=v8 --level 0 -o OUT IN"
        "import hprof|a.hprof|$BIN/heapfmt-import --from=hprof --dump=1 --heap=app --level 0 -o OUT IN"
    )
fi
if [ -x "$BIN/../tests/mktrace" ]; then
    "$BIN/../tests/mktrace" many trace.hfd >/dev/null
    writers+=(
        "replay -o|trace.hfd|$BIN/heapfmt-replay -a glibc -o OUT IN"
    )
else
    echo "SKIP: heapfmt-replay's page (no tests/mktrace in the build)"
fi
if [ -n "$core" ]; then
    writers+=(
        "core -o|$core|$BIN/heapfmt-core --codec=stored -o OUT IN"
        "core --free|$core|$BIN/heapfmt-core --free OUT -o /dev/null IN"
    )
fi

temporaries() {
    ls -A | grep '^\..*\.tmp$'
}

# The command line with OUT and IN put in.
cmdline() { # args out in
    local a w=()
    for a in $1; do
        case $a in
        OUT) w+=("$2") ;;
        IN) w+=("$3") ;;
        *) w+=("$a") ;;
        esac
    done
    printf '%s\n' "${w[@]}"
}

limited() { # KiB CMD...: writes past KiB fail with EFBIG
    local k=$1
    shift
    ( trap '' XFSZ; ulimit -f "$k"; exec "$@" )
}

nwriters=0
for wr in "${writers[@]}"; do
    IFS='|' read -r what input args <<<"$wr"
    nwriters=$((nwriters + 1))

    # never its input
    if [ -n "$input" ]; then
        cp "$input" in.before
        rm -f in.sym in.hard
        ln -s "$input" in.sym
        ln "$input" in.hard
        for o in "$input" in.sym in.hard; do
            mapfile -t cmd < <(cmdline "$args" "$o" "$input")
            run "${cmd[@]}"
            expect_failure 1 "$what: -o $o (the input)"
            expect_err_has "not overwriting it" "$what: -o $o, said why"
            cmp -s "$input" in.before && pass ||
                fail "$what: -o $o: the input changed"
        done
        rm -f in.sym in.hard in.before
    fi

    # a success replaces the output by a rename, whole
    echo "the output of before" >out
    rm -f out.old
    ln out out.old
    mapfile -t cmd < <(cmdline "$args" out "$input")
    run "${cmd[@]}"
    { [ "$rc" = 0 ] || [ "$rc" = 3 ]; } && pass ||
        fail "$what: exit $rc"
    [ "$(cat out.old)" = "the output of before" ] && pass ||
        fail "$what: the old file was written into, not replaced"
    ! cmp -s out out.old && [ -s out ] && pass ||
        fail "$what: out was not replaced"
    [ -z "$(temporaries)" ] && pass || fail "$what: a temporary stayed: $(temporaries)"
    size=$(stat -c %s out)
    cp out out.whole
    rm -f out.old

    # a failed write leaves the old file, and no temporary
    if [ "$size" -lt 4096 ]; then
        echo "SKIP: $what: its output ($size bytes) is too small to cut"
        continue
    fi
    echo "the output of before" >out
    run limited $((size / 2048)) "${cmd[@]}"
    expect_failure 1 "$what, write error"
    [ "$(cat out)" = "the output of before" ] && pass ||
        fail "$what, write error: out was replaced or damaged"
    [ -z "$(temporaries)" ] && pass ||
        fail "$what, write error: a temporary stayed: $(temporaries)"
    # and no file at all where there was none
    rm -f out
    run limited $((size / 2048)) "${cmd[@]}"
    expect_failure 1 "$what, write error to a new file"
    [ ! -e out ] && pass || fail "$what, write error: a new out was left"
done
[ "$nwriters" -ge 8 ] && pass || fail "only $nwriters writers tried"

# heapfmt-core: --free and -o naming one file would lose the list
if [ -n "$core" ]; then
    expect_usage_error "$BIN/heapfmt-core" "core --free F -o F" --free f -o f "$core"
fi

finish
