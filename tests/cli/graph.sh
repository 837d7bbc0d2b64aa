#!/usr/bin/env bash
# graph.sh -- heapfmt-graph's contract on three dumps with known answers:
# a cache Hash reached from a global that keeps the requests it is given,
# a closure (Proc -> environment -> Array) holding an Array that grows,
# and an object held by two roots. Checks referrers, path (also -k and
# --no-weak), dominators (by object, class and site), owners, the four
# formats, standard input, and the exit codes of bad and cut input.
. "$(dirname "$0")/lib.bash"

graph=$BIN/heapfmt-graph
import=$BIN/heapfmt-import
in_tmpdir

# ---- the heap, as ObjectSpace.dump_all lines ----
# Classes 0xc0 Object, 0xc1 Hash, 0xc2 Request, 0xc3 Array, 0xc4 Proc.
# $cache (0x1000, app.rb:30) holds the requests 0x10000 + 40 i; dump N
# holds (N == 1 ? 10 : 10 + 50 (N - 1)) of them: the 50 of dump 2 leak.
# The Proc 0x4000 (root vm) -> env 0x4100 -> Array 0x4200 (app.rb:60),
# new in dump 2 with its 20 Strings: the env owns that leak.
# 0x3000 is held by both roots.
heap() { # N
    local n=$1 i count refs=
    count=$((n == 1 ? 10 : 10 + 50 * (n - 1)))
    for i in 0xc0:Object 0xc1:Hash 0xc2:Request 0xc3:Array 0xc4:Proc; do
        printf '{"address":"%s", "type":"CLASS", "name":"%s", "memsize":400}\n' \
            "${i%%:*}" "${i#*:}"
    done
    for ((i = 0; i < count; i++)); do
        refs="$refs${refs:+, }\"$(printf '0x%x' $((0x10000 + 40 * i)))\""
        printf '{"address":"0x%x", "type":"OBJECT", "class":"0xc2", "file":"app.rb", "line":12, "memsize":40}\n' \
            $((0x10000 + 40 * i))
    done
    printf '{"address":"0x1000", "type":"HASH", "class":"0xc1", "file":"app.rb", "line":30, "references":[%s], "memsize":168}\n' "$refs"
    printf '{"address":"0x3000", "type":"OBJECT", "class":"0xc0", "memsize":40}\n'
    printf '{"address":"0x4000", "type":"DATA", "class":"0xc4", "references":["0x4100"], "memsize":80}\n'
    if [ "$n" -eq 1 ]; then
        printf '{"address":"0x4100", "type":"IMEMO", "imemo_type":"env", "memsize":72}\n'
    else
        refs=
        for ((i = 0; i < 20; i++)); do
            refs="$refs${refs:+, }\"$(printf '0x%x' $((0x50000 + 40 * i)))\""
            printf '{"address":"0x%x", "type":"STRING", "class":"0xc3", "file":"app.rb", "line":61, "memsize":40}\n' \
                $((0x50000 + 40 * i))
        done
        printf '{"address":"0x4100", "type":"IMEMO", "imemo_type":"env", "references":["0x4200"], "memsize":72}\n'
        printf '{"address":"0x4200", "type":"ARRAY", "class":"0xc3", "file":"app.rb", "line":60, "references":[%s], "memsize":200}\n' "$refs"
    fi
    printf '{"type":"ROOT", "root":"global_tbl", "references":["0x1000", "0x3000"]}\n'
    printf '{"type":"ROOT", "root":"vm", "references":["0x4000", "0x3000", "0xc0", "0xc1", "0xc2", "0xc3", "0xc4"]}\n'
}
for n in 1 2 3; do
    heap "$n" >"heap$n.json"
    run "$import" -o "d$n.dump" "heap$n.json"
    expect_success "import heap $n"
done

# ---- referrers ----
run "$graph" referrers -f tsv d3.dump 0x3000
expect_success "referrers of an object held by two roots"
expect_out_has "$(printf '0x0000000000003000\t\t(root)\tglobal_tbl\t\t\t')" "root 1"
expect_out_has "$(printf '0x0000000000003000\t\t(root)\tvm\t\t\t')" "root 2"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 3 ] && pass || fail "two rows and a header"
run "$graph" referrers -f tsv d3.dump 0x10028
expect_out_has "$(printf '0x0000000000010028\t0x0000000000001000\tHash\tT_HASH\t168\tapp.rb:30')" "the Hash refers to a request"
by_id=$out
run "$graph" referrers -f tsv --class Request d3.dump
# ids alone are compared unresolved, --class resolves: the same rows
[ "$(printf '%s\n' "$out" | grep -e '^target' -e '^0x0000000000010028')" = "$by_id" ] &&
    pass || fail "referrers by id and by --class agree"
run "$graph" referrers -f csv --class Array d3.dump
expect_success "referrers --class"
expect_out_has "0x0000000000004200,0x0000000000004100" "the env holds the Array"
expect_out_has "0x0000000000050000,0x0000000000004200,Array" "the Array holds its Strings"

# ---- path ----
run "$graph" path -f tsv d3.dump 0x50028
expect_success "path through a closure"
expect_out_has "$(printf '1\t0\t\t\t(root)\tvm')" "hop 0 is the root"
expect_out_has "$(printf '1\t1\t\t0x0000000000004000\tProc\tT_DATA\t80')" "hop 1 the Proc"
expect_out_has "$(printf '1\t2\t\t0x0000000000004100\t')" "hop 2 the environment"
expect_out_has "$(printf '1\t3\t\t0x0000000000004200\tArray\tT_ARRAY\t200\tapp.rb:60')" "hop 3 the Array"
expect_out_has "$(printf '1\t4\t\t0x0000000000050028\tArray\tT_STRING\t40\tapp.rb:61')" "hop 4 the object"
run "$graph" path -k 5 -f tsv d3.dump 0x3000
expect_success "path -k"
expect_out_has "$(printf '0x0000000000003000\t2\t1')" "a second path"
case $out in *"$(printf '0x0000000000003000\t3\t')"*) fail "only two references exist" ;; *) pass ;; esac

# ---- dominators ----
run "$graph" dominators -f tsv -n 3 d3.dump
expect_success "dominators"
line2=$(printf '%s\n' "$out" | sed -n 2p)
[ "$line2" = "$(printf '0x0000000000001000\tHash\tT_HASH\t168\tapp.rb:30\t%d' $((168 + 110 * 40)))" ] &&
    pass || fail "the cache Hash retains itself and 110 requests: $line2"
expect_out_has "$(printf '0x0000000000004000\tProc\tT_DATA\t80\t\t%d' $((80 + 72 + 200 + 20 * 40)))" "the Proc retains the closure"
run "$graph" dominators -b class -f tsv d3.dump
expect_success "dominators --by=class"
expect_out_has "$(printf 'Request\t110\t4400\t4400')" "requests by class"
run "$graph" dominators -b site -f tsv d3.dump
expect_out_has "$(printf 'app.rb:30\t1\t168\t%d' $((168 + 4400)))" "by site"
run "$graph" dominators -f json d3.dump
expect_success "dominators json"
printf '%s' "$out" | python3 -c 'import json,sys; r=json.load(sys.stdin); assert r[0]["retained_size"]==4568 and r[0]["id"]=="0x0000000000001000", r[0]' &&
    pass || fail "json parses and holds the Hash first"
run "$graph" dominators -f tsv - <d3.dump
expect_success "dominators from standard input"
expect_out_has "$(printf '0x0000000000001000\tHash')" "stdin gives the same"

# ---- owners: the leak story ----
run "$graph" owners -f tsv d1.dump d2.dump d3.dump
expect_success "owners"
expect_out_has "$(printf '1\t50\t2000\t0\t\t\t(root)\tglobal_tbl')" "owner 1: reached from the global"
expect_out_has "$(printf '1\t50\t2000\t1\t\t0x0000000000001000\tHash\tT_HASH\t168\tapp.rb:30')" "owner 1 is the cache Hash"
expect_out_has "$(printf '2\t21\t1000\t2\t\t0x0000000000004100')" "owner 2 is the closure's environment"
run "$graph" owners -n 1 -f table d1.dump d2.dump d3.dump
expect_success "owners table"
expect_out_has "LEAKED_BYTES" "a header"
case $out in *"0x0000000000004100"*) fail "--top 1 shows one owner" ;; *) pass ;; esac

# ---- weak references ----
# 0x6000 is reached only through a weak reference (a label needs format
# 1.1, which heapfmt-import does not write; the C tests cover weak edges).
run "$graph" path --no-weak -f tsv d3.dump 0x1000
expect_success "--no-weak keeps strong paths"

# ---- errors ----
usage() { expect_usage_error "$graph" "$@"; } # WHAT ARG...
usage "no command"
usage "unknown command" shrink d3.dump
expect_err_has "unknown command 'shrink'" "unknown command"
usage "path without ids" path d3.dump
usage "bad id" path d3.dump 0xzz
expect_err_has "invalid object id '0xzz'" "bad id"
usage "bad format" dominators -f xml d3.dump
usage "two dumps for dominators" dominators d1.dump d2.dump
usage "owners with D3 on stdin" owners d1.dump d2.dump -
usage "--by elsewhere" path -b class d3.dump 0x1000
usage "--top 0" dominators -n 0 d3.dump
run "$graph" path d3.dump 0x77
expect_failure 1 "an id not in the dump"
expect_err_has "heapfmt-graph: d3.dump: no object 0x77 in the dump" "named"
run "$graph" dominators missing.dump
expect_failure 1 "a missing file"
expect_err_has "heapfmt-graph: missing.dump:" "named"
run "$graph" dominators heap1.json
expect_failure 1 "JSON given by mistake"
expect_err_has "not a heapfmt dump" "said so"
run "$graph" --help
expect_success "--help"
expect_out_has "Usage: heapfmt-graph COMMAND" "usage"
run "$graph" --version
expect_success "--version"

# ---- a cut dump: what came before the cut, exit 3 ----
size=$(stat -c %s d3.dump)
head -c $((size - 30)) d3.dump >cut.dump
run "$graph" dominators -f tsv cut.dump
expect_rc 3 "a cut dump"
expect_out_has "$(printf '0x0000000000001000\tHash')" "its objects are still there"
expect_err_has "incomplete dump" "and it says so"
# dominators and owners read a dump twice: each warning is said once
dups=$(printf '%s\n' "$err" | sort | uniq -d)
[ -z "$dups" ] && pass || fail "dominators repeats a warning: $dups"
run "$graph" dominators -f tsv "$FIXTURES/invalid/block-data-crc.hfd"
expect_rc 3 "a dump with a bad block"
[ "$(printf '%s\n' "$err" | grep -c 'fails its checksum')" -eq 1 ] &&
    pass || fail "the bad block is reported once: $err"
dups=$(printf '%s\n' "$err" | sort | uniq -d)
[ -z "$dups" ] && pass || fail "dominators repeats a warning: $dups"
run "$graph" owners d1.dump d2.dump cut.dump
dups=$(printf '%s\n' "$err" | sort | uniq -d)
[ -n "$err" ] && [ -z "$dups" ] && pass ||
    fail "owners repeats a warning (or says none): $err"

finish
