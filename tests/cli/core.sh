#!/usr/bin/env bash
# core.sh -- heapfmt-core on heaps whose answer is known: tests/core/truth.c
# (four threads, every kind of free list, held and leaked blocks recorded
# by the program), read live (-p) and from its gcore, with and without
# libc's debug file; and on bad input: not a core, another architecture,
# a truncated core, a corrupt chunk header.
. "$(dirname "$0")/lib.bash"

root=$(cd "$(dirname "$0")/../.." && pwd)
core() { "$BIN/heapfmt-core" "$@"; }
cd "$TMPDIR"

# --- the command line ---
expect_usage_error "$BIN/heapfmt-core" "no operand"
expect_usage_error "$BIN/heapfmt-core" "two operands" a b
expect_usage_error "$BIN/heapfmt-core" "-p with a core" -p 1 a
expect_usage_error "$BIN/heapfmt-core" "a bad pid" -p x
expect_usage_error "$BIN/heapfmt-core" "stdin" -
expect_usage_error "$BIN/heapfmt-core" "--free - to stdout too" --free - -p 1
run core "$TMPDIR/none"
expect_failure 1 "a missing core"
printf 'hello\n' >text
run core text -o out.hfd
expect_failure 1 "a text file"
expect_err_has "not an ELF file" "a text file is named so"
[ ! -e out.hfd ] && pass || fail "a failed run leaves no output"
run core -p 999999999 -o out.hfd
expect_failure 1 "no such process"
expect_err_has "no such process" "no such process, said so"

for t in cc gdb gcore python3; do
    if ! command -v "$t" >/dev/null; then
        echo "SKIP: the rest needs $t (Debian: gcc, gdb, python3)"
        finish
    fi
done
# --- -p on a running process: it runs on after; refused clearly without
# the right to trace it (another user, another tracer) ---
python3 -c 'import threading, time
def spin():
    while True:
        time.sleep(0.001)
for _ in range(3):
    threading.Thread(target=spin, daemon=True).start()
spin()' &
pid=$!
for _ in $(seq 200); do
    [ "$(ls "/proc/$pid/task" 2>/dev/null | wc -l)" -ge 4 ] && break
    sleep 0.05
done
run core -p "$pid" -o running.hfd
expect_rc 0 "-p on a running process with 4 threads"
expect_err_has "(4 threads)" "all its threads stopped"
sleep 0.2
if grep -q '^State:.*[RS]' "/proc/$pid/status"; then pass; else fail "the process does not run after -p: $(grep State "/proc/$pid/status")"; fi
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
    run setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN/heapfmt-core" -p "$pid" -o "$TMPDIR/nobody.hfd"
    expect_failure 1 "-p on another user's process"
    expect_err_has "permission denied" "says permission denied"
fi
if command -v strace >/dev/null; then
    strace -o /dev/null -p "$pid" 2>/dev/null &
    tracer=$!
    for _ in $(seq 100); do
        grep -q "^TracerPid:[[:space:]]*$tracer" "/proc/$pid/status" && break
        sleep 0.05
    done
    run core -p "$pid" -o traced.hfd
    expect_failure 1 "-p on a process another tracer holds"
    expect_err_has "traces it already" "names the other tracer"
    kill "$tracer"
    wait "$tracer" 2>/dev/null
fi
{ kill -9 "$pid"; wait "$pid"; } 2>/dev/null

if ! cc -O1 -g -pthread -o truth "$root/tests/core/truth.c" 2>cc.err; then
    echo "SKIP: tests/core/truth.c does not build: $(cat cc.err)"
    finish
fi

# Waits (up to STEPS x 50 ms) until process PID has stopped itself.
wait_stopped() { # PID [STEPS]
    local _
    for _ in $(seq "${2:-200}"); do
        grep -q '^State:.*T' "/proc/$1/status" 2>/dev/null && return 0
        sleep 0.05
    done
    fail "process $1 did not stop"
    return 1
}

# Runs truth until it stops itself; sets $pid.
start_truth() { # RECORDS MALLOC_INFO
    ./truth "$1" "$2" &
    pid=$!
    wait_stopped "$pid"
}

# Runs CMD until it stops itself (waiting up to STEPS x 50 ms), dumps it
# with -p to DUMP ($rc, $out, $err are core's) and kills it.
dump_stopped() { # DUMP STEPS CMD...
    local dump=$1 steps=$2 p
    shift 2
    "$@" &
    p=$!
    wait_stopped "$p" "$steps"
    run core -p "$p" -o "$dump"
    kill -9 "$p"
    wait "$p" 2>/dev/null
}

objects() { # DUMP: its objects, one line each, to compare dumps
    "$BIN/heapfmt-export" -f ndjson "$1"
}

start_truth rec.txt mi.xml || finish
run core -p "$pid" -o live.hfd
expect_rc 0 "-p on the stopped program"
expect_err_has "paused" "-p reports the pause"
grep -q '^State:.*T' "/proc/$pid/status" && pass || fail "a stopped process stays stopped after -p"
gcore -o core "$pid" >/dev/null 2>&1
[ -s "core.$pid" ] && pass || fail "gcore wrote no core"
mv "core.$pid" truth.core
kill -9 "$pid"
wait "$pid" 2>/dev/null

run core truth.core -o core.hfd
expect_success "the gcore core"
run core --no-debug-files truth.core -o nodebug.hfd
expect_success "the core without libc's debug file"
run core --no-debug-files --no-symbols truth.core -o nosym.hfd
expect_success "the core without any symbol for malloc"
run core --threads truth.core -o threads.hfd
expect_success "--threads: compressed on a worker"
for d in live core nodebug nosym; do
    "$BIN/heapfmt-export" -f json -r all "$d.hfd" >"$d.json"
    "$BIN/heapfmt-graph" leaked --objects -f tsv "$d.hfd" >"$d.leaked"
    if python3 "$root/tests/core/check_truth.py" rec.txt mi.xml "$d.json" "$d.leaked" >"check-$d.txt"; then
        pass
    else
        fail "$d: $(grep FAIL "check-$d.txt" | head -5)"
    fi
done
"$BIN/heapfmt-info" core.hfd >info.txt
objects core.hfd >core.obj
for d in live nodebug nosym threads; do
    objects "$d.hfd" >"$d.obj"
    cmp -s core.obj "$d.obj" && pass || fail "$d: the objects differ from the core's"
done
# No mapped file found on disk (a core read on another machine): the
# program headers in the core place the modules' data; the same blocks.
run core --sysroot "$TMPDIR/nowhere" truth.core -o nofiles.hfd
expect_rc 0 "no mapped file on disk"
expect_err_has "libc.so.6: not found" "says which files were not found"
objects nofiles.hfd >nofiles.obj
cmp -s core.obj nofiles.obj && pass || fail "without the files, other objects"
mkdir search && cp "$(grep -o '/[^ :]*libc\.so\.6' <<<"$err" | head -1)" search/
run core --sysroot "$TMPDIR/nowhere" --search search truth.core -o search.hfd
expect_rc 0 "--search"
case $err in *"libc.so.6: not found"*) fail "--search: libc not found in search/" ;; *) pass ;; esac
grep -q '"core.arenas.found_by":"symbols' core.json && pass || fail "with libc6-dbg, the arenas are found by symbols"
grep -q '"core.arenas.found_by":"structure' nodebug.json && pass || fail "without it, by structure"

# --- the same program under heapfmt-malloc --mode=exact: the tracker's
# live set (its dump at the stop) and heapfmt-core's used set agree block
# for block, address and usable size, both ways; heapfmt-core also sees
# glibc's tcaches (made inside malloc, never returned by it: no tracker
# can see them) and the tracker's own blocks, those only its threads hold
# (check_truth.py --tracker says how they are told) ---
if [ -x "$BIN/heapfmt-malloc" ]; then
    mkdir hm
    dump_stopped hm-core.hfd 200 \
        "$BIN/heapfmt-malloc" --mode=exact --no-exit-dump -d hm -- ./truth hm.rec hm.mi
    expect_rc 0 "under heapfmt-malloc: -p"
    tracked=$(ls hm/*.hfd 2>/dev/null | head -1)
    [ -n "$tracked" ] && pass || fail "under heapfmt-malloc: no tracker dump"
    "$BIN/heapfmt-export" -f json -r all hm-core.hfd >hm-core.json
    "$BIN/heapfmt-export" -f ndjson "$tracked" >hm-tracked.ndjson
    if python3 "$root/tests/core/check_truth.py" --tracker hm-tracked.ndjson hm-core.json >hm.check; then
        pass
    else
        fail "under heapfmt-malloc: $(grep FAIL hm.check | head -3)"
    fi
fi

# --- every tool reads the dump ---
run "$BIN/histo" core.hfd
expect_success "histo of a core dump"
expect_out_has "malloc 1032" "histo shows the size classes"
held=$(awk '$1 == "held" && $3 > 4000 { print $2; exit }' rec.txt)
run "$BIN/heapfmt-graph" path core.hfd "$held"
expect_success "heapfmt-graph path to a held block"
expect_out_has "static" "the path starts at a static root"
expect_out_has "held_" "labeled with the program's global that holds it"
run core --free free.tsv truth.core -o /dev/null
expect_success "--free"
n=$(tail -n +2 free.tsv | wc -l)
want=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["meta"]["core.free.blocks"])' core.json)
[ "$n" = "$want" ] && pass || fail "--free lists $n free blocks, META says $want"
for k in tcache fast bin unsorted; do
    cut -f3 free.tsv | grep -qx "$k" && pass || fail "--free lists no $k block"
done
run "$BIN/heapfmt-graph" dominators -n 3 core.hfd
expect_rc 0 "heapfmt-graph dominators of a core dump"

# --- C++ classes: three polymorphic classes in known numbers, by vtable
# symbol, and, in the stripped program, by RTTI ---
if command -v c++ >/dev/null && c++ -O1 -g -o cxx3 "$root/tests/core/cxx3.cc" 2>cc.err &&
    strip -o cxx3-stripped cxx3; then
    for prog in cxx3 cxx3-stripped; do
        ./"$prog" 300 200 100 &
        pid=$!
        wait_stopped "$pid"
        run core -p "$pid" -o "$prog-live.hfd"
        expect_rc 0 "$prog: -p"
        gcore -o "$prog.core" "$pid" >/dev/null 2>&1
        kill -9 "$pid"
        wait "$pid" 2>/dev/null
        run core "$prog.core.$pid" -o "$prog.hfd"
        expect_success "$prog: its core"
        for d in "$prog-live.hfd" "$prog.hfd"; do
            got=$("$BIN/histo" -f tsv "$d" | awk -F '\t' '$3 == "shapes::Circle" || $3 == "Square<int>" ||
                $3 == "(anonymous namespace)::Triangle" { print $3 "=" $1 }' | sort | tr '\n' ' ')
            want='(anonymous namespace)::Triangle=100 Square<int>=200 shapes::Circle=300 '
            [ "$got" = "$want" ] && pass || fail "$d: histo by class gives '$got', not '$want'"
            got=$("$BIN/heapfmt-graph" leaked -f tsv "$d" | awk -F '\t' 'NR > 1 { print $1 "=" $2 "," $4 }')
            [ "$got" = "(anonymous namespace)::Triangle=100,100" ] && pass ||
                fail "$d: leaked gives '$got', not the 100 Triangles, all heads"
        done
    done
else
    echo "SKIP: C++ classes: no c++ or strip ($(cat cc.err 2>/dev/null))"
fi

# --- two dumps of one leaking process, a moment apart: histo and
# heapfmt-diff show the growth by class, heapfmt-report renders both ---
if command -v c++ >/dev/null && c++ -O1 -g -o grow "$root/tests/core/grow.cc" 2>cc.err; then
    ./grow 2 1000 &
    pid=$!
    for k in 1 2; do
        wait_stopped "$pid"
        run core -p "$pid" -o "grow$k.hfd"
        expect_rc 0 "grow: dump $k"
        kill -CONT "$pid"
        sleep 0.2
    done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    run "$BIN/histo" -f tsv grow1.hfd grow2.hfd
    expect_success "grow: histo of the two dumps"
    expect_out_has "Buffer	1000	2000	1000	216000	432000	216000" "grow: +1000 Buffers in histo"
    expect_out_has "Session	1000	2000	1000	72000	144000	72000" "grow: +1000 Sessions in histo"
    run "$BIN/heapfmt-diff" grow1.hfd grow2.hfd
    expect_success "grow: heapfmt-diff"
    [ "$(printf '%s\n' "$out" | awk '$NF == "Buffer" { print $1 }')" = 1000 ] && pass ||
        fail "grow: heapfmt-diff lacks the 1000 new Buffers: $out"
    run "$BIN/heapfmt-graph" leaked -f tsv grow2.hfd
    expect_out_has "Buffer	2000	432000	2000	432000" "grow: the 2000 Buffers leaked by then"
    run "$BIN/heapfmt-report" -o grow.html grow1.hfd grow2.hfd
    expect_rc 0 "grow: heapfmt-report"
    if [ -x /usr/bin/chromium ]; then
        timeout 120 /usr/bin/chromium --headless --no-sandbox --disable-gpu \
            --user-data-dir="$TMPDIR/profile" --dump-dom "file://$TMPDIR/grow.html" \
            >grow.dom 2>/dev/null
        grep -q 'data-rendered="yes"' grow.dom && pass || fail "grow: the report's script did not finish in chromium"
        grep -q '<pre id="errors" role="alert"></pre>' grow.dom && pass || fail "grow: the report caught an error"
        grep -q 'Buffer' grow.dom && grep -q 'Session' grow.dom && pass ||
            fail "grow: the rendered report lacks the classes"
    else
        echo "SKIP: grow: chromium not installed"
    fi
fi

# --- jemalloc (Debian's libjemalloc2, 5.3): the truth program under it,
# -p and its core; the C++ classes ---
je=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
if [ -e "$je" ]; then
    LD_PRELOAD=$je ./truth je-rec.txt &
    pid=$!
    wait_stopped "$pid"
    run core -p "$pid" -o je-live.hfd
    expect_rc 0 "jemalloc: -p"
    gcore -o je-core "$pid" >/dev/null 2>&1
    kill -9 "$pid"
    wait "$pid" 2>/dev/null
    run core -v "je-core.$pid" -o je-core.hfd
    expect_rc 0 "jemalloc: its core"
    expect_err_has "jemalloc 5.3" "jemalloc: -v names it"
    for d in je-live je-core; do
        "$BIN/heapfmt-export" -f json -r all "$d.hfd" >"$d.json"
        "$BIN/heapfmt-graph" leaked --objects -f tsv "$d.hfd" >"$d.leaked"
        if python3 "$root/tests/core/check_truth.py" je-rec.txt - "$d.json" "$d.leaked" >"check-$d.txt"; then
            pass
        else
            fail "$d: $(grep FAIL "check-$d.txt" | head -5)"
        fi
    done
    objects je-core.hfd >je-core.obj
    objects je-live.hfd >je-live.obj
    cmp -s je-core.obj je-live.obj && pass || fail "jemalloc: -p and the core differ"
    "$BIN/heapfmt-export" -f json -r meta je-core.hfd | grep -q '"core.allocator":"jemalloc 5.3"' &&
        pass || fail "jemalloc: META names the allocator"
    if [ -x cxx3 ]; then
        dump_stopped je-cxx3.hfd 200 env LD_PRELOAD="$je" ./cxx3 300 200 100
        expect_rc 0 "jemalloc: C++ classes, -p"
        got=$("$BIN/histo" -f tsv je-cxx3.hfd | awk -F '\t' '$3 == "shapes::Circle" || $3 == "Square<int>" ||
            $3 == "(anonymous namespace)::Triangle" { print $3 "=" $1 }' | sort | tr '\n' ' ')
        want='(anonymous namespace)::Triangle=100 Square<int>=200 shapes::Circle=300 '
        [ "$got" = "$want" ] && pass || fail "jemalloc: histo by class gives '$got', not '$want'"
        got=$("$BIN/heapfmt-graph" leaked -f tsv je-cxx3.hfd | awk -F '\t' 'NR > 1 { print $1 "=" $2 "," $4 }')
        [ "$got" = "(anonymous namespace)::Triangle=100,100" ] && pass ||
            fail "jemalloc: leaked gives '$got', not the 100 Triangles, all heads"
    fi
else
    echo "SKIP: jemalloc not installed ($je)"
fi

# --- allocators not read: told in one line, the dump marked incomplete ---
for lib in libtcmalloc_minimal.so.4:tcmalloc libmimalloc.so.2:mimalloc; do
    so=/usr/lib/x86_64-linux-gnu/${lib%%:*}
    name=${lib##*:}
    if [ ! -e "$so" ]; then
        echo "SKIP: $name not installed ($so)"
        continue
    fi
    dump_stopped "$name.hfd" 200 env LD_PRELOAD="$so" ./cxx3 30 20 10
    expect_rc 3 "$name: exit 3, the heap is not whole"
    expect_err_has "allocates with $name" "$name: named"
    expect_err_has "does not read yet" "$name: said not read"
    [ "$(printf '%s\n' "$err" | grep -c "$name")" -eq 1 ] && pass || fail "$name: in one line"
    "$BIN/heapfmt-export" -f json -r meta "$name.hfd" | grep -q '"core.complete":0' && pass ||
        fail "$name: the dump says it is incomplete"
done

# --- Ruby: the seed article's Fiddle leak, 50,000 dropped 1 KiB blocks ---
if command -v ruby >/dev/null && ruby -e 'require "fiddle"' 2>/dev/null; then
    dump_stopped fiddle.hfd 600 ruby "$root/tests/core/fiddle_leak.rb" fiddle.txt
    expect_rc 0 "ruby: -p"
    "$BIN/heapfmt-graph" leaked --objects -f tsv fiddle.hfd >fiddle.leaked
    if python3 - fiddle.txt fiddle.leaked >fiddle.check 2>&1 <<'EOF'
import sys
rec = [l.split() for l in open(sys.argv[1])]
dropped = {int(a, 16) for k, a in rec if k == "leaked"}
held = {int(a, 16) for k, a in rec if k == "held"}
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])][1:]
leaked = {int(r[0], 16): int(r[3]) for r in rows}
found = [a for a in dropped if a in leaked]
assert len(dropped) == 50000 and len(held) == 1000, (len(dropped), len(held))
assert len(found) >= 0.99 * len(dropped), "only %d of 50000 dropped blocks leaked" % len(found)
assert all(leaked[a] >= 1024 for a in found), "a leaked block smaller than 1 KiB"
assert not held & set(leaked), "%d held blocks reported leaked" % len(held & set(leaked))
print("%d of 50000 dropped blocks leaked" % len(found))
EOF
    then pass; else fail "ruby: the Fiddle leak: $(tail -1 fiddle.check)"; fi
else
    echo "SKIP: ruby with fiddle not installed"
fi

# --- bad input ---
head -c 4096 truth.core >arch.core
printf '\267\000' | dd of=arch.core bs=1 seek=18 conv=notrunc 2>/dev/null
run core arch.core -o out.hfd
expect_failure 1 "a core of another architecture"
expect_err_has "aarch64" "names the architecture"
head -c 4096 truth.core >class.core
printf '\001' | dd of=class.core bs=1 seek=4 conv=notrunc 2>/dev/null
run core class.core -o out.hfd
expect_failure 1 "a 32-bit core"
expect_err_has "32-bit" "says 32-bit"
run core truth -o out.hfd
expect_failure 1 "an executable, not a core"
expect_err_has "not a core file" "says it is not a core"

# A truncated core: what it holds is written, exit 3. gcore writes its
# notes last: they are cut off first, and the mapped files are found
# from the dynamic linker's list instead.
size=$(stat -c %s truth.core)
head -c $((size - 20000)) truth.core >cut.core
run core cut.core -o cut.hfd
expect_rc 3 "a truncated core exits 3"
expect_err_has "notes are cut off" "and says what it lacks"
objects cut.hfd >cut.obj
cmp -s core.obj cut.obj && pass || fail "a core without its notes still gives every block"
head -c $((size / 3)) truth.core >cut3.core
run core cut3.core -o cut3.hfd
expect_failure 1 "a core cut before libc's data"
expect_err_has "truncated core" "says the arena may be in the part cut off"


# A corrupt chunk header in the main heap: the blocks before it are
# written, the problem is named, exit 3.
python3 - truth.core core.json >corrupt.txt <<'EOF'
import json, struct, sys
core, dump = sys.argv[1:3]
objs = sorted(int(o["id"], 16) for o in json.load(open(dump))["objects"] if o["type"] == "chunk")
main = [a for a in objs if a - objs[0] < 1 << 30]  # the brk heap: lowest
victim = main[len(main) // 2]
with open(core, "r+b") as f:
    h = f.read(64)
    phoff, = struct.unpack_from("<Q", h, 32)
    phnum, = struct.unpack_from("<H", h, 56)
    f.seek(phoff)
    ph = f.read(56 * phnum)
    for i in range(phnum):
        t, fl, off, va, pa, fs, ms, al = struct.unpack_from("<IIQQQQQQ", ph, 56 * i)
        if t == 1 and va <= victim - 8 < va + fs:
            f.seek(off + victim - 8 - va)
            f.write(struct.pack("<Q", 0x7777777777777771))
            break
print(hex(victim - 16), sum(1 for a in main if a < victim))
EOF
read -r chunk before <corrupt.txt
run core truth.core -o bad.hfd
expect_rc 3 "a corrupt chunk header exits 3"
expect_err_has "$chunk" "the message names the chunk"
expect_err_has "corrupt size field" "and what is wrong with it"
got=$(objects bad.hfd | python3 -c 'import sys, json
print(sum(1 for l in sys.stdin if int(json.loads(l)["id"], 16) < int(sys.argv[1], 16)))' "$chunk")
[ "$got" = "$before" ] && pass || fail "the $before blocks before the corruption are written ($got)"
n=$(objects bad.hfd | grep -c '"0x00007f')
[ "$n" -gt 100 ] && pass || fail "the other arenas are read ($n blocks)"
"$BIN/heapfmt-export" -f json -r meta bad.hfd | grep -q '"core.complete":0' && pass || fail "the dump says it is incomplete"

finish
