# lib.bash -- helpers for the CLI contract tests in tests/cli/*.sh.
#
# Sourced, not run. The tests get from the environment (make test sets them):
#   BIN       directory of the built tools
#   FIXTURES  tests/fixtures
#   TMPDIR    a fresh directory of their own
#
# Usage:
#   run CMD ARG...          runs CMD; sets $rc, $out (stdout), $err (stderr);
#                           a heapfmt-import that writes a dump is then
#                           checked with heapfmt-info --verify
#   expect_rc N WHAT        checks $rc
#   expect_out_has TEXT WHAT / expect_err_has TEXT WHAT
#   expect_out_empty WHAT / expect_err_empty WHAT
#   expect_success WHAT     exit 0 and empty stderr
#   expect_failure N WHAT   exit N, empty stdout, a message on stderr
#   expect_failure_leaves_no FILE MSG WHAT CMD...
#                           runs CMD: exit 1, empty stdout, MSG on stderr,
#                           and no FILE created
#   expect_usage_error PROG WHAT ARG...
#                           runs PROG ARG...: exit 2, empty stdout, and the
#                           "Try 'NAME --help'" hint on stderr
#   expect_run_out WANT WHAT CMD...
#                           runs CMD: exit 0, empty stderr, stdout = WANT
#   expect_run_file FILE REF WHAT CMD...
#                           runs CMD: exit 0, empty stderr, FILE = REF
#   gen_dump FILE ARG...    heapfmt-gen ARG... -o FILE, which must succeed
#   expect_import_meta DUMP FORMAT IDS_STABLE
#                           heapfmt-info of an import's DUMP (left in $out):
#                           META import.format FORMAT and ids_stable
#   expect_cut_import SRC BYTES WHAT MSG
#                           heapfmt-import of SRC's first BYTES (as cut.EXT,
#                           EXT SRC's): exit 3 and MSG on stderr, a dump
#                           (cut.dump) histo reads, its TSV left in
#                           $cut_rows; with --strict: exit 1, no output
#   find_bson_python        sets $py to a python3 that has pymongo's bson
#                           module (Debian's python3-pymongo), or to ""
#   realworld_dir           sets $dir to the folder of other projects'
#                           public dumps (REALWORLD_DUMPS, default
#                           ../shared/realworld-dumps beside the repository,
#                           the working directory); when it is absent,
#                           prints SKIP and exits 0: those checks are
#                           optional
#   sanitized_build         true when the tools in BIN are built with
#                           AddressSanitizer (make asan)
#   finish                  exits 1 if any check failed
# Each failed check prints "FAIL: WHAT: detail" and the command's output.

set -u

: "${BIN:?set BIN to the directory of the built tools}"
: "${TMPDIR:?set TMPDIR to a scratch directory}"
FIXTURES=${FIXTURES:-}

failures=0
checks=0

# Works in $TMPDIR with the C locale (byte order, ASCII messages): the
# first step of most scripts.
in_tmpdir() {
    cd "$TMPDIR" || exit 1
    export LC_ALL=C
}
last_cmd=

run() {
    last_cmd="$*"
    "$@" >"$TMPDIR/.out" 2>"$TMPDIR/.err"
    rc=$?
    # $(<FILE), not $(cat FILE): bash reads the file itself, where cat
    # cost a fork and an exec (3 ms of CPU each, twice per run)
    out=$(<"$TMPDIR/.out")
    err=$(<"$TMPDIR/.err")
    verify_import "$@"
}

# An import's output always verifies (issue 31): every heapfmt-import
# that `run` runs and that writes a dump (exit 0 or 3) is followed by
# heapfmt-info --verify of it: its -o FILE, or what it wrote to stdout.
verify_import() {
    local a prog=
    for a in "$@"; do # past timeout, env and the like
        case $a in
        */heapfmt-import | heapfmt-import) prog=$a; break ;;
        esac
    done
    [ -n "$prog" ] && { [ "$rc" = 0 ] || [ "$rc" = 3 ]; } || return 0
    local dump=$TMPDIR/.out prev=
    for a in "$@"; do
        case $prev in -o | --output) dump=$a ;; esac
        case $a in
        --output=*) dump=${a#--output=} ;;
        -o?*) dump=${a#-o} ;;
        -h | --help | -V | --version) return 0 ;;
        esac
        prev=$a
    done
    [ "$dump" = - ] && dump=$TMPDIR/.out
    local keep_rc=$rc keep_out=$out keep_err=$err keep_cmd=$last_cmd
    "$BIN/heapfmt-info" --verify "$dump" >/dev/null 2>"$TMPDIR/.verify"
    if [ $? = 0 ]; then
        pass
    else
        err=$(<"$TMPDIR/.verify")
        fail "the output of '$keep_cmd' does not verify"
    fi
    rc=$keep_rc out=$keep_out err=$keep_err last_cmd=$keep_cmd
}

fail() {
    failures=$((failures + 1))
    {
        echo "FAIL: $1"
        echo "  command: $last_cmd"
        echo "  exit:    ${rc:-?}"
        echo "  stdout:  $(printf '%s' "${out:-}" | head -c 400)"
        echo "  stderr:  $(printf '%s' "${err:-}" | head -c 400)"
    } >&2
}

pass() {
    checks=$((checks + 1))
}

expect_rc() {
    if [ "$rc" -eq "$1" ]; then pass; else fail "$2: exit $rc, expected $1"; fi
}

expect_out_has() {
    case $out in
    *"$1"*) pass ;;
    *) fail "$2: stdout lacks '$1'" ;;
    esac
}

expect_err_has() {
    case $err in
    *"$1"*) pass ;;
    *) fail "$2: stderr lacks '$1'" ;;
    esac
}

expect_out_empty() {
    if [ -z "$out" ]; then pass; else fail "$1: stdout not empty"; fi
}

expect_err_empty() {
    if [ -z "$err" ]; then pass; else fail "$1: stderr not empty"; fi
}

expect_success() {
    expect_rc 0 "$1"
    expect_err_empty "$1"
}

expect_failure() {
    expect_rc "$1" "$2"
    expect_out_empty "$2"
    if [ -n "$err" ]; then pass; else fail "$2: no message on stderr"; fi
}

expect_failure_leaves_no() {
    local file=$1 msg=$2 what=$3
    shift 3
    run "$@"
    expect_failure 1 "$what"
    expect_err_has "$msg" "$what"
    [ -e "$file" ] && fail "$what: $file created" || pass
}

# The value of the row labelled $1 in heapfmt-info output held in $out.
row() {
    printf '%s\n' "$out" | awk -v k="$1" '$1 == k { $1 = ""; sub(/^ +/, ""); print; exit }'
}

expect_run_out() {
    local want=$1 what=$2
    shift 2
    run "$@"
    expect_success "$what"
    [ "$out" = "$want" ] && pass || fail "$what: the output differs"
}

expect_run_file() {
    local file=$1 ref=$2 what=$3
    shift 3
    run "$@"
    expect_success "$what"
    cmp -s "$file" "$ref" && pass || fail "$what: $file differs from $ref"
}

gen_dump() {
    local file=$1
    shift
    run "$BIN/heapfmt-gen" "$@" -o "$file"
    expect_success "gen $file"
}

expect_import_meta() {
    run "$BIN/heapfmt-info" "$1"
    expect_out_has "$2" "META import.format"
    [ "$(row meta.ids_stable)" = "$3" ] && pass || fail "META ids_stable=$3"
}

expect_cut_import() {
    local cut=cut.${1##*.}
    head -c "$2" "$1" > "$cut"
    run "$BIN/heapfmt-import" -o cut.dump "$cut"
    expect_rc 3 "$3"
    expect_err_has "$4" "$3: the message"
    run "$BIN/histo" -f tsv cut.dump
    expect_rc 0 "histo of $3's import"
    cut_rows=$out
    run "$BIN/heapfmt-import" --strict -o strict.dump "$cut"
    expect_failure 1 "--strict on $3"
    [ ! -e strict.dump ] && pass || fail "--strict leaves no output"
}

expect_usage_error() {
    local prog=$1 what=$2
    shift 2
    run "$prog" "$@"
    expect_failure 2 "$what"
    expect_err_has "Try '${prog##*/} --help'" "$what"
}

# Debian's python3-pymongo lives in /usr/bin/python3's dist-packages; a
# python3 earlier in PATH (pyenv, a venv) may not see it.
find_bson_python() {
    py=
    local p
    for p in python3 /usr/bin/python3; do
        if command -v "$p" >/dev/null 2>&1 &&
            "$p" -c 'import bson, bson.json_util' >/dev/null 2>&1; then
            py=$p
            return
        fi
    done
}

# expect_indexed_smaller INPUT: heapfmt-import writes INPUT's arrays in
# the indexed form of 1.3 (labels implied by position): the dump (stored
# blocks, so that the codec hides nothing) is smaller than with
# --listed-indexes, and heapfmt-export prints the same edges, index
# labels ("label_kind":"index") included.
expect_indexed_smaller() {
    local in=$1
    run "$BIN/heapfmt-import" --codec=stored -o "$in.indexed" "$in"
    expect_success "$in: import, indexed"
    run "$BIN/heapfmt-import" --codec=stored --listed-indexes -o "$in.listed" "$in"
    expect_success "$in: import --listed-indexes"
    local a b
    a=$(wc -c < "$in.indexed")
    b=$(wc -c < "$in.listed")
    [ "$a" -lt "$b" ] && pass || fail "$in: indexed $a bytes, listed $b: not smaller"
    "$BIN/heapfmt-export" -r edges "$in.indexed" > "$in.indexed.edges" &&
        "$BIN/heapfmt-export" -r edges "$in.listed" > "$in.listed.edges" &&
        cmp -s "$in.indexed.edges" "$in.listed.edges" &&
        grep -q '"label_kind":"index"' "$in.indexed.edges" && pass ||
        fail "$in: heapfmt-export -r edges differs between indexed and listed"
    "$BIN/heapfmt-info" --verify "$in.indexed" >/dev/null && pass ||
        fail "$in: the indexed import does not verify"
}

sanitized_build() {
    nm "$BIN/histo" 2>/dev/null | grep -q '__asan_init'
}

realworld_dir() {
    dir=${REALWORLD_DUMPS:-$PWD/../shared/realworld-dumps}
    if [ ! -d "$dir" ]; then
        echo "SKIP: no real-world dumps ($dir absent; set REALWORLD_DUMPS)"
        exit 0
    fi
    dir=$(cd "$dir" && pwd)
}

finish() {
    if [ "$failures" -gt 0 ]; then
        echo "$failures of $((checks + failures)) checks failed" >&2
        exit 1
    fi
    echo "all $checks checks passed"
    exit 0
}
