#!/usr/bin/env bash
# export_labels.sh -- heapfmt-export on format 1.1 dumps with labeled
# references and call stacks: ref_labels, stack and the label fields of
# edges; bounded documents; dumps without them unchanged.
#
# The dumps are written by a small C program built here against the
# library of this build (no tool writes labels or stacks yet).
. "$(dirname "$0")/lib.bash"

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
exp=$BIN/heapfmt-export
gen=$BIN/heapfmt-gen
lib_a=$BIN/../lib/libheapfmt.a
cd "$TMPDIR" || exit 1

if ! command -v "${CC:-cc}" >/dev/null 2>&1; then
    echo "SKIP: no C compiler to write the test dumps"
    exit 0
fi
libs="-lz -pthread"
nm "$lib_a" 2>/dev/null | grep -q ' U ZSTD_' && libs="-lzstd $libs"
san=
nm "$lib_a" 2>/dev/null | grep -q ' __asan_' && san="-fsanitize=address,undefined"
nm "$lib_a" 2>/dev/null | grep -q ' __ubsan_' && [ -z "$san" ] && san="-fsanitize=undefined"

cat >mklabels.c <<'C'
/* Writes a dump with labels and stacks: mklabels OUT [big] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "heapfmt.h"

#define CHECK(e) do { int rc_ = (e); if (rc_ != HEAPFMT_OK) { \
    fprintf(stderr, "%s: %s\n", #e, heapfmt_strerror(rc_)); exit(1); } } while (0)

static uint32_t str(heapfmt_writer *w, const char *s)
{
    uint32_t id;
    CHECK(heapfmt_write_string(w, s, strlen(s), &id));
    return id;
}

int main(int argc, char **argv)
{
    heapfmt_writer *w;
    CHECK(heapfmt_writer_open_path(&w, NULL, argv[1]));
    int big = argc > 2;
    heapfmt_class c = {0x1000, "Node", 4, 0, 0};
    CHECK(heapfmt_write_class(w, &c));
    uint32_t t = str(w, "T_OBJECT");
    heapfmt_frame fr = {str(w, "rb_ary_push"), str(w, "libruby.so.3.1"), 0x1234,
                        str(w, "array.c"), 42};
    heapfmt_frame fr2 = {str(w, "main"), 0, 0, 0, 0};
    uint32_t f1, f2, stack;
    CHECK(heapfmt_write_frame(w, &fr, &f1));
    CHECK(heapfmt_write_frame(w, &fr2, &f2));
    uint32_t frames[2] = {f1, f2};
    CHECK(heapfmt_write_stack(w, frames, 2, &stack));
    uint64_t refs[6] = {0x2000, 0x2008, 0x2010, 0x2018, 0x2020, 0x2028};
    heapfmt_label labels[6] = {
        {HEAPFMT_LABEL_FIELD, 0, str(w, "@left")},
        {HEAPFMT_LABEL_INDEX, 0, 7},
        {HEAPFMT_LABEL_KEY, 1, str(w, ":name")},
        {HEAPFMT_LABEL_NONE, 0, 0},
        {HEAPFMT_LABEL_NONE, 1, 0},
        {HEAPFMT_LABEL_CONSTANT, 0, str(w, "Foo")},
    };
    heapfmt_object o;
    memset(&o, 0, sizeof o);
    o.id = 0x2000; o.class_id = 0x1000; o.type = t; o.size = 40;
    o.fields = HEAPFMT_F_LABELS | HEAPFMT_F_STACK;
    o.refs = refs; o.nrefs = 6; o.labels = labels; o.stack = stack;
    CHECK(heapfmt_write_object(w, &o));
    /* no labels, no stack */
    o.id = 0x2008; o.fields = 0; o.nrefs = 2; o.labels = NULL;
    CHECK(heapfmt_write_object(w, &o));
    /* a stack only */
    o.id = 0x2010; o.fields = HEAPFMT_F_STACK; o.nrefs = 0;
    CHECK(heapfmt_write_object(w, &o));
    heapfmt_label gl[2] = {{HEAPFMT_LABEL_GLOBAL, 0, str(w, "$stdout")},
                           {HEAPFMT_LABEL_OTHER, 0, str(w, "vm")}};
    CHECK(heapfmt_write_root_labeled(w, str(w, "global_tbl"), refs, gl, 2));
    if (big) {
        /* 100,000 references with 4 KiB labels, a deep stack of long
         * names: both over the budget. */
        size_t n = 100000, nl = 2000;
        uint64_t *br = malloc(n * sizeof *br);
        heapfmt_label *bl = malloc(n * sizeof *bl);
        char *name = malloc(5000);
        uint32_t *ids = malloc(nl * sizeof *ids);
        for (size_t i = 0; i < nl; i++) {
            memset(name, 0xff, 4200); /* invalid UTF-8: 3 bytes each */
            snprintf(name, 20, "k%zu", i);
            name[strlen(name)] = (char)0xff;
            CHECK(heapfmt_write_string(w, name, 4200, &ids[i]));
        }
        for (size_t i = 0; i < n; i++) {
            br[i] = 0x10000 + 8 * i;
            bl[i] = (heapfmt_label){HEAPFMT_LABEL_KEY, i & 1, ids[i % nl]};
        }
        uint32_t deep[HEAPFMT_MAX_FRAMES];
        for (size_t i = 0; i < HEAPFMT_MAX_FRAMES; i++) {
            heapfmt_frame f = {ids[i % nl], ids[(i + 1) % nl], i, ids[(i + 2) % nl], i};
            CHECK(heapfmt_write_frame(w, &f, &deep[i]));
        }
        CHECK(heapfmt_write_stack(w, deep, HEAPFMT_MAX_FRAMES, &stack));
        o.id = 0x3000; o.fields = HEAPFMT_F_LABELS | HEAPFMT_F_STACK | HEAPFMT_F_VALUE;
        o.refs = br; o.nrefs = n; o.labels = bl; o.stack = stack;
        size_t huge = (1u << 20) + 100;
        char *h = malloc(huge);
        memset(h, 0xff, huge);
        uint32_t ht, hf;
        CHECK(heapfmt_write_string(w, h, huge, &ht));
        h[0] = 'f';
        CHECK(heapfmt_write_string(w, h, huge, &hf));
        h[0] = 'C';
        heapfmt_class hc = {0x1008, h, huge, 0, 0};
        CHECK(heapfmt_write_class(w, &hc));
        h[0] = (char)0xff;
        o.class_id = 0x1008; o.type = ht; o.file = hf; o.line = 1;
        o.fields |= HEAPFMT_F_SITE | HEAPFMT_F_GENERATION | HEAPFMT_F_FLAGS;
        o.flags = ~0ull; o.generation = ~0ull; o.size = ~0ull;
        o.value = h; o.value_len = huge;
        CHECK(heapfmt_write_object(w, &o));
        free(h);
        free(ids);
        free(name);
        free(bl);
        free(br);
    }
    CHECK(heapfmt_writer_finish(w));
    heapfmt_writer_free(w);
    return 0;
}
C
# shellcheck disable=SC2086
run "${CC:-cc}" -std=c11 -O1 $san -I"$repo/libheapfmt" mklabels.c "$lib_a" $libs -o mklabels
expect_success "build the dump writer"
run ./mklabels l.dump
expect_success "write a dump with labels and stacks"

# Objects: ref_labels parallel to refs, stack with the members known.
run "$exp" l.dump
expect_success "export objects"
first=$(printf '%s\n' "$out" | head -n 1)
want='{"id":"0x0000000000002000","class":"Node","type":"T_OBJECT","bytes":40,"refs":["0x0000000000002000","0x0000000000002008","0x0000000000002010","0x0000000000002018","0x0000000000002020","0x0000000000002028"],"ref_labels":[{"label":"@left","label_kind":"field"},{"label":7,"label_kind":"index"},{"label":":name","label_kind":"key","weak":true},null,{"weak":true},{"label":"Foo","label_kind":"constant"}],"stack":[{"function":"rb_ary_push","library":"libruby.so.3.1","offset":4660,"file":"array.c","line":42},{"function":"main"}]}'
[ "$first" = "$want" ] && pass || fail "labeled object: got $first"
second=$(printf '%s\n' "$out" | sed -n 2p)
case $second in
*ref_labels* | *stack* | *label*) fail "object without labels: $second" ;;
*) pass ;;
esac
third=$(printf '%s\n' "$out" | sed -n 3p)
case $third in
*'"refs":[],"stack":[{"function":"rb_ary_push"'*) pass ;;
*) fail "object with a stack only: $third" ;;
esac

# Edges and roots carry the labels too.
run "$exp" -r edges,roots l.dump
expect_success "export edges and roots"
expect_out_has '{"record":"edge","from":"0x0000000000002000","to":"0x0000000000002008","label":7,"label_kind":"index"}' "index label on an edge"
expect_out_has '"to":"0x0000000000002010","label":":name","label_kind":"key","weak":true}' "weak key label on an edge"
expect_out_has '{"record":"edge","from":"0x0000000000002000","to":"0x0000000000002018"}' "unlabeled reference of a labeled object"
expect_out_has '"to":"0x0000000000002020","weak":true}' "weak reference without label"
expect_out_has '{"record":"edge","root":"global_tbl","to":"0x0000000000002000","label":"$stdout","label_kind":"global"}' "root edge label"
expect_out_has '"ref_labels":[{"label":"$stdout","label_kind":"global"},{"label":"vm","label_kind":"other"}]' "root ref_labels"
run "$exp" -r edges l.dump
[ "$(printf '%s\n' "$out" | grep -c '"from":"0x0000000000002008"')" = 2 ] &&
    ! printf '%s\n' "$out" | grep '"from":"0x0000000000002008"' | grep -q label &&
    pass || fail "edges of an object without labels"

# Mongo: Int64 labels; json: one valid value.
run "$exp" -f mongo -r all l.dump
expect_success "mongo"
expect_out_has '{"label":{"$numberLong":"7"},"label_kind":"index"}' "mongo index label"
expect_out_has '"offset":{"$numberLong":"4660"}' "mongo frame offset"
run "$exp" -f json -r all -o l.json l.dump
expect_success "json"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' l.json && pass ||
        fail "json output does not parse"
fi

# Dumps without labels or stacks have none of the new fields.
run "$gen" -n 3000 --no-labels -o plain.dump
run "$exp" -r all plain.dump
expect_success "export a dump without labels"
case $out in
*label* | *'"stack"'*) fail "label or stack fields in a dump without them" ;;
*) pass ;;
esac

# A huge object: 100,000 references with 4 KiB labels, 4096 frames of long
# names, four 1 MiB texts of invalid UTF-8: cut to stay under 16 MiB.
run ./mklabels big.dump big
expect_success "write the huge object"
run "$exp" -f mongo -t abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij1234 -o big.mongo big.dump
expect_success "export the huge object"
last=$(tail -n 1 big.mongo)
case $last in
*'"ref_labels_truncated":true'*'"stack_truncated":true'*) pass ;;
*) fail "huge object: no truncation flags" ;;
esac
find_bson_python
if [ -n "$py" ]; then
    run "$py" - big.mongo <<'PY'
import sys, bson, bson.json_util as ju
for line in open(sys.argv[1]):
    doc = ju.loads(line)
    size = len(bson.encode(doc))
    assert size < 16 * 1024 * 1024, (doc["id"], size)
print(size)
PY
    expect_success "every mongo document under 16 MiB (bson)"
else
    echo "note: no python3 with bson; the BSON size is not checked"
fi

finish
