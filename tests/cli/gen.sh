#!/usr/bin/env bash
# gen.sh -- command-line contract of heapfmt-gen.
. "$(dirname "$0")/lib.bash"

gen=$BIN/heapfmt-gen
info=$BIN/heapfmt-info
cd "$TMPDIR" || exit 1

# --help, --version
run "$gen" --help
expect_success "--help"
expect_out_has "Usage: heapfmt-gen" "--help"
expect_out_has "--objects" "--help"
run "$gen" --version
expect_success "--version"
expect_out_has "heapfmt-gen " "--version"

# Determinism: same seed and options, same bytes; another seed, other bytes.
gen_dump a.dump --objects 20000 --seed 7
expect_out_empty "gen -o a"
gen_dump b.dump -n 20000 -s 7
if cmp -s a.dump b.dump; then pass; else fail "same seed gives different bytes"; fi
gen_dump c.dump -n 20000 -s 8
if cmp -s a.dump c.dump; then fail "different seeds give the same bytes"; else pass; fi

# Standard output is the default and gives the same bytes as -o.
expect_run_file d.dump a.dump "gen to stdout" bash -c "'$gen' -n 20000 -s 7 > d.dump"
expect_run_file e.dump a.dump "gen -o -" bash -c "'$gen' -n 20000 -s 7 -o - > e.dump"

# Every variant of the options gives a dump that verifies.
verify_ok() { # what expected-objects file
    run "$info" --verify "$3"
    expect_success "$1: verify"
    expect_out_has "OK: $2 objects verified" "$1: verify"
}
verify_ok "default options" "20,000" a.dump
run "$gen" -n 5000 --level 0 --block-size 1024 -o small-blocks.dump
expect_success "level 0, 1 KiB blocks"
verify_ok "level 0, 1 KiB blocks" "5,000" small-blocks.dump
run "$gen" -n 5000 --level 9 --classes 3 -o few-classes.dump
expect_success "level 9, 3 classes"
verify_ok "level 9, 3 classes" "5,000" few-classes.dump
run "$gen" -n 5000 --classes 20000 -o many-classes.dump
expect_success "more classes than objects"
verify_ok "more classes than objects" "5,000" many-classes.dump
run "$gen" -n 0 -o empty.dump
expect_success "no objects"
verify_ok "no objects" "0" empty.dump
run "$gen" -n 20000 -s 7 --no-sites -o nosites.dump
expect_success "--no-sites"
verify_ok "--no-sites" "20,000" nosites.dump
if [ "$(stat -c %s nosites.dump)" -lt "$(stat -c %s a.dump)" ]; then pass
else fail "--no-sites does not make the dump smaller"; fi

# Codecs and the compression thread: each gives a dump that verifies, with
# the codec recorded, and the same objects (histo identical across codecs).
histo=$BIN/histo
codec_ok() { # what codec-row file
    verify_ok "$1" "20,000" "$3"
    run "$info" --plain "$3"
    expect_success "$1: info"
    [ "$(row codecs)" = "$2" ] && pass || fail "$1: codecs row is '$(row codecs)', want '$2'"
    run "$histo" --scan -f tsv "$3"
    expect_success "$1: histo"
    [ "$out" = "$histo_ref" ] && pass || fail "$1: histo differs from the default dump's"
}
run "$histo" --scan -f tsv a.dump
expect_success "histo of the default dump"
histo_ref=$out
run "$info" --plain a.dump
[ "$(row codecs)" = zstd ] && pass || fail "default codec is '$(row codecs)', want zstd"
for args in "--codec=zstd:zstd" "--codec=zstd -l 19:zstd" "--codec=deflate:deflate" \
    "--codec=deflate -l 9:deflate" "--codec=stored:stored" "--level 0:stored" \
    "--codec=zstd --threads:zstd" "--codec=deflate --threads --block-size 4096:deflate"; do
    # shellcheck disable=SC2086
    gen_dump codec.dump -n 20000 -s 7 ${args%%:*}
    codec_ok "${args%%:*}" "${args##*:}" codec.dump
done
# The thread changes when blocks are compressed, not the bytes: the same
# dump as without it at its default block size (1 MiB, 256 KiB without).
gen_dump threads.dump -n 20000 -s 7 --threads
gen_dump big_blocks.dump -n 20000 -s 7 --block-size 1048576
if cmp -s big_blocks.dump threads.dump; then pass; else fail "--threads changes the dump"; fi
# A codec this build lacks (make HEAPFMT_ZSTD=0): one line, exit 2, no file.
run "$gen" -n 10 --codec=zstd -o nozstd.dump
if [ "$rc" -eq 0 ]; then
    expect_success "--codec=zstd"
else
    expect_failure 2 "zstd missing from this build"
    expect_err_has "built without zstd" "zstd missing from this build"
    [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && pass || fail "missing codec: not one line"
    [ -e nozstd.dump ] && fail "missing codec: output file created" || pass
fi

# Profiles: app (the default) compresses like a real heap; random is the
# old, nearly incompressible data. Both verify; the profile is recorded.
expect_run_file app.dump a.dump "--profile=app" "$gen" -n 20000 -s 7 --profile=app -o app.dump
run "$gen" -n 20000 -s 7 --profile=random -o random.dump
expect_success "--profile=random"
verify_ok "--profile=random" "20,000" random.dump
run "$info" --plain random.dump
[ "$(row meta.gen.profile)" = random ] && pass || fail "random: gen.profile is '$(row meta.gen.profile)'"
run "$gen" -n 200000 -s 3 -o ratio-app.dump
expect_success "app 200k"
run "$gen" -n 200000 -s 3 --profile=random -o ratio-random.dump
expect_success "random 200k"
app_size=$(stat -c %s ratio-app.dump)
random_size=$(stat -c %s ratio-random.dump)
run "$gen" -n 200000 -s 3 -l 0 -o ratio-stored.dump
expect_success "app 200k stored"
raw_size=$(stat -c %s ratio-stored.dump)
# zstd level 1: the app heap at least 7x smaller than stored (8.6x here; a
# Ruby heap dumped by the extension 8.6-9x), random less than 2x.
[ $((raw_size / app_size)) -ge 7 ] && pass || fail "app profile compresses only $raw_size/$app_size"
[ $((raw_size * 10 / random_size)) -lt 20 ] || fail "random profile compresses too well"
# Labels as the Ruby extension writes them: an Object's references are
# instance variables named alike in every instance of its class, an
# Array's are indexes 0, 1, ..., a Hash's values carry key text; nothing
# with --no-labels or in the random profile.
label_census() {
    "$BIN/heapfmt-export" -f ndjson "$1" | python3 -c '
import json, sys
kinds, names, bad = set(), {}, 0
for line in sys.stdin:
    o = json.loads(line)
    ls = o.get("ref_labels")
    if not ls:
        continue
    for i, l in enumerate(ls):
        if l is None:  # a reference without a label
            continue
        k = l.get("label_kind")
        kinds.add(k)
        if k == "index" and l["label"] != i:
            bad += 1
        if k == "field" and not l["label"].startswith("@"):
            bad += 1
        if k == "key" and o["type"] != "T_HASH":
            bad += 1
    if o["type"] == "T_OBJECT":
        seq = [l and l["label"] for l in ls]
        prev = names.setdefault(o["class"], seq)
        n = min(len(prev), len(seq))
        bad += prev[:n] != seq[:n]
print(" ".join(sorted(k for k in kinds if k)), bad)'
}
census=$(label_census app.dump)
[ "$census" = "field index key 0" ] && pass || fail "app labels: $census"
run "$gen" -n 20000 -s 7 --no-labels -o nolabels.dump
expect_success "--no-labels"
verify_ok "--no-labels" "20,000" nolabels.dump
census=$(label_census nolabels.dump)
[ "$census" = " 0" ] && pass || fail "--no-labels still labels: $census"
census=$(label_census random.dump)
[ "$census" = " 0" ] && pass || fail "random profile labels: $census"

# Like a heap dumped after a GC, every object is reachable from a root
# (heapfmt-graph warns about any that is not).
for s in 2 3 4 5; do
    for profile in app random; do
        run "$gen" -n 300000 -s $s --profile=$profile -o reach.dump
        run "$BIN/heapfmt-graph" dominators -n 1 reach.dump
        expect_success "dominators, seed $s, $profile"
        [ -z "$err" ] && pass || fail "seed $s, $profile: $err"
    done
done

# A dump of more objects extends the same heap (the diff tests rely on it).
gen_dump longer.dump -n 25000 -s 7
run "$histo" -f tsv --scan longer.dump a.dump
expect_success "histo longer a"
run "$BIN/heapfmt-diff" -f tsv a.dump longer.dump
expect_success "diff a longer"
sum=$(printf '%s\n' "$out" | awk -F'\t' 'NR > 1 { n += $2; f += $4 } END { print n + 0, f + 0 }')
[ "$sum" = "5000 0" ] && pass || fail "25,000 objects are not 20,000 and 5,000 more: $sum"

# The summary reflects the options.
run "$info" --plain a.dump
expect_success "info a"
[ "$(row objects)" = 20000 ] && pass || fail "info: objects row is '$(row objects)'"
[ "$(row classes)" = 500 ] && pass || fail "info: classes row is '$(row classes)'"
[ "$(row meta.vm.name)" = ruby ] && pass || fail "info: vm.name is '$(row meta.vm.name)'"
[ "$(row meta.gen.seed)" = 7 ] && pass || fail "info: gen.seed is '$(row meta.gen.seed)'"
[ "$(row meta.gen.profile)" = app ] && pass || fail "info: gen.profile is '$(row meta.gen.profile)'"

# Usage errors: exit 2, nothing on stdout, a hint on stderr.
for args in "--objects abc" "--objects -5" "--objects 1x" "--objects 99999999999999999999" \
    "--level 20" "--codec=deflate --level 10" "--codec=stored -l 1" "--codec=lz4" \
    "--profile=real" "--threads=2" \
    "--classes 0" "--block-size 10" "--seed" "--bogus" "-q" "extra"; do
    # shellcheck disable=SC2086
    run "$gen" $args -o never.dump
    expect_failure 2 "usage error: $args"
    expect_err_has "heapfmt-gen: " "usage error: $args"
    expect_err_has "Try 'heapfmt-gen --help'" "usage error: $args"
done
[ -e never.dump ] && fail "a usage error created the output file" || pass

# Output errors: exit 1 and a prog: file: reason message.
run "$gen" -n 10 -o "$TMPDIR/no/such/dir/x.dump"
expect_failure 1 "unwritable path"
expect_err_has "heapfmt-gen: $TMPDIR/no/such/dir/x.dump: No such file or directory" "unwritable path"
if [ -w /dev/full ]; then
    run "$gen" -n 100000 -o /dev/full
    expect_failure 1 "disk full"
    expect_err_has "No space left on device" "disk full"
fi

# Binary output is never written to a terminal.
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
    run script -qec "'$gen' -n 10" /dev/null
    expect_rc 1 "stdout is a terminal"
    expect_out_has "terminal" "stdout is a terminal"
fi

# Speed: a million objects well within a few seconds (a loose bound, so
# that sanitizer builds pass too).
start=$(date +%s%N)
run "$gen" -n 1000000 -o big.dump
ms=$((($(date +%s%N) - start) / 1000000))
expect_success "1M objects"
echo "heapfmt-gen: 1,000,000 objects in $ms ms"
if [ "$ms" -lt 20000 ]; then pass; else fail "1M objects took $ms ms"; fi

finish
