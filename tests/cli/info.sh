#!/usr/bin/env bash
# info.sh -- command-line contract of heapfmt-info.
. "$(dirname "$0")/lib.bash"

gen=$BIN/heapfmt-gen
info=$BIN/heapfmt-info
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TMPDIR" || exit 1

run "$info" --help
expect_success "--help"
expect_out_has "Usage: heapfmt-info" "--help"
expect_out_has "Exit status" "--help"
run "$info" --version
expect_success "--version"

# A million objects: written, summarised from the footer, verified.
gen_dump x.dump --objects 1000000 --seed 1
run "$info" --verify x.dump
expect_success "verify 1M"
expect_out_has "OK: 1,000,000 objects verified" "verify 1M"
run "$info" --verify --plain x.dump
expect_success "verify 1M --plain"
expect_out_has "OK: 1000000 objects verified" "verify 1M --plain"
# records of kinds this reader does not know are skipped, yet END counts
# them: a valid dump of a later minor version verifies
run "$info" --verify "$FIXTURES/valid/unknown-records.hfd"
expect_success "verify a dump with unknown record kinds"
expect_out_has "OK: 1 object verified" "verify unknown records"

run "$info" x.dump
expect_success "info 1M"
[ "$(row status)" = complete ] && pass || fail "status is '$(row status)'"
[ "$(row objects)" = "1,000,000" ] && pass || fail "objects row is '$(row objects)'"
expect_out_has "meta.producer" "info 1M"
expect_out_has "meta.vm.version" "info 1M"
[ "$(row format)" = "1.3" ] && pass || fail "format row is '$(row format)'"
# heapfmt-gen writes Zstandard blocks by default; the footer says so.
[ "$(row codecs)" = zstd ] && pass || fail "codecs row is '$(row codecs)'"
size=$(stat -c %s x.dump)
run "$info" --plain x.dump
expect_success "info --plain"
[ "$(row objects)" = 1000000 ] && pass || fail "plain objects row is '$(row objects)'"
[ "$(row file-size)" = "$size" ] && pass || fail "file-size row is '$(row file-size)', file has $size"
footer_out=$out

# Standard input: no footer up front, so every block is read; same figures.
run bash -c "cat x.dump | '$info' --plain -"
expect_success "info from a pipe"
[ "$(row file)" = "(stdin)" ] && pass || fail "file row is '$(row file)'"
for k in objects object-bytes records classes strings roots blocks file-size; do
    piped=$(row "$k")
    direct=$(out=$footer_out row "$k")
    [ "$piped" = "$direct" ] && pass || fail "$k: '$piped' from a pipe, '$direct' from the file"
done
run bash -c "'$info' --verify - < x.dump"
expect_success "verify from stdin"
expect_out_has "OK: 1,000,000 objects verified" "verify from stdin"

# codecs: from the footer (1.1), from the blocks read (a pipe, a 1.0 dump
# whose footer lacks them), in codec order.
run "$gen" --objects 1000 -o z.dump
run "$info" z.dump
expect_success "info on a small default dump"
[ "$(row codecs)" = zstd ] && pass || fail "default gen: codecs row is '$(row codecs)'"
run "$gen" --objects 1000 -l 0 -o s.dump
run "$info" --plain s.dump
expect_success "info on a stored dump"
[ "$(row codecs)" = stored ] && pass || fail "gen -l 0: codecs row is '$(row codecs)'"
if "$gen" --help | grep -q -- --codec; then
    run "$gen" --objects 1000 --codec deflate -o d.dump
else
    # make a deflate dump through the importer
    imp=$BIN/heapfmt-import
    run "$imp" --codec deflate -o d.dump "$FIXTURES/import/ruby33.json"
fi
expect_success "a deflate dump"
run "$info" d.dump
expect_success "info on a deflate dump"
[ "$(row codecs)" = deflate ] && pass || fail "deflate: codecs row is '$(row codecs)'"
run bash -c "cat d.dump | '$info' -"
expect_success "info on a deflate dump from a pipe"
[ "$(row codecs)" = deflate ] && pass || fail "deflate, pipe: codecs row is '$(row codecs)'"
run bash -c "'$info' - < x.dump"
[ "$(row codecs)" = zstd ] && pass || fail "zstd, stdin: codecs row is '$(row codecs)'"
run "$info" "$FIXTURES/valid/unknown-records.hfd"
expect_success "info on a 1.0 dump"
[ "$(row format)" = 1.0 ] && [ "$(row codecs)" = stored ] && pass ||
    fail "1.0 dump: format '$(row format)', codecs '$(row codecs)'"

# A block codec this reader does not know (here 9; a newer heapfmt's):
# one message naming it, nothing on stdout, exit 1 as for a newer version.
python3 - <<'PY'
import struct, zlib
d = bytearray(open("z.dump", "rb").read())
d[17] = 9  # codec byte of the first block header, at offset 16
d[32:36] = struct.pack("<I", zlib.crc32(bytes(d[16:32])))
open("codec9.dump", "wb").write(d)
PY
for args in "codec9.dump" "--verify codec9.dump"; do
    # shellcheck disable=SC2086
    run "$info" $args
    expect_failure 1 "unsupported codec: $args"
    expect_err_has "heapfmt-info: codec9.dump: unsupported codec 9" "unsupported codec: $args"
done
run bash -c "'$info' - < codec9.dump"
expect_failure 1 "unsupported codec from stdin"
expect_err_has "heapfmt-info: (stdin): unsupported codec 9" "unsupported codec from stdin"
for t in histo heapfmt-export heapfmt-diff; do
    [ -x "$BIN/$t" ] || continue
    args=(--scan codec9.dump)
    [ "$t" = histo ] || args=(codec9.dump)
    [ "$t" = heapfmt-diff ] && args=(codec9.dump z.dump)
    run "$BIN/$t" "${args[@]}"
    expect_failure 1 "$t: unsupported codec"
    expect_err_has "$t: codec9.dump: unsupported codec 9" "$t: unsupported codec"
done

# A truncated dump: figures for what was read, a message, exit 3.
head -c $((size / 2)) x.dump >half.dump
run "$info" half.dump
expect_rc 3 "truncated"
expect_err_has "heapfmt-info: half.dump: " "truncated"
expect_out_has "incomplete" "truncated"
objects=$(row objects | tr -d ,)
if [ "${objects:-0}" -gt 0 ] && [ "$objects" -lt 1000000 ]; then pass
else fail "truncated: objects row is '$objects'"; fi
run "$info" --verify half.dump
expect_failure 3 "verify truncated"
run bash -c "cat half.dump | '$info' -"
expect_rc 3 "truncated, from a pipe"

# Cut inside the file header.
head -c 5 x.dump >stub.dump
run "$info" stub.dump
expect_failure 3 "cut inside the header"

# --verify decodes labels: a label naming a string no STRING record
# defines fails (a one-block dump built here: STRING 1, an OBJECT whose
# reference is labeled by string 7, END; the footer left out).
python3 - <<'PY'
import struct, zlib
def crc(b): return struct.pack("<I", zlib.crc32(b) & 0xffffffff)
head = bytes.fromhex("89484 64d540d0a1a01030000".replace(" ", ""))
obj = bytes.fromhex("80fa01 00 00 28 10 01 dfda01 01 00 71".replace(" ", ""))
body = bytes.fromhex("02020141") + bytes([4, len(obj)]) + obj + bytes.fromhex("0603012802")
blk = b"D\0\0\0" + struct.pack("<II", len(body), len(body)) + crc(body)
open("badlabel.dump", "wb").write(head + crc(head) + blk + crc(blk) + body)
PY
run "$info" --verify badlabel.dump
expect_failure 1 "verify an undefined label name"
expect_err_has "label string 7 is used, but no STRING record defines it" "verify label name"

# A flipped byte in the middle: info reads around it, verify fails.
cp x.dump bad.dump
printf '\377' | dd of=bad.dump bs=1 seek=$((size / 3)) conv=notrunc status=none
run "$info" --verify bad.dump
expect_failure 1 "verify corrupt"
expect_err_has "heapfmt-info: bad.dump: " "verify corrupt"
# File and pipe alike, every block is decoded (META may come in any
# block): the damage is seen and said the same way.
run "$info" bad.dump
expect_rc 3 "info corrupt, from the file"
expect_err_has "heapfmt-info: bad.dump: " "info corrupt, from the file"
expect_out_has "incomplete" "info corrupt, from the file"
file_out=$(printf '%s\n' "$out" | sed 1d)
run bash -c "cat bad.dump | '$info' -"
expect_rc 3 "info corrupt, from stdin"
expect_err_has "heapfmt-info: (stdin): " "info corrupt, from stdin"
expect_out_has "incomplete" "info corrupt, from stdin"
# the same rows but the name and what needs the file's size (a pipe read
# up to an error does not know it)
same_rows='^file-size\|^compression\|^bytes-per-object'
[ "$(printf '%s\n' "$file_out" | grep -v "$same_rows")" = \
  "$(printf '%s\n' "$out" | sed 1d | grep -v "$same_rows")" ] && pass ||
    fail "file and stdin give the same summary"

# META written in a later block, and a key given twice: shown, the last
# value winning, from a file as from a pipe (issue 15, case 4).
cat >late_meta.c <<'CEOF'
#include <string.h>
#include "heapfmt.h"
int main(int argc, char **argv)
{
    heapfmt_writer *w;
    heapfmt_writer_options o = HEAPFMT_WRITER_OPTIONS_INIT;
    (void)argc;
    if (heapfmt_writer_open_path(&w, &o, argv[1]) != HEAPFMT_OK)
        return 1;
    heapfmt_write_meta_text(w, "vm.name", "early");
    heapfmt_write_meta_uint(w, "refs.cut", 0);
    heapfmt_writer_flush(w);
    heapfmt_object ob;
    memset(&ob, 0, sizeof ob);
    ob.id = 0x1000;
    ob.size = 40;
    heapfmt_write_object(w, &ob);
    heapfmt_writer_flush(w);
    heapfmt_write_meta_uint(w, "refs.cut", 7);
    heapfmt_write_meta_text(w, "learned.late", "yes");
    return heapfmt_writer_finish(w) == HEAPFMT_OK ? 0 : 1;
}
CEOF
if ${CC:-cc} -std=c11 -I"$root/libheapfmt" late_meta.c "$BIN/../lib/libheapfmt.a" \
    -lzstd -lz -pthread -o late_meta 2>/dev/null && ./late_meta late.dump; then
    for src in file pipe; do
        if [ $src = file ]; then run "$info" late.dump; else
            run bash -c "cat late.dump | '$info' -"; fi
        expect_success "late META from a $src"
        expect_out_has "meta.learned.late" "a key of a later block, $src"
        expect_out_has "$(printf 'meta.refs.cut      7')" "the last value, $src"
        [ "$(printf '%s\n' "$out" | grep -c '^meta.refs.cut')" -eq 1 ] && pass ||
            fail "a key once, $src"
    done
else
    echo "SKIP: late META: the helper program could not be built against this build's library"
fi

# Not a dump.
printf '{"address":"0x7f8a2c0b1e28", "type":"STRING", "bytesize":5}\n' >heap.json
run "$info" heap.json
expect_failure 1 "JSON input"
expect_err_has "heapfmt-info: heap.json: " "JSON input"
expect_err_has "JSON" "JSON input"
printf 'hello world, this is not a dump\n' >text.txt
run "$info" text.txt
expect_failure 1 "text input"
expect_err_has "heapfmt-info: text.txt: " "text input"
: >empty.dump
run "$info" empty.dump
if [ "$rc" -eq 1 ] || [ "$rc" -eq 3 ]; then pass; else fail "empty file: exit $rc"; fi
expect_out_empty "empty file"

# Files that cannot be read.
run "$info" nope.dump
expect_failure 1 "missing file"
[ "$err" = "heapfmt-info: nope.dump: No such file or directory" ] && pass ||
    fail "missing file: message is '$err'"
mkdir adir
run "$info" adir
expect_failure 1 "directory"
expect_err_has "heapfmt-info: adir: Is a directory" "directory"

# Usage errors.
for args in "" "--bogus" "-x x.dump" "x.dump x.dump" "--verify=yes x.dump"; do
    # shellcheck disable=SC2086
    run "$info" $args
    expect_failure 2 "usage error: '$args'"
    expect_err_has "Try 'heapfmt-info --help'" "usage error: '$args'"
done

# Small dumps of every shape verify.
run "$gen" -n 0 -o zero.dump
run "$info" zero.dump
expect_success "info on zero objects"
[ "$(row objects)" = 0 ] && pass || fail "zero objects: objects row is '$(row objects)'"

finish
