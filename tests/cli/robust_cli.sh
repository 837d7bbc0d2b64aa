#!/usr/bin/env bash
# robust_cli.sh -- every dump-reading tool against inputs that are not a
# readable dump: a missing file, a directory, an empty file, /dev/null, an
# ObjectSpace.dump_all JSON file, a dump of a newer major version, a file
# without read permission, plain text; and a valid dump through a FIFO.
#
# The contract (tools/common/cli_exit.h, the EXIT STATUS of each tool):
#   - a failure: exit 1, nothing on stdout, exactly one line on stderr,
#     "prog: FILE: message";
#   - an incomplete dump (empty file, /dev/null: the input ends inside the
#     file header): exit 3; stderr lines all read "prog: FILE: ...", the
#     first saying what was lost; stdout holds only what a tool documents
#     for incomplete dumps (histo and heapfmt-diff print the partial
#     result, the others nothing);
#   - a valid dump through a FIFO (no seeking, read once): exit 0, output,
#     nothing on stderr.
# heapfmt-info must be built; histo, heapfmt-diff and heapfmt-export are
# tested when they are. heapfmt-diff gets the bad input as its second dump
# (and, for failures, as its first too).
. "$(dirname "$0")/lib.bash"

in_tmpdir

if [ ! -x "$BIN/heapfmt-info" ]; then
    echo "FAIL: $BIN/heapfmt-info is not built" >&2
    exit 1
fi
limit=()
command -v timeout >/dev/null 2>&1 && limit=(timeout 20)

# ---- inputs ----
run "$BIN/heapfmt-gen" -n 3000 -s 5 --block-size 4096 -o good.dump
expect_success "gen"
: >empty.dump
mkdir adir
printf '{"address":"0x7f0a1c8c0028", "type":"STRING", "class":"0x7f0a1c8bf0a0", "bytesize":3, "value":"abc", "memsize":40}\n' >heap.json
printf 'this is not a heap dump\n' >notes.txt
# format 2.0: byte 8 is the major version, byte 9 the minor; the header
# check (bytes 12-15) is the CRC32 of bytes 0-11
python3 - <<'EOF'
import struct, zlib
d = bytearray(open("good.dump", "rb").read())
d[8] = 2
d[9] = 0
d[12:16] = struct.pack("<I", zlib.crc32(bytes(d[:12])))
open("v2.dump", "wb").write(d)
EOF
cp good.dump locked.dump
chmod 000 locked.dump

tools=(heapfmt-info)
for t in histo heapfmt-diff heapfmt-export; do
    if [ -x "$BIN/$t" ]; then
        tools+=("$t")
    else
        echo "note: $t is not built, not tested"
    fi
done

# The command line that reads FILE with tool $1 (a second, good dump for
# heapfmt-diff; $3 = first puts FILE first).
cmd_for() { # tool file [first]
    case $1 in
    heapfmt-diff)
        if [ "${3:-}" = first ]; then
            echo "$BIN/$1" "$2" good.dump
        else
            echo "$BIN/$1" good.dump "$2"
        fi
        ;;
    *) echo "$BIN/$1" "$2" ;;
    esac
}

# Every stderr line starts with "prog: file: "; with one_line, there is
# exactly one line.
check_err_lines() { # prog file what one_line
    local prefix="$1: $2: " n=0 line bad=0
    while IFS= read -r line; do
        n=$((n + 1))
        case $line in
        "$prefix"?*) ;;
        *) bad=1 ;;
        esac
    done <<<"$err"
    [ -n "$err" ] || n=0
    if [ "$n" -eq 0 ]; then
        fail "$3: no message on stderr"
    elif [ "$bad" -ne 0 ]; then
        fail "$3: a stderr line does not start with '$prefix'"
    elif [ "$4" = one_line ] && [ "$n" -ne 1 ]; then
        fail "$3: $n lines on stderr, expected one"
    else
        pass
    fi
}

# A failure: exit 1, one line "prog: file: ...", stdout empty, and the
# message holds each of the texts given.
failure() { # what file text...
    local what=$1 file=$2 t order
    shift 2
    for t in "${tools[@]}"; do
        for order in second first; do
            [ "$order" = first ] && [ "$t" != heapfmt-diff ] && continue
            # shellcheck disable=SC2046 # the command line is split on purpose
            run "${limit[@]}" $(cmd_for "$t" "$file" "$order")
            expect_failure 1 "$t: $what"
            check_err_lines "$t" "$file" "$t: $what" one_line
            for text in "$@"; do
                expect_err_has "$text" "$t: $what"
            done
        done
    done
}

# The input ends inside the file header: exit 3.
incomplete() { # what file
    local what=$1 file=$2 t
    for t in "${tools[@]}"; do
        # shellcheck disable=SC2046
        run "${limit[@]}" $(cmd_for "$t" "$file")
        expect_rc 3 "$t: $what"
        case $t in
        histo | heapfmt-diff)
            check_err_lines "$t" "$file" "$t: $what" any ;;
        *)
            expect_out_empty "$t: $what"
            check_err_lines "$t" "$file" "$t: $what" one_line ;;
        esac
        case $err in
        "$t: $file: dump is empty"*) pass ;;
        *) fail "$t: $what: the first message does not say the dump is empty" ;;
        esac
    done
}

failure "missing file" missing.dump "No such file or directory"
failure "directory" adir "Is a directory"
failure "JSON dump" heap.json "JSON" "heapfmt-import"
failure "newer major version" v2.dump "format 2.0" "1.x"
failure "text file" notes.txt "not a heapfmt dump"
if [ "$(id -u)" -eq 0 ]; then
    # root reads files whatever their mode: nothing to test
    echo "note: running as root, chmod 000 does not stop reads: the" \
         "unreadable-file case is skipped"
else
    failure "unreadable file" locked.dump "Permission denied"
fi
incomplete "empty file" empty.dump
incomplete "/dev/null" /dev/null

# ---- a valid dump through a FIFO: read once, no seeking ----
if mkfifo dump.fifo 2>/dev/null; then
    for t in "${tools[@]}"; do
        cat good.dump >dump.fifo &
        writer=$!
        # shellcheck disable=SC2046
        run "${limit[@]}" $(cmd_for "$t" dump.fifo)
        expect_success "$t: FIFO"
        [ -n "$out" ] && pass || fail "$t: FIFO: no output"
        # a tool that did not read it all leaves the writer blocked
        if kill -0 "$writer" 2>/dev/null; then
            fail "$t: FIFO: the tool did not read the whole FIFO"
            kill "$writer" 2>/dev/null
        fi
        wait "$writer" 2>/dev/null
    done
    # the same output as from the regular file
    run "$BIN/heapfmt-info" --verify good.dump
    from_file=$out
    cat good.dump >dump.fifo &
    run "${limit[@]}" "$BIN/heapfmt-info" --verify dump.fifo
    wait
    expect_success "heapfmt-info --verify: FIFO"
    [ "$out" = "$from_file" ] && pass || fail "verify: FIFO and file differ"
else
    echo "note: mkfifo failed: the FIFO case is skipped"
fi

chmod 644 locked.dump
finish
