#!/usr/bin/env bash
# import_android.sh -- heapfmt-import on Android's HPROF dumps: the
# fixture tests/fixtures/import/android.hprof (a heap written as ART
# writes one, by tests/test_import_android.c, which lists it) and
# android-conv.hprof (the same as hprof-conv converts it). The app heap by
# default, what the boot image holds as named roots, --heap, the same
# histogram from both files, pipes; gzip'd, the same dump, thread or
# not (issue 39).
. "$(dirname "$0")/lib.bash"

imp=$BIN/heapfmt-import
histo=$BIN/histo
art=$FIXTURES/import/android.hprof
conv=$FIXTURES/import/android-conv.hprof
cd "$TMPDIR" || exit 1

# The app heap, as Android Studio shows it by default; the rest is said.
run "$imp" -o app.dump "$art"
expect_rc 0 "import an Android dump"
expect_err_has "warning: left out the image and zygote heaps (12 objects, 144 bytes), as Android Studio shows the app heap alone: --heap=all keeps them" \
    "the heaps left out are named"
run "$BIN/heapfmt-info" --verify app.dump
expect_out_has "OK: 12 objects verified" "the import verifies"
run "$BIN/heapfmt-info" app.dump
expect_out_has "hprof (JAVA PROFILE 1.0.3)" "META import.format"
expect_out_has "app: 12 objects, 272 bytes; image: 11 objects, 136 bytes, left out" \
    "META hprof.heaps"
[ "$(row meta.jvm.size_model | cut -d: -f1)" = art ] && pass ||
    fail "META jvm.size_model: $(row meta.jvm.size_model)"

# A String holds its characters (ART keeps them in it): no byte[] for
# them; class names as ART writes them.
run "$histo" -f tsv -s name app.dump
expect_success "histo of the app heap"
printf '%s\n' "$out" > app.tsv
cls() { awk -F '\t' -v c="$2" '$3 == c { print $1 " " $2 }' "$1"; }
[ "$(cls app.tsv java.lang.String)" = "3 64" ] && pass ||
    fail "3 Strings of 24, 24 and 16 bytes: $(cls app.tsv java.lang.String)"
[ -z "$(cls app.tsv 'byte[]')" ] && pass || fail "no byte[] of String characters"
[ "$(cls app.tsv 'long[]')" = "1 24" ] && pass || fail "a long[1]: 16 + 8"

# Why the Leak is alive: a static field of a boot image class, though the
# image heap is left out.
run "$BIN/heapfmt-graph" path -f tsv app.dump 0x12c01000
expect_rc 0 "graph path to the Leak"
first=$(printf '%s\n' "$out" | sed -n 2p | cut -f 7)
[ "$first" = "image heap: static android.app.ActivityThread.sCache" ] && pass ||
    fail "the path starts at the image's static field: $first"

# Every heap; hprof-conv's output gives the same histogram (but for the
# char[] whose elements the dump left out, which hprof-conv empties).
run "$imp" --heap=all -o all.dump "$art"
expect_success "--heap=all"
expect_err_empty "--heap=all leaves nothing out"
run "$imp" -o conv.dump "$conv"
expect_success "import hprof-conv's output"
for d in all conv; do
    run "$histo" -f tsv -s name $d.dump
    printf '%s\n' "$out" | grep -v 'char\[\]' > $d.tsv
done
cmp -s all.tsv conv.tsv && pass || fail "hprof-conv's histogram differs: $(diff all.tsv conv.tsv)"
[ "$(cls all.tsv java.lang.String)" = "4 88" ] && pass ||
    fail "with the image's String: $(cls all.tsv java.lang.String)"

# --heap by name; usage errors; a name no heap has.
run "$imp" --heap=zygote -o zyg.dump "$art"
expect_rc 0 "--heap=zygote"
expect_err_has "warning: left out the app and image heaps (23 objects, 408 bytes): --heap=all" \
    "what --heap=zygote left out"
run "$histo" -f tsv zyg.dump
[ "$(printf '%s\n' "$out" | awk -F '\t' 'NR > 1 { n += $1 } END { print n }')" = 1 ] &&
    pass || fail "the zygote heap holds one object"
expect_usage_error "$imp" "--heap=a,,b" --heap=a,,b "$art"
expect_usage_error "$imp" "--heap=" --heap= "$art"
expect_usage_error "$imp" "--jvm=dalvik" --jvm=dalvik "$art"
run "$imp" --heap=jni -o jni.dump "$art"
expect_failure 1 "--heap names no heap of the dump"
expect_err_has "every object is in the app, image and zygote heaps, left out" \
    "what --heap=jni left"
[ ! -e jni.dump ] && pass || fail "no output left behind"

# Through a pipe: the app's instances come before the image's classes,
# their references cannot be decoded; said, exit 3; the objects are the
# same.
run bash -c "cat '$art' | '$imp' > pipe.dump"
expect_rc 3 "an Android dump through a pipe"
expect_err_has "read from a regular file, it is read twice" "a file is advised"
run "$histo" -f tsv -s name pipe.dump
[ "$out" = "$(cat app.tsv)" ] && pass || fail "the pipe's histogram differs"

# gzip'd under the same name: the same dump, byte for byte, inflated on
# the reading thread or (taskset to one CPU) not; cut or damaged, the
# same message and exit code both ways.
mkdir -p gz && gzip -c "$art" > gz/android.hprof
cp "$art" android.hprof
run "$imp" -o plain.dump android.hprof
expect_rc 0 "the plain dump"
(cd gz && "$imp" -o ../gz.dump android.hprof 2>/dev/null) &&
    cmp -s plain.dump gz.dump && pass || fail "gzip imports as the plain dump"
gzsize=$(wc -c < gz/android.hprof)
head -c $((gzsize - 3)) gz/android.hprof > cut.hprof
cp gz/android.hprof bad.hprof
printf '\x55' | dd of=bad.hprof bs=1 seek=$((gzsize - 6)) conv=notrunc 2>/dev/null
for f in cut bad; do
    run "$imp" -o "$f.dump" "$f.hprof"
    rc1=$rc err1=$err
    [ -f "$f.dump" ] && md1=$(md5sum < "$f.dump") || md1=none
    if command -v taskset >/dev/null 2>&1; then
        run taskset -c 0 "$imp" -o "$f.dump" "$f.hprof"
        [ -f "$f.dump" ] && md2=$(md5sum < "$f.dump") || md2=none
        [ "$rc" = "$rc1" ] && [ "$err" = "$err1" ] && [ "$md1" = "$md2" ] &&
            pass || fail "$f: thread and one CPU differ: $err1"
    fi
done
run "$imp" -o cut.dump cut.hprof
expect_rc 3 "a cut gzip dump"
expect_err_has "compressed input ends early (truncated)" "a cut gzip dump"
run "$imp" -o bad.dump bad.hprof
expect_rc 3 "a damaged CRC"
expect_err_has "damaged compressed input (incorrect data check)" "a damaged CRC"

finish
