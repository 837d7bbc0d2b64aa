#!/usr/bin/env bash
# histo_jobs.sh -- histo -j/--jobs: the parallel block decode prints exactly
# what one thread prints (and, by class, what the footer summary gives), in
# every format, by class, type and site, on compressed and stored dumps,
# from files and standard input; bad values are usage errors.
. "$(dirname "$0")/lib.bash"

histo=$BIN/histo
root=$(cd "$(dirname "$0")/../.." && pwd)
in_tmpdir

run "$histo" --help
expect_out_has "--jobs=N" "--help mentions --jobs"

# Small blocks: many of them, so that every thread gets several.
gen_dump z.dump --objects 200000 --seed 11 --block-size 16384
gen_dump s.dump --objects 200000 --seed 12 --block-size 16384 --level 0
gen_dump n.dump --objects 50000 --seed 13 --no-sites

for d in z.dump s.dump; do
    run "$histo" -f tsv "$d"
    expect_success "footer $d"
    footer=$out
    for by in class type site; do
        run "$histo" --scan -j1 -f tsv --by=$by "$d"
        expect_success "-j1 --by=$by $d"
        one=$out
        if [ $by = class ]; then
            [ "$one" = "$footer" ] && pass || fail "$d: --scan differs from the footer"
        fi
        for j in 2 3 8 0; do
            run "$histo" --scan -j $j -f tsv --by=$by "$d"
            expect_success "-j $j --by=$by $d"
            [ "$out" = "$one" ] && pass || fail "$d: -j $j --by=$by differs from -j1"
        done
        run "$histo" --scan --jobs=2 -f json --by=$by "$d"
        expect_success "--jobs=2 json --by=$by $d"
        json=$out
        run "$histo" --scan -f json --by=$by "$d"
        [ "$out" = "$json" ] && pass || fail "$d: json --by=$by differs with --jobs=2"
    done
    # The table, with a row limit and --human, and two dumps at once.
    run "$histo" --scan -j2 -H -n 5 "$d"
    expect_success "-j2 table"
    table=$out
    run "$histo" --scan -H -n 5 "$d"
    [ "$out" = "$table" ] && pass || fail "$d: -j2 table differs"
done
run "$histo" --scan -j3 z.dump s.dump
expect_success "-j3 with two dumps"
two=$out
run "$histo" z.dump s.dump
[ "$out" = "$two" ] && pass || fail "two dumps: -j3 --scan differs from the footers"

# Standard input: one thread, same result; from a pipe and from a file.
run "$histo" --scan -f tsv --by=type z.dump
want=$out
expect_run_out "$want" "-j2 from stdin (a file)" bash -c "'$histo' -j2 -f tsv --by=type - < z.dump"
expect_run_out "$want" "-j2 from a pipe" bash -c "cat z.dump | '$histo' -j2 -f tsv --by=type -"

# --by=site on a dump without sites: the same error as without -j.
run "$histo" -j2 --by=site n.dump
expect_failure 1 "-j2 --by=site without sites"
expect_err_has "no allocation sites" "-j2 --by=site without sites"

# A truncated dump has no footer: one thread, exit 3, same output.
head -c $(($(wc -c <z.dump) / 2)) z.dump >cut.dump
run "$histo" -f tsv cut.dump
expect_rc 3 "truncated"
cut_one=$out
run "$histo" -j2 -f tsv cut.dump
expect_rc 3 "truncated, -j2"
[ "$out" = "$cut_one" ] && pass || fail "truncated: -j2 differs"

# Values.
for bad in -1 65 x "" 2x; do
    run "$histo" --jobs="$bad" z.dump
    expect_failure 2 "--jobs='$bad'"
done
run "$histo" -j
expect_failure 2 "-j without a value"

# The property (issue 31): over every dump of the crafted corpus
# (tests/hostile/mkhostile: intact blocks whose END, footer or definitions
# lie, hidden and repeated blocks...), every invalid fixture and every dump
# of the fuzz corpora, -j2 and -j4 print what -j1 prints, on stdout and
# stderr, with the same exit status: by class and stack (whose names take
# strings, frames and stacks from every range) and, on the crafted dumps
# and the fixtures, by type and site too. The fuzz corpora's dumps are
# compared with -j2 and -j4 in turn (about 4,000 runs in all: 30 s on an
# idle machine).
mkdir hostile stream
"$BIN/../tests/mkhostile" hostile || fail "mkhostile"
dumps=(hostile/*.hfd "$FIXTURES"/invalid/*.hfd)
ncrafted=${#dumps[@]}
# Each file is a dump, or (fuzz_stream) a control byte and a chunk pattern
# before one, copied from its magic on; one process finds them all (a
# grep per file took 45 s of CPU).
python3 - "$root"/fuzz/corpus/*/* >found <<'PY' || fail "finding the fuzz corpora's dumps"
import os, sys
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        data = f.read()
    at = data.find(b"\x89HFMT")
    if at == 0:
        print(path)
    elif at > 0:
        copy = os.path.join("stream", os.path.basename(path))
        with open(copy, "wb") as f:
            f.write(data[at:])
        print(copy)
PY
mapfile -t -O ${#dumps[@]} dumps <found
same=0
n=0
for f in "${dumps[@]}"; do
    n=$((n + 1))
    bys="class stack"
    js=$((n % 2 * 2 + 2))
    if [ $n -le $ncrafted ]; then
        bys="class type site stack"
        js="2 4"
    fi
    for by in $bys; do
        "$histo" -S --by=$by -j1 "$f" >out.1 2>err.1
        rc1=$?
        for j in $js; do
            "$histo" -S --by=$by -j$j "$f" >out.j 2>err.j
            rcj=$?
            if [ "$rc1" = "$rcj" ] && cmp -s out.1 out.j && cmp -s err.1 err.j; then
                same=$((same + 1))
            else
                fail "$f: histo -S --by=$by: -j$j differs from -j1 (exit $rc1, $rcj): $(diff err.1 err.j | head -n 3)"
            fi
        done
    done
done
pass
echo "${#dumps[@]} dumps, $same runs of -j2 or -j4 the same as -j1"
[ "${#dumps[@]}" -gt 400 ] && pass || fail "only ${#dumps[@]} dumps in the corpora"

finish
