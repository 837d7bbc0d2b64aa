#!/usr/bin/env bash
# import_errors.sh -- heapfmt-import on bad input and bad usage: exit codes
# 1, 2 and 3, "FILE:LINE: reason" messages, nothing left behind on failure.
. "$(dirname "$0")/lib.bash"

imp=$BIN/heapfmt-import
info=$BIN/heapfmt-info
fx=${FIXTURES:-$(cd "$(dirname "$0")/../fixtures" && pwd)}/import
cd "$TMPDIR" || exit 1
cp "$fx/malformed.json" "$fx/truncated.json" .

# Malformed lines: reported with their numbers, skipped, exit 3; the rest
# is a complete dump.
run "$imp" -o m.dump malformed.json
expect_rc 3 "malformed lines"
expect_out_empty "malformed lines"
for n in 3 4 6 7 8 9 11 13 14; do
    expect_err_has "heapfmt-import: malformed.json:$n: " "report of line $n"
done
case $err in
*"malformed.json:12:"*) fail "blank line 12 reported" ;;
*) pass ;;
esac
expect_err_has "9 lines skipped (the first is line 3)" "summary"
if [ -x "$info" ]; then
    run "$info" --verify m.dump
    expect_success "verify the dump of a malformed file"
    expect_out_has "OK: 6 objects" "objects kept"
fi

# --strict: the first bad line is an error, and no output file is left.
run "$imp" --strict -o s.dump malformed.json
expect_failure 1 "--strict"
expect_err_has "malformed.json:3: " "--strict names line 3"
case $err in
*"malformed.json:4:"*) fail "--strict went past line 3" ;;
*) pass ;;
esac
[ -e s.dump ] && fail "--strict left s.dump behind" || pass

# A truncated last line: reported as such, exit 3 (1 with --strict).
run "$imp" -o t.dump truncated.json
expect_rc 3 "truncated"
expect_err_has "truncated.json:4: warning: truncated last line" "truncated"
run "$imp" --strict -o t2.dump truncated.json
expect_failure 1 "truncated, --strict"
[ -e t2.dump ] && fail "truncated --strict left t2.dump" || pass

# A cut gzip stream: everything before the cut is kept, exit 3.
seq 1 3000 | sed 's/.*/{"address":"0x&0", "type":"OBJECT", "class":"0x10", "memsize":40}/' > many.json
gzip -c many.json | head -c 4000 > cut.json.gz
run "$imp" -o cut.dump cut.json.gz
expect_rc 3 "cut gzip"
expect_err_has "compressed input ends early" "cut gzip"
run "$imp" --strict -o cut2.dump cut.json.gz
expect_failure 1 "cut gzip, --strict"

# Not a dump_all file at all: exit 1, nothing left.
printf 'hello\nworld\n' > text.txt
expect_failure_leaves_no x.dump "no ObjectSpace.dump_all lines" "plain text" \
    "$imp" -o x.dump text.txt
run "$imp" -o real.dump "$fx/ruby21.json"
expect_success "import ruby21"
run "$imp" -o y.dump real.dump
expect_failure 1 "a heapfmt dump as input"
expect_err_has "heapfmt dump already" "a heapfmt dump as input"

# Input and output the same file: refused, the input untouched.
cp "$fx/ruby21.json" same.json
run "$imp" -o same.json same.json
expect_failure 1 "same input and output"
if cmp -s same.json "$fx/ruby21.json"; then pass; else fail "the input was overwritten"; fi

# Files that cannot be opened.
run "$imp" -o z.dump missing.json
expect_failure 1 "missing input"
expect_err_has "missing.json: " "missing input"
run "$imp" -o z.dump .
expect_failure 1 "directory as input"
run "$imp" -o no/such/dir/z.dump "$fx/ruby21.json"
expect_failure 1 "output in a missing directory"

# Lines longer than --max-line are skipped and reported.
run "$imp" --max-line 1000 -o long.dump "$fx/ruby31.json"
expect_rc 3 "--max-line"
expect_err_has "ruby31.json:14: line longer than 1000 bytes" "--max-line"

# Usage errors: exit 2, nothing on stdout, a hint on stderr.
for args in "--level 20" "--level x" "--codec=deflate --level 10" \
    "-l 10 --codec deflate" "--codec=stored -l 1" "--codec=lz4" "--codec" \
    "--codec=" "--threads=2" "--preview 257" "--preview -1" \
    "--max-line 0" "--bogus" "-q" "-o" "a.json b.json"; do
    # shellcheck disable=SC2086
    run "$imp" $args
    expect_failure 2 "usage error: $args"
    expect_err_has "Try 'heapfmt-import --help'" "usage error: $args"
done
run "$imp" -o '' "$fx/ruby21.json"
expect_failure 2 "empty output name"

# Binary output to a terminal is refused (needs script(1) for a tty).
if command -v script >/dev/null 2>&1; then
    script -qec "'$imp' '$fx/ruby21.json'" /dev/null > tty.out 2>&1
    tty_rc=$?
    if [ "$tty_rc" -eq 1 ] && grep -q "refusing to write a binary dump to a terminal" tty.out; then
        pass
    else
        fail "terminal output not refused (exit $tty_rc: $(head -c 200 tty.out))"
    fi
fi

# ---- no dump_all line, or not text at all (issue 15, case 3) ----
: >empty.json
run "$imp" -o e.dump empty.json
expect_failure 1 "an empty file"
expect_err_has "no ObjectSpace.dump_all line in the input (it is empty)" "an empty file"
[ ! -e e.dump ] && pass || fail "no dump is left for an empty input"
run bash -c "printf '\n  \n' | '$imp' -o e.dump -"
expect_failure 1 "blank lines from stdin"
expect_err_has "only blank lines" "blank lines from stdin"
run bash -c "'$imp' -o e.dump - </dev/null"
expect_failure 1 "empty stdin"
run timeout 10 "$imp" -o z.dump /dev/zero
expect_failure 1 "/dev/zero, named at once"
expect_err_has "this is binary data" "/dev/zero"
# An HPROF header, plain or gzip, goes to the HPROF importer (which
# finds this one cut: tests/cli/import_hprof.sh has real dumps); with
# --from=ruby it is named for what it is.
printf 'JAVA PROFILE 1.0.2\0\0\0\10' >heap.hprof
run "$imp" -o h.dump heap.hprof
expect_failure 1 "an HPROF file cut in its header"
expect_err_has "truncated dump: the input ends at byte 22 (in the header)" "an HPROF file"
gzip -c heap.hprof >heap.hprof.gz
run "$imp" -o h.dump heap.hprof.gz
expect_err_has "truncated dump: the input ends at byte 22" "a gzipped HPROF file"
run "$imp" --from=ruby -o h.dump heap.hprof
expect_failure 1 "an HPROF file with --from=ruby"
expect_err_has "Java HPROF heap dump" "an HPROF file with --from=ruby"
run "$imp" --from=ruby -o h.dump heap.hprof.gz
expect_err_has "Java HPROF heap dump" "a gzipped HPROF file with --from=ruby"

finish
