#!/usr/bin/env bash
# valgrind.sh -- the heapfmt tools under valgrind (`make valgrind`).
#
# Runs every tool that is built over generated dumps (one, two and three
# dumps, every output format, standard input), over the import fixtures,
# and over every tests/fixtures/invalid/*.hfd, each under
#     valgrind --error-exitcode=99 --leak-check=full -q
# A run fails when valgrind reports an error (exit 99: invalid access,
# uninitialised value, leak) or when the tool's exit code is not the
# documented one: for an invalid fixture, derived from its .expect file --
#   open TRUNCATED                       3 (incomplete)
#   open NOT_HEAPFMT, VERSION, CORRUPT   1 (error)
#   read TRUNCATED                       3
#   read CORRUPT / ERROR                 heapfmt-info --verify 1 (a check
#                                        failed); histo --scan, heapfmt-export,
#                                        heapfmt-diff 3; heapfmt-info and histo
#                                        0 or 3 (they may answer from an intact
#                                        footer without reading the blocks)
#
# Environment: BIN (the tools), FIXTURES (tests/fixtures), VALGRIND
# (default valgrind), TMPDIR.
set -u

: "${BIN:?set BIN to the directory of the built tools}"
: "${FIXTURES:?set FIXTURES to tests/fixtures}"
VALGRIND=${VALGRIND:-valgrind}
if ! command -v "$VALGRIND" >/dev/null 2>&1; then
    echo "valgrind.sh: $VALGRIND not found" >&2
    exit 1
fi
if [ ! -x "$BIN/heapfmt-info" ] || [ ! -x "$BIN/heapfmt-gen" ]; then
    echo "valgrind.sh: heapfmt-info and heapfmt-gen must be built" >&2
    exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/heapfmt-valgrind.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

runs=0
failed=0
have() { [ -x "$BIN/$1" ]; }

# vrun "CODES" TOOL ARG... -- runs the tool under valgrind; CODES lists the
# accepted exit codes. Output goes to files; stdin may be redirected by the
# caller.
vrun() {
    local codes=$1 tool=$2
    shift 2
    runs=$((runs + 1))
    "$VALGRIND" --error-exitcode=99 --leak-check=full -q \
        "$BIN/$tool" "$@" >out.txt 2>err.txt
    local rc=$?
    local ok=0 c
    for c in $codes; do
        [ "$rc" -eq "$c" ] && ok=1
    done
    if [ "$rc" -eq 99 ] || [ "$ok" -eq 0 ]; then
        failed=$((failed + 1))
        if [ "$rc" -eq 99 ]; then
            echo "FAIL (valgrind error): $tool $*"
        else
            echo "FAIL (exit $rc, expected $codes): $tool $*"
        fi
        sed -n '1,40p' err.txt | sed 's/^/    /'
    fi
}

# ---- generated dumps ----
vrun 0 heapfmt-gen -n 3000 -s 1 --block-size 4096 -o a.dump
vrun 0 heapfmt-gen -n 3000 -s 2 --block-size 4096 -o b.dump
vrun 0 heapfmt-gen -n 2000 -s 3 -l 0 --no-sites -o c.dump
for d in a.dump c.dump; do
    vrun 0 heapfmt-info "$d"
    vrun 0 heapfmt-info --verify "$d"
done
vrun 0 heapfmt-info --verify - <a.dump
if have histo; then
    vrun 0 histo a.dump
    vrun 0 histo --scan --by=site a.dump
    vrun 0 histo -f json a.dump b.dump
    vrun 0 histo -f csv a.dump b.dump c.dump
    vrun 0 histo - <c.dump
fi
if have heapfmt-diff; then
    vrun 0 heapfmt-diff a.dump b.dump
    vrun 0 heapfmt-diff -l -f json a.dump b.dump
    vrun 0 heapfmt-diff a.dump b.dump c.dump
fi
if have heapfmt-export; then
    vrun 0 heapfmt-export -r all a.dump
    vrun 0 heapfmt-export -f json c.dump
    vrun 0 heapfmt-export -f mongo -r all -t run1 - <a.dump
fi

# ---- ObjectSpace.dump_all imports ----
if have heapfmt-import; then
    for j in "$FIXTURES"/import/*.json; do
        case $(basename "$j") in
        malformed.json | truncated.json) code=3 ;;
        *) code=0 ;;
        esac
        vrun "$code" heapfmt-import -o imported.dump "$j"
        vrun 0 heapfmt-info --verify imported.dump
        vrun "$code" heapfmt-import --one-pass -l 0 -o - "$j" >/dev/null
    done
fi

# ---- invalid fixtures ----
for f in "$FIXTURES"/invalid/*.hfd; do
    expect=$(cat "${f%.hfd}.expect")
    case $expect in
    "open HEAPFMT_E_TRUNCATED"*) all=3 ;;
    open*) all=1 ;;
    "read HEAPFMT_E_TRUNCATED"*) all=3 ;;
    *) all= ;;
    esac
    if [ -n "$all" ]; then
        vrun "$all" heapfmt-info "$f"
        vrun "$all" heapfmt-info --verify "$f"
        have histo && vrun "$all" histo --scan "$f"
        have heapfmt-export && vrun "$all" heapfmt-export -r all "$f"
        have heapfmt-diff && vrun "$all" heapfmt-diff a.dump "$f"
    else
        vrun "0 3" heapfmt-info "$f"
        vrun 1 heapfmt-info --verify "$f"
        have histo && vrun "0 3" histo "$f"
        have histo && vrun 3 histo --scan "$f"
        have heapfmt-export && vrun 3 heapfmt-export -r all "$f"
        have heapfmt-diff && vrun 3 heapfmt-diff a.dump "$f"
    fi
done

echo "valgrind: $runs runs, $failed failed"
[ "$failed" -eq 0 ]
