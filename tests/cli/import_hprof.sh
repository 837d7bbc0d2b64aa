#!/usr/bin/env bash
# import_hprof.sh -- heapfmt-import on real HPROF dumps written by the
# installed JVM's jmap (tests/java/Leak.java; skipped without a JDK):
# histo of the import equals jmap -histo:live of the same moment, class by
# class; the gzip dump (jmap -dump:gz=) imports to the same heap;
# heapfmt-graph's path to a Leaf goes through the static field Leak.CACHE;
# what only a SoftReference holds is unreachable unless --weak (its
# referent is weak); then pipes, --from, cut and damaged dumps.
. "$(dirname "$0")/lib.bash"

imp=$BIN/heapfmt-import
histo=$BIN/histo
src=$PWD/tests/java
cd "$TMPDIR" || exit 1

for t in javac java jmap; do
    if ! command -v $t >/dev/null 2>&1; then
        echo "SKIP: $t not installed (Debian: openjdk-17-jdk-headless)"
        exit 0
    fi
done

run javac -d . "$src/Leak.java"
expect_success "javac Leak.java"
java -Xmx128m -cp . Leak 1000 500 > ready.txt 2>&1 &
jvm=$!
trap 'kill $jvm 2>/dev/null' EXIT
for _ in $(seq 1 300); do
    grep -q ready ready.txt 2>/dev/null && break
    sleep 0.1
done
grep -q ready ready.txt && pass || fail "the JVM did not get ready: $(cat ready.txt)"

# The histogram and the dumps of one moment (each :live runs a full GC;
# the program allocates nothing after "ready").
run jmap -histo:live $jvm
expect_rc 0 "jmap -histo:live"
printf '%s\n' "$out" > jmap.txt
run jmap -dump:live,format=b,file=leak.hprof $jvm
expect_rc 0 "jmap -dump:live"
run jmap -dump:live,format=b,gz=1,file=leakgz.hprof $jvm
expect_rc 0 "jmap -dump:live,gz=1"
kill $jvm 2>/dev/null
wait $jvm 2>/dev/null

run "$imp" -o leak.dump leak.hprof
expect_success "import an HPROF dump"
# object arrays indexed (1.3): smaller, the same edges and labels
expect_indexed_smaller leak.hprof
expect_import_meta leak.dump "hprof (JAVA PROFILE 1.0.2)" 0
expect_out_has "hotspot compressed" "META jvm.size_model"

# Class by class against jmap: the program's classes (and the arrays
# they made) exactly; every other class with the same bytes per instance
# (its layout), and the same count but for the objects the attach
# mechanism itself may have made between the two commands. java.lang.Class
# is left out: HPROF holds only some of the JVM's class mirrors.
run "$histo" -f tsv -s name leak.dump
expect_success "histo of the import"
printf '%s\n' "$out" > leak.tsv
awk -F '\t' 'NR > 1 { print $3 "\t" $1 "\t" $2 }' leak.tsv > ours.txt
awk '$1 ~ /^[0-9]+:$/ && $4 != "java.lang.Class" { print $4 "\t" $2 "\t" $3 }' \
    jmap.txt > theirs.txt
[ "$(wc -l < theirs.txt)" -gt 100 ] && pass || fail "jmap's histogram: $(wc -l < theirs.txt) classes"
report=$(awk -F '\t' '
    NR == FNR { c[$1] = $2; b[$1] = $3; next }
    {
        n++
        if (!($1 in c)) { printf "missing %s\n", $1; next }
        if ($1 ~ /Leak/ && (c[$1] != $2 || b[$1] != $3)) {
            printf "%s: %s %s, jmap %s %s\n", $1, c[$1], b[$1], $2, $3
            next
        }
        if (b[$1] * $2 != $3 * c[$1]) {
            printf "size of %s: %s/%s, jmap %s/%s\n", $1, b[$1], c[$1], $3, $2
            next
        }
        if (c[$1] == $2) same++
    }
    END { if (same < n * 0.95) printf "counts equal for only %d of %d\n", same, n }
' ours.txt theirs.txt)
[ -z "$report" ] && pass || fail "histo against jmap -histo:live: $report"
count_of() { awk -F '\t' -v c="$2" '$3 == c { print $1 }' "$1"; }
[ "$(count_of leak.tsv 'Leak$Node')" = 1000 ] && pass || fail "1000 Leak\$Node"
[ "$(count_of leak.tsv 'Leak$Leaf')" = 500 ] && pass || fail "500 Leak\$Leaf"

# The gzip dump and the same bytes through a pipe: the same heap.
run "$imp" -o gz.dump leakgz.hprof
expect_success "import jmap's gzip dump"
run bash -c "'$imp' < leak.hprof > pipe.dump"
expect_success "import from a pipe"
run "$imp" --from=hprof -o from.dump leak.hprof
expect_success "--from=hprof"
for d in gz pipe from; do
    run "$histo" -f tsv -s name $d.dump
    [ "$out" = "$(cat leak.tsv)" ] && pass || fail "$d import differs"
done

# Addresses are not identities: heapfmt-diff says so.
run "$BIN/heapfmt-diff" leak.dump gz.dump
expect_rc 0 "heapfmt-diff of two imports"
expect_err_has "ids are not stable" "heapfmt-diff warns that HPROF ids move"

# Why a Leaf is alive: the class Leak's static field CACHE, the map, the
# list. The path's first hop is a GC root; CACHE is a field of a class.
id=$("$BIN/heapfmt-export" -f ndjson leak.dump |
    awk '/"class":"Leak\$Leaf","type":"instance"/ { print; exit }' |
    sed 's/^{"id":"\([^"]*\)".*/\1/')
run "$BIN/heapfmt-graph" path -f tsv leak.dump "$id"
expect_rc 0 "graph path to a Leaf"
printf '%s\n' "$out" > path.tsv
first=$(sed -n 2p path.tsv | cut -f 6)
[ "$first" = "(root)" ] && pass || fail "the path starts at a root: $first"
via=$(awk -F '\t' 'NR > 1 { print prev "->" $4; prev = $6 }' path.tsv |
    grep -c '^java.lang.Class->CACHE$')
[ "$via" = 1 ] && pass || fail "the path goes through the static Leak.CACHE: $(cut -f 4,6 path.tsv | tr '\t\n' ' |')"
last=$(tail -n 1 path.tsv | cut -f 6)
[ "$last" = 'Leak$Leaf' ] && pass || fail "the path ends at the Leaf: $last"

# The Node[3] that only Leak.SOFT's SoftReference holds: its referent is
# weak (as MAT counts it), so nothing holds it, unless --weak.
soft=$("$BIN/heapfmt-export" -f ndjson leak.dump |
    awk '/"class":"\[LLeak\$Node;","type":"object array"/ { print; exit }' |
    sed 's/^{"id":"\([^"]*\)".*/\1/')
run "$BIN/heapfmt-graph" path leak.dump "$soft"
expect_rc 0 "graph path to the softly held array"
expect_err_has "not reachable from any root by strong references" \
    "a soft referent holds nothing"
run "$BIN/heapfmt-graph" path --weak -f tsv leak.dump "$soft"
expect_rc 0 "graph path --weak"
expect_out_has "$(printf 'SOFT\t')" "--weak: through the static Leak.SOFT"
expect_out_has "$(printf 'referent (weak)\t')" "then its referent, marked weak"
run "$BIN/heapfmt-graph" referrers -f tsv leak.dump "$soft"
expect_out_has "$(printf 'java.lang.ref.SoftReference\tinstance')" \
    "referrers lists the SoftReference"

# An instance references its class (heapfmt-graph adds it): the class
# objects of arrays, which no root holds, are reached through their
# instances; [LLeak$Node;'s only instance is the softly held one.
class_obj() { # NAME: the id of the class object of NAME
    "$BIN/heapfmt-export" -f ndjson leak.dump | python3 -c '
import json, sys
for l in sys.stdin:
    d = json.loads(l)
    if d.get("type") == "class" and d.get("value") == sys.argv[1]:
        print(d["id"])
        break' "$1"
}
ints=$(class_obj '[I')
run "$BIN/heapfmt-graph" path -f tsv leak.dump "$ints"
expect_rc 0 "graph path to the class object of int[]"
last=$(printf '%s\n' "$out" | tail -n 1 | cut -f 4,5)
[ "$last" = "$(printf '(class)\t%s' "$ints")" ] && pass ||
    fail "int[]'s class object is reached as an int[]'s class: $last"
nodes=$(class_obj '[LLeak$Node;')
run "$BIN/heapfmt-graph" path leak.dump "$nodes"
expect_err_has "not reachable from any root by strong references" \
    "Node[]'s class: its only instance is held softly"
run "$BIN/heapfmt-graph" path --weak -f tsv leak.dump "$nodes"
expect_out_has "$(printf 'referent (weak)\t')" "--weak: through the referent"
expect_out_has "$(printf '(class)\t%s' "$nodes")" "then as its class"

# --jvm=wide: the sizes of a JVM without compressed references.
run "$imp" --jvm=wide -o wide.dump leak.hprof
expect_success "--jvm=wide"
run "$histo" -f tsv -s name wide.dump
[ "$(printf '%s\n' "$out" | awk -F '\t' '$3 == "Leak$Node" { print $2 }')" = 40000 ] &&
    pass || fail "Leak\$Node without compressed references: 16 + 8 + 8 + 4 + 1 -> 40 bytes"
expect_usage_error "$imp" "--jvm=small" --jvm=small x

# Cut in the heap: what came before is written, exit 3 with a warning.
size=$(wc -c < leak.hprof)
expect_cut_import leak.hprof $((size * 9 / 10)) "a cut dump" \
    "truncated dump: the input ends at byte $((size * 9 / 10))"
got=$(printf '%s\n' "$cut_rows" | awk -F '\t' 'NR > 1 { n += $1 } END { print n + 0 }')
all=$(awk -F '\t' 'NR > 1 { n += $1 } END { print n }' leak.tsv)
[ "$got" -gt $((all / 4)) ] && [ "$got" -lt "$all" ] && pass ||
    fail "a cut dump keeps the objects before the cut: $got of $all"
gzsize=$(wc -c < leakgz.hprof)
head -c $((gzsize * 9 / 10)) leakgz.hprof > cutgz.hprof
run "$imp" -o cutgz.dump cutgz.hprof
expect_rc 3 "a cut gzip dump"
expect_err_has "compressed input ends early" "a cut gzip dump says so"

# A damaged heap record is named by its offset: the first heap dump
# segment's first sub-record tag replaced by one HPROF does not have.
off=$(python3 - leak.hprof <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
i = d.index(b'\0') + 1 + 12
while d[i] not in (0x0c, 0x1c):
    i += 9 + struct.unpack('>I', d[i + 5:i + 9])[0]
print(i + 9)
EOF
)
{ head -c "$off" leak.hprof; printf '\x77'; tail -c +$((off + 2)) leak.hprof; } > bad.hprof
run "$imp" -o bad.dump bad.hprof
expect_rc 1 "a dump damaged before its first object"
expect_err_has "byte $off: heap dump sub-record of unknown tag 0x77" "the damage's offset"

# Not HPROF after all.
printf 'JAVA PROFILE 1.0.2\0\0\0\0\3' > idsize.hprof
head -c 8 /dev/zero >> idsize.hprof
run "$imp" -o x.dump idsize.hprof
expect_failure 1 "an identifier size of 3"
expect_err_has "identifier size 3" "the bad identifier size"
run "$imp" --from=hprof -o x.dump jmap.txt
expect_failure 1 "--from=hprof on text"
expect_err_has "not an HPROF dump" "--from=hprof names what is wrong"

finish
