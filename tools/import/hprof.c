/* hprof.c -- Java HPROF heap dumps to heapfmt records (hprof.h).
 *
 * The format (OpenJDK's hprof_b_spec / heapDumper.cpp): a header
 * "JAVA PROFILE 1.0.x\0", u4 id size, u8 time in ms; then records of
 * u1 tag, u4 time, u4 length, body. Big-endian. The heap is in HEAP DUMP
 * (0x0c) and HEAP DUMP SEGMENT (0x1c) records, a sequence of sub-records
 * with no length of their own: each is parsed to find the next, so a byte
 * this file does not understand ends the reading (what came before is
 * written, the import is incomplete). */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_grow.h"
#include "fit.h"
#include "import_status.h"
#include "hf_common.h"
#include "hprof.h"
#include "hprof_android.h"
#include "jescape.h"
#include "jscan.h"
#include "jvm_layout.h"
#include "meta.h"

/* Top-level record tags. */
enum {
    TAG_UTF8 = 0x01,
    TAG_LOAD_CLASS = 0x02,
    TAG_CONTROL_SETTINGS = 0x0e, /* written by the hprof agent only */
    TAG_HEAP_DUMP = 0x0c,
    TAG_HEAP_DUMP_SEGMENT = 0x1c,
    TAG_HEAP_DUMP_END = 0x2c
};

/* Heap dump sub-record tags. */
enum {
    SUB_ROOT_UNKNOWN = 0xff,
    SUB_ROOT_JNI_GLOBAL = 0x01,
    SUB_ROOT_JNI_LOCAL = 0x02,
    SUB_ROOT_JAVA_FRAME = 0x03,
    SUB_ROOT_NATIVE_STACK = 0x04,
    SUB_ROOT_STICKY_CLASS = 0x05,
    SUB_ROOT_THREAD_BLOCK = 0x06,
    SUB_ROOT_MONITOR_USED = 0x07,
    SUB_ROOT_THREAD_OBJECT = 0x08,
    SUB_CLASS_DUMP = 0x20,
    SUB_INSTANCE_DUMP = 0x21,
    SUB_OBJ_ARRAY_DUMP = 0x22,
    SUB_PRIM_ARRAY_DUMP = 0x23
};

/* Basic types (field and array element types). */
enum {
    T_OBJECT = 2,
    T_BOOLEAN = 4,
    T_CHAR = 5,
    T_FLOAT = 6,
    T_DOUBLE = 7,
    T_BYTE = 8,
    T_SHORT = 9,
    T_INT = 10,
    T_LONG = 11,
    T_LAST = 11
};

#define HP_NONE UINT32_MAX         /* no string, no class */
#define HP_MAX_NAME 4096           /* bytes of a UTF8 record kept */
#define HP_ROOT_BATCH 4096         /* roots of one kind in one ROOT record */
#define HP_MAX_DEPTH 64            /* classes in a chain (java.lang.Object
                                      included) whose instances are
                                      decoded: a class keeps the reference
                                      slots of its whole chain, so memory
                                      grows with depth x fields; the JDK's
                                      deepest chains have about 10 */
#define HP_LISTED 8                /* dumps whose offsets a message lists */
#define HP_PRIM_CLASS(t) ((uint64_t)(t)) /* class ids of primitive arrays
                                    never named by LOAD CLASS (addresses
                                    are never this small) */

/* A primitive type's size in the JVM (and in HPROF), 0 if not a type. */
static unsigned prim_size(unsigned t)
{
    static const unsigned char size[T_LAST + 1] = {
        [T_BOOLEAN] = 1, [T_CHAR] = 2, [T_FLOAT] = 4, [T_DOUBLE] = 8,
        [T_BYTE] = 1,    [T_SHORT] = 2, [T_INT] = 4,  [T_LONG] = 8};
    return t <= T_LAST ? size[t] : 0;
}

static const char *const prim_array_name[T_LAST + 1] = {
    [T_BOOLEAN] = "[Z", [T_CHAR] = "[C", [T_FLOAT] = "[F", [T_DOUBLE] = "[D",
    [T_BYTE] = "[B",    [T_SHORT] = "[S", [T_INT] = "[I",  [T_LONG] = "[J"};

/* The same classes as ART names them (Java's own spelling). */
static const char *const art_array_name[T_LAST + 1] = {
    [T_BOOLEAN] = "boolean[]", [T_CHAR] = "char[]",   [T_FLOAT] = "float[]",
    [T_DOUBLE] = "double[]",   [T_BYTE] = "byte[]",   [T_SHORT] = "short[]",
    [T_INT] = "int[]",         [T_LONG] = "long[]"};

/* An instance field as the CLASS DUMP declares it. */
typedef struct hp_field {
    uint32_t name; /* string index, HP_NONE */
    uint8_t type;
} hp_field;

/* A reference in an instance's field bytes (the whole class chain). */
typedef struct hp_slot {
    uint32_t off;  /* byte offset in the instance's field data */
    uint32_t name; /* string index of the field name, HP_NONE */
    uint32_t weak; /* java.lang.ref.Reference.referent: a weak reference */
} hp_slot;

/* A UTF8 record's text in hp.text. */
typedef struct hp_str {
    uint64_t off;
    uint32_t len;
    uint32_t sid; /* the writer's string id, 0 until first used */
} hp_str;

enum { LAID_NOT = 0, LAID_OK = 1, LAID_FAILED = 2 };

typedef struct hp_class {
    uint64_t id, super_id;
    uint32_t name;              /* string index (LOAD CLASS), HP_NONE */
    uint32_t fields_at, nfields; /* in hp.fields */
    uint8_t dumped;             /* its CLASS DUMP was read: fields known */
    uint8_t written;            /* its CLASS record and object written */
    uint8_t laid;               /* LAID_*: layout, size and slots */
    uint64_t failed_at;         /* LAID_FAILED: hp.dumps then (tried
                                   again after more CLASS DUMPs) */
    uint32_t depth;             /* LAID_OK: classes in its chain */
    uint32_t dump_size;         /* the instance size its CLASS DUMP states
                                   (HotSpot: its field bytes; ART: its
                                   object size, header included) */
    uint32_t data_len;          /* field bytes of an instance in HPROF */
    uint32_t slots_at, nslots;  /* in hp.slots */
    uint64_t size;              /* instance bytes as the JVM counts them */
    jl_layout lay;
} hp_class;

/* A class object read, not written yet (write_pending). */
typedef struct hp_pending {
    uint32_t ci;
    uint32_t nrefs;
    uint64_t refs_at; /* in hp.pref, hp.plab */
    uint64_t statics; /* bytes of the static fields in the mirror */
} hp_pending;

typedef struct hp {
    heapfmt_writer *w;
    const import_options *opt;
    import_stats *st;
    const jl_model *model;
    lr r;
    unsigned idsz;
    uint64_t seg_left; /* bytes left in the heap dump record being read */
    int in_seg;
    int end_due;      /* a segment was read: HEAP DUMP END must follow */

    /* passes: a regular file is read twice, the first time for the
     * classes only (instances may come before their class), quietly */
    int pass;         /* 0 the only pass (a pipe), 1 classes, 2 the rest */
    int meta_done;    /* META written (before the first heap record) */
    char version[32]; /* "JAVA PROFILE 1.0.2" */

    /* heap dumps: a HEAP DUMP record, or HEAP DUMP SEGMENTs up to their
     * HEAP DUMP END, is one; only one of them is imported */
    unsigned want;        /* the one imported, 1-based */
    unsigned ndumps;      /* begun so far */
    unsigned total;       /* all of them (after pass 1), 0 unknown */
    int seg_open;         /* in a dump of segments not ended yet */
    uint64_t dump_at[HP_LISTED]; /* where the first ones begin */

    /* the object layout model: --jvm, else from the dump */
    int agent;            /* CONTROL SETTINGS: the hprof agent wrote it,
                             its ids are serial numbers, not addresses */
    const char *model_how; /* how the model was chosen, for META */
    /* model votes: an array that ends where the next object begins
     * under model k (HotSpot writes objects in address order) */
    uint64_t prev_id;
    uint64_t prev_size[4];
    int prev_array;
    uint64_t votes[4], voted;

    /* UTF8 records: id -> index; text in one buffer */
    hf_map str_of;
    hp_str *str;
    size_t nstr, strcap;
    char *text;
    size_t textlen, textcap;

    /* classes: class object id -> index */
    hf_map class_of;
    hp_class *cls;
    size_t ncls, clscap;
    hp_field *fields;
    size_t nfields, fieldcap;
    hp_slot *slots;
    size_t nslots, slotcap;
    uint64_t dumps;                  /* CLASS DUMPs read */
    uint64_t class_class;            /* java.lang.Class's id, 0 unknown */
    uint64_t prim_class[T_LAST + 1]; /* [I, [B...: class ids */
    int prim_written[T_LAST + 1];

    /* class objects waiting for write_pending, their references */
    hp_pending *pend;
    size_t npend, pendcap;
    uint64_t *pref;
    heapfmt_label *plab;
    size_t npref, prefcap;

    /* one record's references */
    uint64_t *refs;
    heapfmt_label *labels;
    size_t rcap;
    uint32_t *chain; /* class indexes, for layouts */
    size_t chaincap;

    /* roots waiting for their ROOT record */
    int root_kind;
    uint64_t root_ids[HP_ROOT_BATCH];
    size_t nroots;
    uint32_t root_sid[256];

    uint32_t sid_instance, sid_objarray, sid_primarray, sid_class;
    uint32_t sid_super, sid_loader;

    /* Android: its heaps, roots and made-up objects (hprof_android.h);
     * NULL for HotSpot's dumps */
    hpa *android;
    const char *android_how; /* how it was recognised, for META */
    int art_late;            /* an ART dump hprof-conv converted, seen only
                                after objects were sized (one pass) */

    /* counted problems */
    uint64_t undecoded;   /* instances whose class was not dumped before */
    uint64_t bad_length;  /* instances whose bytes disagree with the class */
    uint64_t dup_classes; /* CLASS DUMPs of a class dumped before */

    int stopped;
    int writer_rc;  /* a writer failure: the import fails */
    char msg[512];
} hp;

/* ------------------------------------------------------------------ */
/* Diagnostics                                                         */
/* ------------------------------------------------------------------ */

#define say(m, kind, ...)                                                  \
    do {                                                                   \
        if ((m)->pass != 1)                                                \
            import_say((m)->opt, (m)->msg, sizeof (m)->msg, (kind), 0,     \
                       __VA_ARGS__);                                       \
    } while (0)

/* The reading steps return IMP_OK or IMP_STOP (status.h). */

/* The Android section's ways in, for the steps before it. */
static int android_write(hp *m, heapfmt_object *o, size_t nrefs);
static int android_root(hp *m, int tag, uint64_t id);
static int android_detect(hp *m, uint32_t ci);
static uint64_t android_class_bytes(hp *m, uint64_t cid, uint64_t statics);
static uint64_t android_instance_size(hp *m, uint64_t class_id, uint32_t len,
                                      uint64_t size);
static int write_pending(hp *m);
static uint64_t android_prim_class(hp *m, unsigned t);

/* The input ends inside a record (or its gzip stream is cut or damaged,
 * or cannot be read): what came before is kept. */
static int cut(hp *m, const char *where)
{
    m->stopped = 1;
    lr *r = &m->r;
    if (r->error == IMP_READ) {
        say(m, IMPORT_DIAG_ERROR, "read error: %s", strerror(r->sys_errno));
        m->writer_rc = HEAPFMT_E_IO;
        return IMP_STOP;
    }
    if (r->error == IMP_NOMEM) {
        say(m, IMPORT_DIAG_ERROR, "out of memory");
        m->writer_rc = HEAPFMT_E_NOMEM;
        return IMP_STOP;
    }
    m->st->truncated = 1;
    int kind = m->opt->strict ? IMPORT_DIAG_ERROR : IMPORT_DIAG_WARNING;
    if (r->error == IMP_CORRUPT || r->error == IMP_CUT)
        say(m, kind, "byte %llu (in %s): %s",
            (unsigned long long)lr_offset(r), where, r->message);
    else
        /* the end of the input, not where the cut record began: the
         * bytes between are read but belong to no whole record */
        say(m, kind, "truncated dump: the input ends at byte %llu (in %s)",
            (unsigned long long)r->bytes_decoded, where);
    return IMP_STOP;
}

/* A record this importer cannot read on from, at byte off. */
static int corrupt(hp *m, uint64_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int corrupt(hp *m, uint64_t off, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    m->stopped = 1;
    m->st->malformed++;
    say(m, IMPORT_DIAG_ERROR, "byte %llu: %s", (unsigned long long)off, what);
    return IMP_STOP;
}

static int writer_failed(hp *m, int rc)
{
    say(m, IMPORT_DIAG_ERROR, "cannot write the dump: %s",
        import_writer_message(m->w, rc));
    m->writer_rc = rc;
    m->stopped = 1;
    return IMP_STOP;
}

static int no_memory(hp *m)
{
    say(m, IMPORT_DIAG_ERROR, "out of memory");
    m->writer_rc = HEAPFMT_E_NOMEM;
    m->stopped = 1;
    return IMP_STOP;
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

/* n bytes of the input, consumed; NULL at the end of the input (cut() has
 * not been called: the caller names where). Inside a heap dump record, n
 * must fit in what is left of it (the caller checks). */
static const uint8_t *take(hp *m, size_t n)
{
    if (lr_need(&m->r, n) < n)
        return NULL;
    const uint8_t *p = lr_bytes(&m->r);
    lr_take(&m->r, n);
    if (m->in_seg)
        m->seg_left -= n;
    return p;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

static uint64_t be_id(const hp *m, const uint8_t *p)
{
    if (m->idsz == 4)
        return be32(p);
    return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* The bytes of a value of basic type t in HPROF. */
static unsigned value_size(const hp *m, unsigned t)
{
    return t == T_OBJECT ? m->idsz : prim_size(t);
}

/* Takes n bytes of the current heap sub-record. */
static const uint8_t *take_sub(hp *m, size_t n, uint64_t start,
                               const char *what, int *rc)
{
    if (n > m->seg_left) {
        *rc = corrupt(m, start, "%s runs past the end of its heap dump "
                      "record (%llu bytes left)", what,
                      (unsigned long long)m->seg_left);
        return NULL;
    }
    const uint8_t *p = take(m, n);
    if (!p)
        *rc = cut(m, what);
    return p;
}

/* Skips n bytes of the current heap sub-record. */
static int skip_sub(hp *m, uint64_t n, uint64_t start, const char *what)
{
    if (n > m->seg_left)
        return corrupt(m, start, "%s runs past the end of its heap dump "
                       "record (%llu bytes left)", what,
                       (unsigned long long)m->seg_left);
    uint64_t got = lr_skip(&m->r, n);
    m->seg_left -= got;
    return got < n ? cut(m, what) : IMP_OK;
}

/* ------------------------------------------------------------------ */
/* Names and classes                                                   */
/* ------------------------------------------------------------------ */

/* The text of string index i (NULL, 0 for HP_NONE). */
static const char *str_text(const hp *m, uint32_t i, size_t *len)
{
    if (i == HP_NONE || i >= m->nstr) {
        *len = 0;
        return NULL;
    }
    *len = m->str[i].len;
    return m->text + m->str[i].off;
}

static uint32_t str_index(const hp *m, uint64_t id)
{
    uint32_t i;
    return hf_map_get(&m->str_of, id, &i) ? i : HP_NONE;
}

/* The writer's id of string index i, interned on first use; 0 for none. */
static int str_sid(hp *m, uint32_t i, uint32_t *sid)
{
    *sid = 0;
    if (i == HP_NONE || i >= m->nstr)
        return HEAPFMT_OK;
    hp_str *t = &m->str[i];
    if (t->sid == 0) {
        int rc = heapfmt_write_string(m->w, m->text + t->off, t->len, &t->sid);
        if (rc != HEAPFMT_OK)
            return rc;
    }
    *sid = t->sid;
    return HEAPFMT_OK;
}

/* A class's index, created on first mention. */
static int class_index(hp *m, uint64_t id, uint32_t *ci)
{
    if (hf_map_get(&m->class_of, id, ci))
        return 0;
    if (m->ncls >= HP_NONE - 1 || GROW(m->cls, m->clscap, m->ncls) != 0)
        return -1;
    hp_class *c = &m->cls[m->ncls];
    memset(c, 0, sizeof *c);
    c->id = id;
    c->name = HP_NONE;
    if (hf_map_put(&m->class_of, hf_default_allocator(), id,
                   (uint32_t)m->ncls) != 0)
        return -1;
    *ci = (uint32_t)m->ncls++;
    return 0;
}

static int text_is(const char *p, size_t n, const char *s)
{
    return strlen(s) == n && memcmp(p, s, n) == 0;
}

/* UTF8: id, then the text (kept up to HP_MAX_NAME bytes). */
static int read_utf8(hp *m, uint64_t len, uint64_t start)
{
    if (len < m->idsz)
        return corrupt(m, start, "UTF8 record of %llu bytes, shorter than "
                       "an id", (unsigned long long)len);
    const uint8_t *p = take(m, m->idsz);
    if (!p)
        return cut(m, "a UTF8 record");
    uint64_t id = be_id(m, p);
    uint64_t n = len - m->idsz;
    size_t keep = n > HP_MAX_NAME ? HP_MAX_NAME : (size_t)n;
    if (!(p = take(m, keep)))
        return cut(m, "a UTF8 record");
    if (m->nstr >= HP_NONE - 1 ||
        GROW(m->str, m->strcap, m->nstr) != 0 ||
        cli_grow((void **)&m->text, &m->textcap, m->textlen + keep + 1,
                 1) != 0)
        return no_memory(m);
    memcpy(m->text + m->textlen, p, keep);
    m->str[m->nstr].off = m->textlen;
    m->str[m->nstr].len = (uint32_t)keep;
    m->str[m->nstr].sid = 0;
    m->textlen += keep;
    if (hf_map_put(&m->str_of, hf_default_allocator(), id,
                   (uint32_t)m->nstr) != 0)
        return no_memory(m);
    m->nstr++;
    if (lr_skip(&m->r, n - keep) < n - keep)
        return cut(m, "a UTF8 record");
    return IMP_OK;
}

/* Names a class as jmap prints it: '/' becomes '.'. Rewrites the text in
 * place (a name is only ever used dotted). */
static void dot_name(hp *m, uint32_t si)
{
    size_t n;
    char *p = (char *)str_text(m, si, &n);
    for (size_t i = 0; i < n; i++)
        if (p[i] == '/')
            p[i] = '.';
}

/* LOAD CLASS: serial, class id, stack serial, name id. */
static int read_load_class(hp *m, uint64_t len, uint64_t start)
{
    if (len != 8 + 2 * (uint64_t)m->idsz)
        return corrupt(m, start, "LOAD CLASS record of %llu bytes (expected "
                       "%u)", (unsigned long long)len, 8 + 2 * m->idsz);
    const uint8_t *p = take(m, (size_t)len);
    if (!p)
        return cut(m, "a LOAD CLASS record");
    uint64_t id = be_id(m, p + 4);
    uint32_t si = str_index(m, be_id(m, p + 8 + m->idsz)), ci;
    if (class_index(m, id, &ci) != 0)
        return no_memory(m);
    if (si == HP_NONE || m->cls[ci].name != HP_NONE)
        return IMP_OK;
    dot_name(m, si);
    m->cls[ci].name = si;
    size_t n;
    const char *name = str_text(m, si, &n);
    if (text_is(name, n, "java.lang.Class"))
        m->class_class = id;
    for (unsigned t = 0; t <= T_LAST; t++)
        if (prim_array_name[t] && text_is(name, n, prim_array_name[t]))
            m->prim_class[t] = id;
    return IMP_OK;
}

/* ------------------------------------------------------------------ */
/* Layouts                                                             */
/* ------------------------------------------------------------------ */

/* Marks class ci and the n classes of m->chain as not laid out: tried
 * again after the next CLASS DUMP (a superclass may come), unless
 * forever (a cycle, a layout too large). */
static void not_laid(hp *m, uint32_t ci, size_t n, int forever)
{
    uint64_t at = forever ? UINT64_MAX : m->dumps;
    for (size_t j = 0; j < n; j++) {
        m->cls[m->chain[j]].laid = LAID_FAILED;
        m->cls[m->chain[j]].failed_at = at;
    }
    m->cls[ci].laid = LAID_FAILED;
    m->cls[ci].failed_at = at;
}

/* Lays class ci out, and its superclasses first: its JVM instance size,
 * its HPROF field bytes and where its references are in them. Returns 1
 * when it is laid out, 0 when it cannot be (yet), -1 out of memory. */
static int lay_out(hp *m, uint32_t ci)
{
    hp_class *k0 = &m->cls[ci];
    if (k0->laid == LAID_OK)
        return 1;
    if (k0->laid == LAID_FAILED &&
        (k0->failed_at == UINT64_MAX || k0->failed_at == m->dumps))
        return 0;
    /* the chain up to the first class laid out already (or the top) */
    size_t n = 0;
    for (uint32_t c = ci;;) {
        hp_class *k = &m->cls[c];
        if (k->laid == LAID_OK) {
            if (k->depth + n > HP_MAX_DEPTH) {
                not_laid(m, ci, n, 1);
                return 0;
            }
            break;
        }
        if (!k->dumped || n >= m->ncls || n >= HP_MAX_DEPTH) {
            /* a class to come, or a chain too deep (a cycle among them) */
            not_laid(m, ci, n, k->dumped);
            return 0;
        }
        if (GROW(m->chain, m->chaincap, n))
            return -1;
        m->chain[n++] = c;
        if (k->super_id == 0)
            break;
        uint32_t s;
        if (!hf_map_get(&m->class_of, k->super_id, &s)) {
            not_laid(m, ci, n, 0);
            return 0;
        }
        c = s;
    }
    /* from the top down */
    for (size_t j = n; j-- > 0;) {
        hp_class *k = &m->cls[m->chain[j]];
        const hp_class *sup = NULL;
        uint32_t s;
        if (k->super_id != 0 && hf_map_get(&m->class_of, k->super_id, &s))
            sup = &m->cls[s]; /* laid out: the step before, or the loop's end */
        /* the JVM layout: declared fields and the VM's injected ones */
        size_t cn;
        const char *cname = str_text(m, k->name, &cn);
        jl_field *f = malloc((k->nfields + JL_MAX_INJECTED) * sizeof *f);
        if (!f)
            return -1;
        uint32_t data = sup ? sup->data_len : 0, nref = 0;
        for (uint32_t i = 0; i < k->nfields; i++) {
            const hp_field *fd = &m->fields[k->fields_at + i];
            size_t fn;
            const char *fname = str_text(m, fd->name, &fn);
            f[i].is_ref = fd->type == T_OBJECT;
            f[i].size = (uint8_t)(f[i].is_ref ? m->model->ref : prim_size(fd->type));
            f[i].contended = cname && fname && jl_contended(cname, cn, fname, fn);
            data += value_size(m, fd->type);
            nref += fd->type == T_OBJECT;
        }
        size_t nf = k->nfields;
        if (cname)
            nf += jl_injected(m->model, cname, cn, f + nf);
        jl_layout root;
        jl_root(m->model, &root);
        jl_free(&k->lay);
        int rc = jl_extend(m->model, sup ? &sup->lay : &root, f, nf, &k->lay);
        free(f);
        if (rc != 0)
            return -1;
        k->size = jl_instance_size(&k->lay);
        k->data_len = data;
        /* the references: this class's fields first, then the super's */
        uint32_t supslots = sup ? sup->nslots : 0;
        if (cli_grow((void **)&m->slots, &m->slotcap,
                 m->nslots + nref + supslots, sizeof *m->slots) != 0)
            return -1;
        k->slots_at = (uint32_t)m->nslots;
        /* The referent of a weak, soft, phantom or final reference does
         * not keep it alive: MAT leaves it out by default, and so do the
         * graph tools (weak references hold nothing). */
        int reference = cname && text_is(cname, cn, "java.lang.ref.Reference");
        uint32_t off = 0;
        for (uint32_t i = 0; i < k->nfields; i++) {
            const hp_field *fd = &m->fields[k->fields_at + i];
            if (fd->type == T_OBJECT) {
                size_t fn;
                const char *fname = str_text(m, fd->name, &fn);
                m->slots[m->nslots].off = off;
                m->slots[m->nslots].name = fd->name;
                m->slots[m->nslots].weak =
                    reference && fname && text_is(fname, fn, "referent");
                m->nslots++;
            }
            off += value_size(m, fd->type);
        }
        for (uint32_t i = 0; i < supslots; i++) {
            hp_slot sl = m->slots[sup->slots_at + i];
            sl.off += off;
            m->slots[m->nslots++] = sl;
        }
        k->nslots = nref + supslots;
        k->depth = sup ? sup->depth + 1 : 1;
        k->laid = LAID_OK;
        if (k->lay.failed) {
            not_laid(m, ci, j + 1, 1);
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

static int refs_room(hp *m, size_t n)
{
    return fit_refs_room(&m->refs, &m->labels, &m->rcap, n);
}

/* Appends reference id (when not null) with its label to m->refs at *n
 * (refs_room made the room). */
static void add_ref(hp *m, size_t *n, uint64_t id, uint32_t kind,
                    uint64_t value)
{
    if (id == 0)
        return;
    m->refs[*n] = id;
    m->labels[*n].kind = kind;
    m->labels[*n].weak = 0;
    m->labels[*n].value = value;
    (*n)++;
}

static int write_object(hp *m, heapfmt_object *o, size_t nrefs)
{
    o->refs = m->refs;
    o->labels = m->labels;
    if (nrefs)
        o->fields |= HEAPFMT_F_LABELS;
    if (m->android)
        return android_write(m, o, nrefs);
    return fit_write_object(m->w, o, nrefs, m->st);
}

static const char *const root_kind_name[] = {
    [SUB_ROOT_JNI_GLOBAL] = "jni global",
    [SUB_ROOT_JNI_LOCAL] = "jni local",
    [SUB_ROOT_JAVA_FRAME] = "java frame",
    [SUB_ROOT_NATIVE_STACK] = "native stack",
    [SUB_ROOT_STICKY_CLASS] = "sticky class",
    [SUB_ROOT_THREAD_BLOCK] = "thread block",
    [SUB_ROOT_MONITOR_USED] = "monitor used",
    [SUB_ROOT_THREAD_OBJECT] = "thread object",
};

static int flush_roots(hp *m)
{
    if (m->nroots == 0)
        return HEAPFMT_OK;
    uint32_t *sid = &m->root_sid[m->root_kind];
    if (*sid == 0) {
        const char *name = m->root_kind == SUB_ROOT_UNKNOWN
                               ? "unknown"
                               : root_kind_name[m->root_kind];
        int rc = heapfmt_write_string(m->w, name, strlen(name), sid);
        if (rc != HEAPFMT_OK)
            return rc;
    }
    int rc = heapfmt_write_root(m->w, *sid, m->root_ids, m->nroots);
    if (rc != HEAPFMT_OK)
        return rc;
    m->st->roots++;
    m->st->refs += m->nroots;
    m->nroots = 0;
    return HEAPFMT_OK;
}

static int add_root(hp *m, int kind, uint64_t id)
{
    if (id == 0)
        return HEAPFMT_OK;
    if (m->android)
        return android_root(m, kind, id);
    if ((m->nroots > 0 && kind != m->root_kind) || m->nroots == HP_ROOT_BATCH) {
        int rc = flush_roots(m);
        if (rc != HEAPFMT_OK)
            return rc;
    }
    m->root_kind = kind;
    m->root_ids[m->nroots++] = id;
    return HEAPFMT_OK;
}

/* The CLASS record of class ci (when it has a dump or a name). */
static int write_class(hp *m, uint32_t ci)
{
    const hp_class *k = &m->cls[ci];
    heapfmt_class c = {0};
    c.id = k->id;
    c.name = str_text(m, k->name, &c.name_len);
    c.super_id = k->super_id;
    int rc = heapfmt_write_class(m->w, &c);
    if (rc == HEAPFMT_OK)
        m->st->classes++;
    return rc;
}

/* The class of a primitive array of type t, written on first use when no
 * LOAD CLASS named it. */
static int prim_class(hp *m, unsigned t, uint64_t *id)
{
    if (m->android && (*id = android_prim_class(m, t)) != 0)
        return HEAPFMT_OK;
    if (m->prim_class[t] != 0) {
        *id = m->prim_class[t];
        return HEAPFMT_OK;
    }
    *id = HP_PRIM_CLASS(t);
    if (m->prim_written[t])
        return HEAPFMT_OK;
    heapfmt_class c = {0};
    c.id = *id;
    c.name = prim_array_name[t];
    c.name_len = 2;
    int rc = heapfmt_write_class(m->w, &c);
    if (rc != HEAPFMT_OK)
        return rc;
    m->prim_written[t] = 1;
    m->st->classes++;
    return HEAPFMT_OK;
}

/* ------------------------------------------------------------------ */
/* The layout model                                                    */
/* ------------------------------------------------------------------ */

/* The models a dump is checked against, in the order of preference when
 * their votes are equal. */
static const jl_model *const hp_models[4] = {&jl_compressed, &jl_32bit,
                                             &jl_compressed_class, &jl_wide};

/* Whether model k can have written ids of m->idsz bytes. */
static int model_fits(const hp *m, unsigned k)
{
    return (hp_models[k] == &jl_32bit) == (m->idsz == 4);
}

/* An object record at id (an array of n elements of es bytes, es 0 for
 * references, when array): the previous one votes for the models under
 * which it ends where this one begins. */
static void observe(hp *m, uint64_t id, int array, uint32_t n, unsigned es)
{
    if (m->agent || m->android)
        return; /* serial numbers, not addresses; ART: sizes are known */
    if (m->prev_array && id > m->prev_id) {
        uint64_t delta = id - m->prev_id;
        int any = 0;
        for (unsigned k = 0; k < 4; k++)
            if (delta == m->prev_size[k] && model_fits(m, k)) {
                m->votes[k]++;
                any = 1;
            }
        m->voted += any;
    }
    m->prev_array = array;
    m->prev_id = id;
    if (array)
        for (unsigned k = 0; k < 4; k++)
            m->prev_size[k] = jl_array_size(hp_models[k], n,
                                            es ? es : hp_models[k]->ref);
}

/* The model the votes name (the preferred one among equals), or NULL
 * when no array voted. */
static const jl_model *voted_model(const hp *m, uint64_t *votes)
{
    unsigned best = 4;
    for (unsigned k = 0; k < 4; k++)
        if (model_fits(m, k) && m->votes[k] > 0 &&
            (best == 4 || m->votes[k] > m->votes[best]))
            best = k;
    if (best == 4)
        return NULL;
    *votes = m->votes[best];
    return hp_models[best];
}

/* Chooses the model before the first object is sized: --jvm; else, after
 * a first pass, the votes; else from the header: 4-byte ids are a 32-bit
 * JVM's addresses (HotSpot writes its pointer size), except in the hprof
 * agent's dumps (its own serial numbers, whatever the JVM). */
static void choose_model(hp *m)
{
    static char how[160];
    uint64_t v = 0;
    const jl_model *voted = m->pass == 2 ? voted_model(m, &v) : NULL;
    if (m->opt->jvm) {
        m->model = jl_model_named(m->opt->jvm);
        m->model_how = "--jvm";
    } else if (m->android) {
        m->model = &jl_art;
        m->model_how = m->android_how;
    } else if (m->agent) {
        m->model = &jl_compressed;
        m->model_how = "assumed: the hprof agent's dumps do not say; --jvm "
                       "sets it";
    } else if (voted) {
        m->model = voted;
        snprintf(how, sizeof how, "detected: %llu of %llu arrays followed by "
                 "an object end where it begins under this model",
                 (unsigned long long)v, (unsigned long long)m->voted);
        m->model_how = how;
    } else if (m->idsz == 4) {
        m->model = &jl_32bit;
        m->model_how = "detected: 4-byte ids";
    } else {
        m->model = &jl_compressed;
        m->model_how = "assumed: the most common; --jvm sets it";
    }
    if (!m->model)
        m->model = &jl_compressed;
}

/* Whether the n bytes at p are UTF-8, but for a character cut by their
 * end when more bytes follow. */
static int utf8_text(const uint8_t *p, size_t n, int more)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 && c >= 0xc2 ? 2
                   : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 && c <= 0xf4 ? 4
                   : 0;
        if (len == 0)
            return 0;
        for (size_t j = 1; j < len; j++) {
            if (i + j >= n)
                return more; /* cut by the preview */
            if ((p[i + j] & 0xc0) != 0x80)
                return 0;
        }
        if (len == 3 && ((c == 0xe0 && p[i + 1] < 0xa0) ||
                         (c == 0xed && p[i + 1] >= 0xa0)))
            return 0; /* overlong, or a surrogate */
        if (len == 4 && ((c == 0xf0 && p[i + 1] < 0x90) ||
                         (c == 0xf4 && p[i + 1] >= 0x90)))
            return 0;
        i += len;
    }
    return 1;
}

/* The value preview of a primitive array's first n bytes at p (more
 * follow, or not), as UTF-8 of at most max bytes in out: a byte[] that is
 * UTF-8 as it is, else as Latin-1 (what a compact String with coder 0
 * holds); a char[] (a String before JDK 9) from UTF-16, big-endian as
 * HPROF writes it. */
static size_t preview_text(const uint8_t *p, size_t n, int more, unsigned t,
                           char *out, size_t max)
{
    size_t o = 0;
    char c[4];
    if (t == T_BYTE && utf8_text(p, n, more)) {
        /* less a character the end of the preview cuts */
        o = n;
        size_t j = n;
        while (j > 0 && n - j < 3 && (p[j - 1] & 0xc0) == 0x80)
            j--;
        if (more && j > 0 && p[j - 1] >= 0xc0) {
            unsigned lead = p[j - 1];
            size_t len = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
            if (j - 1 + len > n)
                o = j - 1;
        }
        memcpy(out, p, o);
        return o;
    }
    for (size_t i = 0; i < n;) {
        unsigned long cp;
        if (t == T_BYTE) {
            cp = p[i++];
        } else {
            if (i + 1 >= n)
                break;
            cp = (unsigned long)p[i] << 8 | p[i + 1];
            i += 2;
            if (cp >= 0xd800 && cp < 0xdc00 && i + 1 < n &&
                (p[i] & 0xfc) == 0xdc) {
                unsigned long lo = (unsigned long)p[i] << 8 | p[i + 1];
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                i += 2;
            } else if (cp >= 0xd800 && cp < 0xe000) {
                cp = 0xfffd; /* an unpaired surrogate */
            }
        }
        size_t k = jescape_utf8(c, cp);
        if (o + k > max)
            break;
        memcpy(out + o, c, k);
        o += k;
    }
    return o;
}

/* ------------------------------------------------------------------ */
/* Heap dump sub-records                                               */
/* ------------------------------------------------------------------ */

#define SUB_TAKE(n, what)                                                 \
    do {                                                                  \
        if (!(p = take_sub(m, (n), start, (what), &rc)))                  \
            return rc;                                                    \
    } while (0)

#define WRITE(expr)                                                       \
    do {                                                                  \
        int wrc_ = (expr);                                                \
        if (wrc_ != HEAPFMT_OK)                                           \
            return wrc_ == HEAPFMT_E_NOMEM ? no_memory(m)                 \
                                           : writer_failed(m, wrc_);      \
    } while (0)

/* The bytes of a GC root record of one of HPROF's own kinds: the
 * object id, then what the kind adds. */
static size_t root_size(const hp *m, int tag)
{
    static const unsigned char extra[] = {
        [SUB_ROOT_JNI_GLOBAL] = 0,  [SUB_ROOT_JNI_LOCAL] = 8,
        [SUB_ROOT_JAVA_FRAME] = 8,  [SUB_ROOT_NATIVE_STACK] = 4,
        [SUB_ROOT_STICKY_CLASS] = 0, [SUB_ROOT_THREAD_BLOCK] = 4,
        [SUB_ROOT_MONITOR_USED] = 0, [SUB_ROOT_THREAD_OBJECT] = 8};
    size_t n = m->idsz;
    if (tag == SUB_ROOT_JNI_GLOBAL)
        n += m->idsz; /* the JNI global reference's own id */
    else if (tag != SUB_ROOT_UNKNOWN)
        n += extra[tag];
    return n;
}

/* A GC root record of n bytes (HPROF's or Android's kind tag): the
 * object id, then what the kind adds (skipped). Android's UNREACHABLE
 * has the same form but marks garbage, not a root. */
static int read_root(hp *m, int tag, size_t n, uint64_t start)
{
    const uint8_t *p;
    int rc;
    SUB_TAKE(n, "a GC root record");
    if (tag == HPA_UNREACHABLE)
        m->android->unreachable++;
    else if (m->pass != 1)
        WRITE(add_root(m, tag, be_id(m, p)));
    return IMP_OK;
}

/* CLASS DUMP: the class, its statics (references kept), its fields. The
 * first pass keeps the fields only; the writing pass writes the class and
 * its object (the fields from the first pass, or read now). */
static int read_class_dump(hp *m, uint64_t start)
{
    const uint8_t *p;
    int rc;
    unsigned id = m->idsz;
    SUB_TAKE(7 * id + 8, "a CLASS DUMP record");
    uint64_t cid = be_id(m, p), super = be_id(m, p + id + 4);
    uint64_t loader = be_id(m, p + 2 * id + 4);
    uint32_t dump_size = be32(p + 7 * id + 4);
    uint32_t ci;
    if (class_index(m, cid, &ci) != 0)
        return no_memory(m);
    int have_fields = m->cls[ci].dumped;
    int dup = m->pass == 2 ? m->cls[ci].written : have_fields;
    if (dup)
        m->dup_classes++;
    int writing = m->pass != 1 && !dup;

    /* the constant pool: skipped */
    SUB_TAKE(2, "a CLASS DUMP record");
    unsigned ncp = (unsigned)p[0] << 8 | p[1];
    for (unsigned i = 0; i < ncp; i++) {
        SUB_TAKE(3, "a CLASS DUMP constant");
        unsigned t = p[2];
        if (value_size(m, t) == 0)
            return corrupt(m, start, "constant of unknown type %u", t);
        if ((rc = skip_sub(m, value_size(m, t), start, "a CLASS DUMP constant")))
            return rc;
    }
    /* statics: their references become the class object's */
    SUB_TAKE(2, "a CLASS DUMP record");
    unsigned nst = (unsigned)p[0] << 8 | p[1];
    if (refs_room(m, nst + 2) != HEAPFMT_OK)
        return no_memory(m);
    size_t nrefs = 0;
    uint64_t statics = 0;
    for (unsigned i = 0; i < nst; i++) {
        SUB_TAKE(id + 1, "a CLASS DUMP static field");
        uint32_t name = str_index(m, be_id(m, p));
        unsigned t = p[id];
        unsigned vs = value_size(m, t);
        if (vs == 0)
            return corrupt(m, start, "static field of unknown type %u", t);
        statics += t == T_OBJECT ? m->model->ref : vs;
        SUB_TAKE(vs, "a CLASS DUMP static field");
        uint64_t ref = t == T_OBJECT ? be_id(m, p) : 0;
        if (ref == 0 || !writing)
            continue;
        uint32_t sid;
        WRITE(str_sid(m, name, &sid));
        add_ref(m, &nrefs, ref, sid ? HEAPFMT_LABEL_FIELD : HEAPFMT_LABEL_NONE,
                sid);
    }
    /* instance fields: the class's layout */
    SUB_TAKE(2, "a CLASS DUMP record");
    unsigned nf = (unsigned)p[0] << 8 | p[1];
    int keep = !have_fields;
    if (keep && cli_grow((void **)&m->fields, &m->fieldcap, m->nfields + nf,
                     sizeof *m->fields) != 0)
        return no_memory(m);
    for (unsigned i = 0; i < nf; i++) {
        SUB_TAKE(id + 1, "a CLASS DUMP field");
        unsigned t = p[id];
        if (value_size(m, t) == 0)
            return corrupt(m, start, "field of unknown type %u", t);
        if (!keep)
            continue;
        m->fields[m->nfields + i].name = str_index(m, be_id(m, p));
        m->fields[m->nfields + i].type = (uint8_t)t;
    }
    hp_class *k = &m->cls[ci];
    if (keep) {
        k->dumped = 1;
        m->dumps++;
        k->super_id = super;
        k->fields_at = (uint32_t)m->nfields;
        k->nfields = nf;
        k->dump_size = dump_size;
        m->nfields += nf;
        if (!m->android && (rc = android_detect(m, ci)) != IMP_OK)
            return rc;
    }
    if (m->android)
        statics = android_class_bytes(m, cid, statics);
    if (!writing)
        return IMP_OK;
    k->written = 1;
    WRITE(write_class(m, ci));

    /* the class object, written once java.lang.Class can be laid out */
    add_ref(m, &nrefs, super, HEAPFMT_LABEL_OTHER, m->sid_super);
    add_ref(m, &nrefs, loader, HEAPFMT_LABEL_OTHER, m->sid_loader);
    if (GROW(m->pend, m->pendcap, m->npend) ||
        fit_refs_room(&m->pref, &m->plab, &m->prefcap, m->npref + nrefs + 1))
        return no_memory(m);
    hp_pending *q = &m->pend[m->npend++];
    q->ci = ci;
    q->statics = statics;
    q->refs_at = m->npref;
    q->nrefs = (uint32_t)nrefs;
    memcpy(m->pref + m->npref, m->refs, nrefs * sizeof *m->refs);
    memcpy(m->plab + m->npref, m->labels, nrefs * sizeof *m->labels);
    m->npref += nrefs;
    /* ART's class objects are sized without java.lang.Class's layout:
     * written now, in the heap of their record */
    return m->android ? write_pending(m) : IMP_OK;
}

/* Writes the class objects waiting: HotSpot dumps every class before the
 * first instance, java.lang.Class among them, whose size each mirror
 * (a java.lang.Class instance followed by the class's static fields)
 * starts with. */
static int write_pending(hp *m)
{
    uint32_t cc;
    uint64_t mirror = 0;
    if (m->class_class && hf_map_get(&m->class_of, m->class_class, &cc)) {
        int ready = lay_out(m, cc);
        if (ready < 0)
            return no_memory(m);
        if (ready)
            mirror = m->cls[cc].size;
    }
    for (size_t i = 0; i < m->npend; i++) {
        const hp_pending *q = &m->pend[i];
        heapfmt_object o = {0};
        o.id = m->cls[q->ci].id;
        o.class_id = m->class_class;
        o.type = m->sid_class;
        o.size = m->model == &jl_art ? hpa_align(q->statics)
                                     : (mirror + q->statics + 7) / 8 * 8;
        size_t vn;
        const char *v = str_text(m, m->cls[q->ci].name, &vn);
        if (v && m->opt->preview) {
            o.fields |= HEAPFMT_F_VALUE;
            o.value = v;
            o.value_len = vn < m->opt->preview ? vn : m->opt->preview;
        }
        o.refs = m->pref + q->refs_at;
        o.labels = m->plab + q->refs_at;
        if (q->nrefs)
            o.fields |= HEAPFMT_F_LABELS;
        WRITE(m->android ? android_write(m, &o, q->nrefs)
                         : fit_write_object(m->w, &o, q->nrefs, m->st));
    }
    m->npend = m->npref = 0;
    return IMP_OK;
}

/* INSTANCE DUMP: id, stack serial, class id, field bytes. */
static int read_instance(hp *m, uint64_t start)
{
    const uint8_t *p;
    int rc;
    unsigned id = m->idsz;
    SUB_TAKE(2 * id + 8, "an INSTANCE DUMP record");
    heapfmt_object o = {0};
    o.id = be_id(m, p);
    o.class_id = be_id(m, p + id + 4);
    o.type = m->sid_instance;
    uint32_t len = be32(p + 2 * id + 4);
    if (len > m->seg_left)
        return corrupt(m, start, "an INSTANCE DUMP of %u bytes runs past the "
                       "end of its heap dump record", len);
    if (m->pass != 2)
        observe(m, o.id, 0, 0, 0);
    if (m->pass == 1)
        return skip_sub(m, len, start, "an INSTANCE DUMP record");
    SUB_TAKE(len, "an INSTANCE DUMP record");
    uint32_t ci;
    int ready = 0;
    if (hf_map_get(&m->class_of, o.class_id, &ci) &&
        (ready = lay_out(m, ci)) < 0)
        return no_memory(m);
    const hp_class *k = ready ? &m->cls[ci] : NULL;
    size_t nrefs = 0;
    if (!k) {
        m->undecoded++;
        o.size = ((uint64_t)m->model->header + len + 7) / 8 * 8;
    } else if (k->data_len != len) {
        m->bad_length++;
        o.size = k->size;
    } else {
        o.size = k->size;
        if (refs_room(m, k->nslots) != HEAPFMT_OK)
            return no_memory(m);
        for (uint32_t i = 0; i < k->nslots; i++) {
            const hp_slot *s = &m->slots[k->slots_at + i];
            uint64_t ref = be_id(m, p + s->off);
            if (ref == 0)
                continue;
            uint32_t sid;
            WRITE(str_sid(m, s->name, &sid));
            add_ref(m, &nrefs, ref, sid ? HEAPFMT_LABEL_FIELD : HEAPFMT_LABEL_NONE,
                    sid);
            m->labels[nrefs - 1].weak = s->weak != 0;
        }
    }
    if (m->android)
        o.size = android_instance_size(m, o.class_id, len, o.size);
    WRITE(write_object(m, &o, nrefs));
    return IMP_OK;
}

/* OBJ ARRAY DUMP: id, stack serial, count, array class id, elements. */
static int read_obj_array(hp *m, uint64_t start)
{
    const uint8_t *p;
    int rc;
    unsigned id = m->idsz;
    SUB_TAKE(2 * id + 8, "an OBJ ARRAY DUMP record");
    heapfmt_object o = {0};
    o.id = be_id(m, p);
    uint32_t n = be32(p + id + 4);
    o.class_id = be_id(m, p + id + 8);
    o.type = m->sid_objarray;
    o.size = jl_array_size(m->model, n, m->model->ref);
    if ((uint64_t)n * id > m->seg_left)
        return corrupt(m, start, "an OBJ ARRAY DUMP of %u elements runs past "
                       "the end of its heap dump record", n);
    if (m->pass != 2)
        observe(m, o.id, 1, n, 0);
    if (m->pass == 1)
        return skip_sub(m, (uint64_t)n * id, start, "an OBJ ARRAY DUMP record");
    /* elements in chunks, kept up to what one record holds */
    size_t nrefs = 0;
    uint32_t done = 0;
    while (done < n) {
        uint32_t k = n - done < 65536 ? n - done : 65536;
        SUB_TAKE((size_t)k * id, "an OBJ ARRAY DUMP record");
        if (refs_room(m, nrefs + k) != HEAPFMT_OK)
            return no_memory(m);
        for (uint32_t i = 0; i < k; i++) {
            uint64_t ref = be_id(m, p + (size_t)i * id);
            if (ref == 0)
                continue;
            if (nrefs == HEAPFMT_MAX_REFS)
                m->st->refs_dropped++;
            else
                add_ref(m, &nrefs, ref, HEAPFMT_LABEL_INDEX, done + i);
        }
        done += k;
    }
    /* element i at position i but after a null: the writer keeps one
     * label after each run of nulls and implies the others (1.3) */
    if (!m->opt->listed_indexes)
        o.fields |= HEAPFMT_F_INDEXED;
    WRITE(write_object(m, &o, nrefs));
    return IMP_OK;
}

/* The head of a PRIM ARRAY DUMP and of Android's PRIMITIVE ARRAY NODATA
 * (what: the record, for messages): id, stack serial, count, element
 * type; the id into o. */
static int read_prim_head(hp *m, uint64_t start, const char *what,
                          heapfmt_object *o, uint32_t *n, unsigned *t)
{
    const uint8_t *p;
    int rc;
    unsigned id = m->idsz;
    SUB_TAKE(id + 9, what);
    o->id = be_id(m, p);
    *n = be32(p + id + 4);
    *t = p[id + 8];
    if (prim_size(*t) == 0)
        return corrupt(m, start, "primitive array of unknown type %u", *t);
    return IMP_OK;
}

/* The class, type and size of a primitive array of n elements of type t
 * (its class made on first use). */
static int prim_array_object(hp *m, heapfmt_object *o, uint32_t n, unsigned t)
{
    WRITE(prim_class(m, t, &o->class_id));
    o->type = m->sid_primarray;
    o->size = jl_array_size(m->model, n, prim_size(t));
    return IMP_OK;
}

/* PRIM ARRAY DUMP: the head (read_prim_head), then the elements. */
static int read_prim_array(hp *m, uint64_t start)
{
    const uint8_t *p;
    heapfmt_object o = {0};
    uint32_t n;
    unsigned t;
    int rc = read_prim_head(m, start, "a PRIM ARRAY DUMP record", &o, &n, &t);
    if (rc != IMP_OK)
        return rc;
    unsigned es = prim_size(t);
    uint64_t bytes = (uint64_t)n * es;
    if (bytes > m->seg_left)
        return corrupt(m, start, "a PRIM ARRAY DUMP of %u elements runs past "
                       "the end of its heap dump record", n);
    if (m->pass != 2)
        observe(m, o.id, 1, n, es);
    if (m->pass == 1)
        return skip_sub(m, bytes, start, "a PRIM ARRAY DUMP record");
    if ((rc = prim_array_object(m, &o, n, t)) != IMP_OK)
        return rc;
    char preview[JS_VALUE_MAX];
    size_t keep = 0, max = m->opt->preview;
    if (max > sizeof preview)
        max = sizeof preview;
    if ((t == T_BYTE || t == T_CHAR) && max) {
        /* a char takes at least one byte of UTF-8, two of UTF-16 */
        keep = t == T_CHAR ? 2 * max : max;
        if (keep > bytes)
            keep = (size_t)bytes;
        SUB_TAKE(keep, "a PRIM ARRAY DUMP record");
        o.fields |= HEAPFMT_F_VALUE;
        o.value = preview;
        o.value_len = preview_text(p, keep, keep < bytes, t, preview, max);
    }
    if ((rc = skip_sub(m, bytes - keep, start, "a PRIM ARRAY DUMP record")))
        return rc;
    if (m->android)
        m->android->array_bytes = bytes;
    WRITE(write_object(m, &o, 0));
    return IMP_OK;
}

/* ------------------------------------------------------------------ */
/* Android (hprof_android.h)                                           */
/* ------------------------------------------------------------------ */

/* An instance's size under ART: the instance size its class's CLASS DUMP
 * states (ART's own object size, header included), else its field bytes
 * (which hold the header: java.lang.Object declares ART's shadow$_klass_
 * and shadow$_monitor_), 8-aligned. Other models keep size. */
static uint64_t android_instance_size(hp *m, uint64_t class_id, uint32_t len,
                                      uint64_t size)
{
    m->android->instance_bytes = len;
    if (m->model != &jl_art)
        return size;
    uint32_t ci;
    if (hf_map_get(&m->class_of, class_id, &ci) && m->cls[ci].dump_size > 0)
        return hpa_align(m->cls[ci].dump_size);
    return hpa_align(len);
}

/* The class of ART's primitive arrays of type t ("byte[]": Java's
 * spelling, as ART names classes), found once; 0 when the dump has none. */
static uint64_t android_prim_class(hp *m, unsigned t)
{
    hpa *a = m->android;
    if (!(a->prim_looked & 1u << t)) {
        a->prim_looked |= 1u << t;
        for (size_t i = 0; i < m->ncls && !a->prim[t]; i++) {
            size_t n;
            const char *name = str_text(m, m->cls[i].name, &n);
            if (name && text_is(name, n, art_array_name[t]))
                a->prim[t] = m->cls[i].id;
        }
    }
    return a->prim[t];
}

/* The bytes of class object cid, whose static fields take statics bytes
 * (as ART writes them, 4-byte references). Android 8 and later report
 * java.lang.Class's own fields among the statics ("$class$name"...) and
 * give java.lang.Class an instance size of 0; what is left of the class
 * (its embedded vtable) is "$classOverhead": static fields, or a byte[]
 * of that many bytes less the 4 of the static reference to it. Android 7
 * and before: java.lang.Class's instance size, and a byte[] of the rest,
 * the statics included. That byte[] (held back: it comes first) is part
 * of the class here, not an object of its own. */
static uint64_t android_class_bytes(hp *m, uint64_t cid, uint64_t statics)
{
    hpa *a = m->android;
    uint64_t over = 0;
    if (a->held == HPA_HOLD_OVERHEAD && a->expect == cid) {
        over = a->held_bytes;
        a->held = HPA_HOLD_NONE;
        a->overhead_of = cid;
    }
    uint32_t cc;
    uint64_t base = 0;
    if (m->class_class && hf_map_get(&m->class_of, m->class_class, &cc))
        base = m->cls[cc].dump_size;
    return base ? base + over : statics + over;
}

/* The strong references of left-out object o, of heap h, to objects that
 * are not left out (as far as known: the end filters again) become roots
 * named after the holder. */
static int android_holder_roots(hp *m, const heapfmt_object *o, size_t nrefs,
                                unsigned h)
{
    hpa *a = m->android;
    for (size_t i = 0; i < nrefs; i++) {
        if (hpa_is_left_out(a, o->refs[i]) || (o->labels && o->labels[i].weak))
            continue;
        hpa_kind k;
        memset(&k, 0, sizeof k);
        k.heap = h;
        k.is_class = o->type == m->sid_class;
        k.holder = k.is_class ? o->id : o->class_id;
        if (o->labels && (o->labels[i].kind == HEAPFMT_LABEL_FIELD ||
                          o->labels[i].kind == HEAPFMT_LABEL_OTHER)) {
            k.label = (uint32_t)o->labels[i].value;
            k.label_kind = (uint8_t)o->labels[i].kind;
        }
        int64_t kind = hpa_kind_of(a, &k);
        if (kind < 0 || hpa_add_root(a, (uint32_t)kind, o->refs[i]) != 0)
            return HEAPFMT_E_NOMEM;
    }
    return HEAPFMT_OK;
}

/* Writes object o of heap h (less its references to left-out objects and
 * to id drop, 0 for none), or, when h is left out, makes roots of its
 * references. */
static int android_emit(hp *m, heapfmt_object *o, size_t nrefs, unsigned h,
                        uint64_t drop)
{
    hpa *a = m->android;
    hpa_count(a, h, o->size);
    if (!hpa_kept(a, h))
        return android_holder_roots(m, o, nrefs, h);
    uint32_t ci, one;
    if (o->class_id && hf_map_get(&m->class_of, o->class_id, &ci) &&
        !m->cls[ci].written &&
        !hf_map_get(&a->named_classes, o->class_id, &one)) {
        /* ART writes the app heap first, the classes of the boot image
         * after it: the class is named before its first object */
        heapfmt_class c = {0};
        c.id = o->class_id;
        c.name = str_text(m, m->cls[ci].name, &c.name_len);
        c.super_id = m->cls[ci].super_id;
        int rc = heapfmt_write_class(m->w, &c);
        if (rc == HEAPFMT_OK && hf_map_put(&a->named_classes,
                                           hf_default_allocator(),
                                           o->class_id, 1) != 0)
            rc = HEAPFMT_E_NOMEM;
        if (rc != HEAPFMT_OK)
            return rc;
    }
    if (hpa_scratch(a, nrefs) != 0)
        return HEAPFMT_E_NOMEM;
    size_t n = 0;
    for (size_t i = 0; i < nrefs; i++) {
        if (o->refs[i] == drop)
            continue;
        if (hpa_is_left_out(a, o->refs[i])) {
            a->refs_left_out++;
            m->st->refs_left_out++;
            continue;
        }
        a->wrefs[n] = o->refs[i];
        if (o->labels)
            a->wlabels[n] = o->labels[i];
        else
            memset(&a->wlabels[n], 0, sizeof a->wlabels[n]);
        n++;
    }
    o->refs = a->wrefs;
    o->labels = a->wlabels;
    return fit_write_object(m->w, o, n, m->st);
}

/* Whether a record of tag and id is the one the held object waits for:
 * an instance's made-up part, right after it, at an id inside it, where
 * no object can begin: a String's characters (16 bytes in, 8 when it is
 * empty: within the String's field bytes, the made-up reference to them
 * included), or the Object[] half an alignment in (runtime-internal
 * references); a $classOverhead's CLASS DUMP. Ids alone decide, so that
 * a String is whole even when its class is not known yet. */
static int android_awaits(hp *m, int tag, uint64_t id)
{
    hpa *a = m->android;
    if (a->held == HPA_HOLD_OVERHEAD)
        return tag == SUB_CLASS_DUMP && id == a->expect;
    if (a->held != HPA_HOLD_INSTANCE)
        return 0;
    if (tag == SUB_OBJ_ARRAY_DUMP)
        return id == a->ho.id + 4;
    return tag == SUB_PRIM_ARRAY_DUMP && id > a->ho.id &&
           id - a->ho.id < a->held_bytes;
}

/* Writes the object held back as it is. */
static int android_flush_held(hp *m)
{
    hpa *a = m->android;
    heapfmt_object o = a->ho;
    a->held = HPA_HOLD_NONE;
    WRITE(android_emit(m, &o, o.nrefs, a->held_heap, 0));
    return IMP_OK;
}

/* o is the record the held instance waits for (android_awaits): a
 * String's characters (its size and value), or a runtime-internal
 * Object[] (its references, under the label of the reference to it);
 * then the instance is written, and o is not. */
static int android_fold(hp *m, heapfmt_object *o, size_t nrefs)
{
    hpa *a = m->android;
    heapfmt_label lb = hpa_held_drop(a, o->id);
    if (o->type == m->sid_primarray) {
        if (m->model == &jl_art) {
            /* ART's String: its fields and the characters after them */
            uint32_t ci;
            uint64_t base = a->held_bytes - m->idsz; /* less the made-up
                                                        value reference */
            if (hf_map_get(&m->class_of, a->ho.class_id, &ci) &&
                m->cls[ci].dump_size > 0)
                base = m->cls[ci].dump_size;
            a->ho.size = hpa_align(base + a->array_bytes);
        } else {
            a->ho.size += o->size;
        }
        if (o->fields & HEAPFMT_F_VALUE)
            hpa_held_value(a, o->value, o->value_len);
    } else {
        if (hpa_held_append(a, o->refs, nrefs, lb) != 0)
            return HEAPFMT_E_NOMEM;
        if (a->ho.nrefs)
            a->ho.fields |= HEAPFMT_F_LABELS;
    }
    heapfmt_object h = a->ho;
    a->held = HPA_HOLD_NONE;
    return android_emit(m, &h, h.nrefs, a->held_heap, 0);
}

/* Every object of an Android dump is written through here (write_object,
 * write_pending): ART's made-up objects are folded into the real ones.
 * An instance is held back until the next record, which may be its
 * made-up part (found by its id alone, so even when the instance's class
 * is not known yet); so is a byte[] at an odd address, where no object
 * is: a $classOverhead, whose class comes next. */
static int android_write(hp *m, heapfmt_object *o, size_t nrefs)
{
    hpa *a = m->android;
    int tag = o->type == m->sid_primarray  ? SUB_PRIM_ARRAY_DUMP
              : o->type == m->sid_objarray ? SUB_OBJ_ARRAY_DUMP
                                           : -1;
    if (android_awaits(m, tag, o->id))
        return android_fold(m, o, nrefs);
    if (a->held) { /* android_before writes it first; to be sure */
        heapfmt_object h = a->ho;
        a->held = HPA_HOLD_NONE;
        int rc = android_emit(m, &h, h.nrefs, a->held_heap, 0);
        if (rc != HEAPFMT_OK)
            return rc;
    }
    if (o->type == m->sid_class) {
        /* its $classOverhead is in its size: no reference to it */
        uint64_t drop = a->overhead_of == o->id ? o->id | 1 : 0;
        a->overhead_of = 0;
        return android_emit(m, o, nrefs, a->cur, drop);
    }
    int what = o->type == m->sid_instance ? HPA_HOLD_INSTANCE
               : tag == SUB_PRIM_ARRAY_DUMP && (o->id & 1) ? HPA_HOLD_OVERHEAD
                                                           : HPA_HOLD_NONE;
    if (what == HPA_HOLD_NONE)
        return android_emit(m, o, nrefs, a->cur, 0);
    if (hpa_hold(a, what, o->id & ~(uint64_t)1, a->cur, o, nrefs) != 0)
        return HEAPFMT_E_NOMEM;
    a->held_bytes = what == HPA_HOLD_OVERHEAD ? a->array_bytes
                                              : a->instance_bytes;
    return HEAPFMT_OK;
}

/* A GC root of an Android dump, kept for the end. */
static int android_root(hp *m, int tag, uint64_t id)
{
    hpa_kind k;
    memset(&k, 0, sizeof k);
    k.tag = (uint32_t)tag;
    int64_t kind = hpa_kind_of(m->android, &k);
    if (kind < 0 || hpa_add_root(m->android, (uint32_t)kind, id) != 0)
        return HEAPFMT_E_NOMEM;
    return HEAPFMT_OK;
}

/* Before each sub-record of an Android dump: an object's id is noted when
 * its heap is left out, and the object held back is written unless this
 * record is the one it waits for. */
static int android_before(hp *m, int tag)
{
    hpa *a = m->android;
    int object = tag == SUB_CLASS_DUMP || tag == SUB_INSTANCE_DUMP ||
                 tag == SUB_OBJ_ARRAY_DUMP || tag == SUB_PRIM_ARRAY_DUMP ||
                 tag == HPA_PRIM_ARRAY_NODATA;
    uint64_t id = 0;
    int have = object && m->seg_left >= m->idsz &&
               lr_need(&m->r, m->idsz) >= m->idsz;
    if (have) {
        id = be_id(m, lr_bytes(&m->r));
        if (hpa_seen(a, id) != 0)
            return no_memory(m);
    }
    if (!a->held || (have && android_awaits(m, tag, id)))
        return IMP_OK;
    return android_flush_held(m);
}

/* PRIMITIVE ARRAY NODATA: a PRIM ARRAY DUMP's header, without the
 * elements; sized for its count all the same. */
static int read_prim_array_nodata(hp *m, uint64_t start)
{
    heapfmt_object o = {0};
    uint32_t n;
    unsigned t;
    int rc = read_prim_head(m, start, "a PRIMITIVE ARRAY NODATA record", &o,
                            &n, &t);
    if (rc != IMP_OK || m->pass == 1)
        return rc;
    if ((rc = prim_array_object(m, &o, n, t)) != IMP_OK)
        return rc;
    m->android->array_bytes = (uint64_t)n * prim_size(t);
    WRITE(write_object(m, &o, 0));
    return IMP_OK;
}

/* The sub-records Android adds (and an unknown tag): heap names, roots,
 * unreachable markers, arrays without data. */
static int read_android(hp *m, int tag, uint64_t start)
{
    const uint8_t *p;
    int rc;
    int extra = hpa_root_extra((unsigned)tag);
    int known = tag == HPA_HEAP_DUMP_INFO || tag == HPA_UNREACHABLE ||
                tag == HPA_PRIM_ARRAY_NODATA || extra >= 0;
    if (!known)
        return corrupt(m, start, "heap dump sub-record of unknown tag 0x%02x",
                       (unsigned)tag);
    if (!m->android)
        return corrupt(m, start, "heap dump sub-record 0x%02x, Android's, in "
                       "a dump that is not (%s)", (unsigned)tag, m->version);
    hpa *a = m->android;
    if (tag == HPA_HEAP_DUMP_INFO) {
        SUB_TAKE(4 + m->idsz, "a HEAP DUMP INFO record");
        size_t n;
        const char *name = str_text(m, str_index(m, be_id(m, p + 4)), &n);
        if (hpa_heap_switch(a, be32(p), name, n) != 0)
            return corrupt(m, start, "a HEAP DUMP INFO naming a heap after "
                           "%d others (more are not read)", HPA_MAX_HEAPS - 1);
        return IMP_OK;
    }
    if (tag == HPA_PRIM_ARRAY_NODATA)
        return read_prim_array_nodata(m, start);
    return read_root(m, tag, m->idsz + (extra > 0 ? (unsigned)extra : 0),
                     start);
}

/* A 1.0.2 dump whose java.lang.Object declares ART's header words
 * (shadow$_klass_, shadow$_monitor_) is an Android dump hprof-conv
 * converted: read as Android's when a first pass finds it, else (a pipe)
 * said at the end. Not with --jvm, which says what the dump is. */
static int android_detect(hp *m, uint32_t ci)
{
    const hp_class *k = &m->cls[ci];
    size_t n;
    const char *name = str_text(m, k->name, &n);
    if (!name || !text_is(name, n, "java.lang.Object") || m->opt->jvm)
        return IMP_OK;
    for (uint32_t i = 0; i < k->nfields; i++) {
        const char *f = str_text(m, m->fields[k->fields_at + i].name, &n);
        if (!f || !text_is(f, n, "shadow$_klass_"))
            continue;
        if (m->pass == 0) {
            m->art_late = 1;
            return IMP_OK;
        }
        if (!(m->android = hpa_new(m->opt->hprof_heaps)))
            return no_memory(m);
        m->android_how = "detected: java.lang.Object declares ART's "
                         "shadow$_klass_, an Android dump hprof-conv converted";
        m->st->art_converted = 1;
        return IMP_OK;
    }
    return IMP_OK;
}

/* The name of root kind k into buf: a GC root's kind, or the heap and
 * holder of a left-out object's reference ("image heap: static
 * android.os.Looper.sMainLooper"). rev[sid] is the index + 1 of the UTF8
 * record of the writer's string sid (nrev of them). */
static void android_kind_name(const hp *m, const hpa_kind *k,
                              const uint32_t *rev, size_t nrev, char *buf,
                              size_t cap)
{
    if (k->tag) {
        const char *name = k->tag == SUB_ROOT_UNKNOWN ? "unknown"
                           : hpa_root_name(k->tag);
        if (!name && k->tag < sizeof root_kind_name / sizeof *root_kind_name)
            name = root_kind_name[k->tag];
        snprintf(buf, cap, "%s", name ? name : "unknown");
        return;
    }
    uint32_t ci;
    size_t cn = 0, ln = 0;
    const char *cname = NULL, *label = NULL;
    if (hf_map_get(&m->class_of, k->holder, &ci))
        cname = str_text(m, m->cls[ci].name, &cn);
    if (k->label && k->label == m->sid_super)
        label = "<super>";
    else if (k->label && k->label == m->sid_loader)
        label = "<classloader>";
    else if (k->label && k->label < nrev && rev[k->label])
        label = str_text(m, rev[k->label] - 1, &ln);
    if (label && !ln)
        ln = strlen(label);
    int field = label && k->label_kind == HEAPFMT_LABEL_FIELD;
    snprintf(buf, cap, "%s heap: %s%.*s%s%.*s",
             m->android->heaps[k->heap].name, k->is_class && field ? "static "
                                                                    : "",
             (int)(cname ? cn : 9), cname ? cname : "(unknown)",
             label ? (field ? "." : " ") : "", (int)(label ? ln : 0),
             label ? label : "");
}

/* The end of an Android dump: the object held back, the roots (less those
 * of left-out objects), META hprof.heaps. */
static void android_finish(hp *m)
{
    hpa *a = m->android;
    if (a->held && android_flush_held(m) != IMP_OK)
        return;
    hpa_settle_roots(a);
    /* the UTF8 record of each writer's string, for the labels */
    size_t nrev = 0;
    for (size_t i = 0; i < m->nstr; i++)
        if (m->str[i].sid >= nrev)
            nrev = (size_t)m->str[i].sid + 1;
    uint32_t *rev = nrev ? calloc(nrev, sizeof *rev) : NULL;
    if (nrev && !rev) {
        no_memory(m);
        return;
    }
    for (size_t i = 0; i < m->nstr; i++)
        if (m->str[i].sid)
            rev[m->str[i].sid] = (uint32_t)i + 1;
    static char name[2 * HP_MAX_NAME + 64];
    int rc = HEAPFMT_OK;
    for (size_t i = 0; i < a->nroots && rc == HEAPFMT_OK;) {
        uint32_t kind = a->roots[i].kind, sid;
        android_kind_name(m, &a->kinds[kind], rev, nrev, name, sizeof name);
        if ((rc = heapfmt_write_string(m->w, name, strlen(name), &sid)))
            break;
        while (i < a->nroots && a->roots[i].kind == kind && rc == HEAPFMT_OK) {
            size_t n = 0;
            while (i < a->nroots && a->roots[i].kind == kind &&
                   n < HP_ROOT_BATCH)
                m->root_ids[n++] = a->roots[i++].id;
            if ((rc = heapfmt_write_root(m->w, sid, m->root_ids, n)))
                break;
            m->st->roots++;
            m->st->refs += n;
        }
    }
    free(rev);
    char heaps[1024];
    hpa_describe(a, heaps, sizeof heaps);
    if (rc == HEAPFMT_OK && a->named)
        rc = heapfmt_write_meta_text(m->w, "hprof.heaps", heaps);
    if (rc != HEAPFMT_OK)
        writer_failed(m, rc);
}

/* What the end of an Android dump says: the heaps left out, the --heap
 * names no heap has. Returns 1 when nothing was imported because every
 * object is in a heap left out (the import fails). */
static int android_report(hp *m)
{
    hpa *a = m->android;
    char names[256], miss[HPA_NAME_MAX];
    uint64_t objects, bytes;
    unsigned n = hpa_left_out_heaps(a, names, sizeof names, &objects, &bytes);
    hpa_unmatched(a, miss, sizeof miss);
    if (a->named && miss[0])
        say(m, IMPORT_DIAG_WARNING, "--heap=%s: the dump has no heap named "
            "%s", a->select ? a->select : "app", miss);
    if (n > 0 && m->st->objects == 0) {
        say(m, IMPORT_DIAG_ERROR, "every object is in the %s heap%s, left "
            "out: --heap names those to import (--heap=all for every one)",
            names, n > 1 ? "s" : "");
        return 1;
    }
    if (n > 0)
        say(m, IMPORT_DIAG_WARNING, "left out the %s heap%s (%llu objects, "
            "%llu bytes)%s: --heap=all keeps them", names, n > 1 ? "s" : "",
            (unsigned long long)objects, (unsigned long long)bytes,
            a->select ? "" : ", as Android Studio shows the app heap alone");
    return 0;
}

/* The sub-records of one HEAP DUMP (SEGMENT) record of len bytes. */
static int read_heap(hp *m, uint64_t len)
{
    m->in_seg = 1;
    m->seg_left = len;
    int rc = IMP_OK;
    while (m->seg_left > 0 && rc == IMP_OK) {
        uint64_t start = lr_offset(&m->r);
        const uint8_t *p = take(m, 1);
        if (!p)
            return cut(m, "a heap dump record");
        int tag = p[0];
        if (m->android && (rc = android_before(m, tag)) != IMP_OK)
            return rc;
        if (tag != SUB_CLASS_DUMP && m->npend > 0 &&
            (rc = write_pending(m)) != IMP_OK)
            return rc;
        switch (tag) {
        case SUB_ROOT_UNKNOWN:
        case SUB_ROOT_JNI_GLOBAL:
        case SUB_ROOT_JNI_LOCAL:
        case SUB_ROOT_JAVA_FRAME:
        case SUB_ROOT_NATIVE_STACK:
        case SUB_ROOT_STICKY_CLASS:
        case SUB_ROOT_THREAD_BLOCK:
        case SUB_ROOT_MONITOR_USED:
        case SUB_ROOT_THREAD_OBJECT:
            rc = read_root(m, tag, root_size(m, tag), start);
            break;
        case SUB_CLASS_DUMP:
            rc = read_class_dump(m, start);
            break;
        case SUB_INSTANCE_DUMP:
            rc = read_instance(m, start);
            break;
        case SUB_OBJ_ARRAY_DUMP:
            rc = read_obj_array(m, start);
            break;
        case SUB_PRIM_ARRAY_DUMP:
            rc = read_prim_array(m, start);
            break;
        default:
            rc = read_android(m, tag, start);
        }
    }
    m->in_seg = 0;
    return rc;
}

int hprof_magic(const char *p, size_t n)
{
    static const char magic[] = "JAVA PROFILE 1.0.";
    return n >= sizeof magic - 1 && memcmp(p, magic, sizeof magic - 1) == 0;
}

/* The header: the version text and its NUL, the id size, the time. */
static int read_header(hp *m)
{
    size_t have = lr_need(&m->r, 64);
    const char *p = (const char *)lr_bytes(&m->r);
    if (!hprof_magic(p, have)) {
        if (m->r.error != IMP_OK && m->r.error != IMP_CUT)
            return cut(m, "the header");
        return corrupt(m, 0, "not an HPROF dump (it does not begin with "
                       "\"JAVA PROFILE 1.0.\")");
    }
    /* within the first 64 bytes, however many are buffered: the same
     * answer from a pipe and from a file read twice */
    const char *nul = memchr(p, '\0', have < 64 ? have : 64);
    if (!nul)
        return have < 64 ? cut(m, "the header")
                         : corrupt(m, 0, "the HPROF version text does not end");
    size_t vlen = (size_t)(nul - p);
    snprintf(m->version, sizeof m->version, "%.*s", (int)vlen, p);
    lr_take(&m->r, vlen + 1);
    const uint8_t *h = take(m, 12);
    if (!h)
        return cut(m, "the header");
    m->idsz = be32(h);
    if (!m->android && strcmp(m->version, "JAVA PROFILE 1.0.3") == 0) {
        if (!(m->android = hpa_new(m->opt->hprof_heaps)))
            return no_memory(m);
        m->android_how = "detected: JAVA PROFILE 1.0.3, Android's";
    }
    if (m->idsz != 4 && m->idsz != 8)
        return corrupt(m, vlen + 1, "identifier size %u (4 or 8 expected)",
                       m->idsz);
    return IMP_OK;
}

/* META, once the model is chosen: before the first heap record. */
static int write_meta(hp *m)
{
    int rc;
    char fmt[64];
    snprintf(fmt, sizeof fmt, "hprof (%s)", m->version);
    if ((rc = meta_write(m->w, "java", fmt, m->opt->source)) ||
        (rc = heapfmt_write_meta_uint(m->w, "ids_stable", 0)) ||
        (rc = heapfmt_write_meta_uint(m->w, "hprof.id_size", m->idsz)) ||
        (rc = heapfmt_write_meta_uint(m->w, "hprof.dump", m->want)))
        return rc;
    if (m->total && (rc = heapfmt_write_meta_uint(m->w, "hprof.dumps", m->total)))
        return rc;
    char model[400];
    if (m->model == &jl_art)
        snprintf(model, sizeof model,
                 "art: 8-byte object header, 12-byte array header, 4-byte "
                 "references, instance sizes as the dump states them, "
                 "8-byte alignment (%s)", m->model_how);
    else
        snprintf(model, sizeof model,
                 "hotspot %s: %u-byte object header, %u-byte array header, "
                 "%u-byte references, JDK 15+ field layout, 8-byte alignment "
                 "(%s)", m->model->name, m->model->header,
                 m->model->array_header, m->model->ref, m->model_how);
    if ((rc = heapfmt_write_meta_text(m->w, "jvm.size_model", model)))
        return rc;
    static const struct {
        const char *text;
        size_t off;
    } sids[] = {
        {"instance", offsetof(hp, sid_instance)},
        {"object array", offsetof(hp, sid_objarray)},
        {"primitive array", offsetof(hp, sid_primarray)},
        {"class", offsetof(hp, sid_class)},
        {"<super>", offsetof(hp, sid_super)},
        {"<classloader>", offsetof(hp, sid_loader)},
    };
    for (size_t i = 0; i < sizeof sids / sizeof sids[0]; i++)
        if ((rc = heapfmt_write_string(m->w, sids[i].text, strlen(sids[i].text),
                                       (uint32_t *)((char *)m + sids[i].off))))
            return rc;
    m->meta_done = 1;
    return HEAPFMT_OK;
}

/* A heap dump begins at byte start. */
static void begin_dump(hp *m, uint64_t start)
{
    if (m->ndumps < HP_LISTED)
        m->dump_at[m->ndumps] = start;
    if (m->ndumps < UINT32_MAX)
        m->ndumps++;
}

/* "2 heap dumps (at bytes 80886, 284583)" in buf. */
static void list_dumps(const hp *m, unsigned n, char *buf, size_t cap)
{
    size_t o = (size_t)snprintf(buf, cap, "%u heap dump%s (at byte%s", n,
                                n == 1 ? "" : "s", n == 1 ? "" : "s");
    for (unsigned i = 0; i < n && i < HP_LISTED && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%s %llu", i ? "," : "",
                              (unsigned long long)m->dump_at[i]);
    if (o < cap)
        snprintf(buf + o, cap - o, "%s)", n > HP_LISTED ? ", ..." : "");
}

/* One pass over the records after the header: pass 1 reads the names and
 * the chosen dump's classes, the others write. */
static int read_records(hp *m)
{
    int rc;
    for (;;) {
        uint64_t start = lr_offset(&m->r);
        size_t have = lr_need(&m->r, 9);
        if (have == 0 && m->r.error == IMP_OK && m->end_due) {
            /* segments end with HEAP DUMP END: a dump cut between two
             * records must not pass for a whole one */
            m->stopped = 1;
            m->st->truncated = 1;
            say(m, m->opt->strict ? IMPORT_DIAG_ERROR : IMPORT_DIAG_WARNING,
                "truncated dump: the input ends at byte %llu, before the "
                "HEAP DUMP END record", (unsigned long long)start);
            return IMP_STOP;
        }
        if (have == 0)
            return m->r.error != IMP_OK ? cut(m, "a record header") : IMP_OK;
        const uint8_t *p = take(m, 9);
        if (!p)
            return cut(m, "a record header");
        unsigned tag = p[0];
        uint64_t len = be32(p + 5);
        int read = 0; /* the record's body was read (else it is skipped) */
        switch (tag) {
        case TAG_UTF8:
            if (m->pass != 2) {
                rc = read_utf8(m, len, start);
                read = 1;
            } else if (len < m->idsz) { /* read in pass 1: its checks */
                return corrupt(m, start, "UTF8 record of %llu bytes, shorter "
                               "than an id", (unsigned long long)len);
            }
            break;
        case TAG_LOAD_CLASS:
            if (m->pass != 2) {
                rc = read_load_class(m, len, start);
                read = 1;
            } else if (len != 8 + 2 * (uint64_t)m->idsz) {
                return corrupt(m, start, "LOAD CLASS record of %llu bytes "
                               "(expected %u)", (unsigned long long)len,
                               8 + 2 * m->idsz);
            }
            break;
        case TAG_CONTROL_SETTINGS:
            m->agent = 1;
            break;
        case TAG_HEAP_DUMP:
        case TAG_HEAP_DUMP_SEGMENT:
            /* as jhat counts them: each HEAP DUMP is a dump, and so are
             * the SEGMENTs up to a HEAP DUMP END */
            if (tag == TAG_HEAP_DUMP || !m->seg_open)
                begin_dump(m, start);
            m->seg_open = tag == TAG_HEAP_DUMP_SEGMENT;
            if (m->ndumps != m->want)
                break;
            m->end_due = m->seg_open;
            if (m->pass != 1 && !m->meta_done) {
                if (m->pass == 0)
                    choose_model(m);
                if ((rc = write_meta(m)) != HEAPFMT_OK)
                    return writer_failed(m, rc);
            }
            rc = read_heap(m, len);
            read = 1;
            break;
        case TAG_HEAP_DUMP_END:
            if (m->seg_open && m->ndumps == m->want)
                m->end_due = 0;
            m->seg_open = 0;
            break;
        default: /* stack traces, threads...: not needed */
            break;
        }
        if (!read)
            rc = lr_skip(&m->r, len) < len ? cut(m, "a record") : IMP_OK;
        if (rc != IMP_OK)
            return rc;
    }
}

/* ------------------------------------------------------------------ */

static void hp_free(hp *m)
{
    lr_free(&m->r);
    const heapfmt_allocator *a = hf_default_allocator();
    hf_map_free(&m->str_of, a);
    hf_map_free(&m->class_of, a);
    free(m->str);
    free(m->text);
    for (size_t i = 0; i < m->ncls; i++)
        jl_free(&m->cls[i].lay);
    free(m->cls);
    free(m->fields);
    free(m->slots);
    free(m->refs);
    free(m->labels);
    free(m->chain);
    free(m->pend);
    free(m->pref);
    free(m->plab);
    hpa_free(m->android);
    free(m);
}

/* Reads the dump: twice from a regular file (the classes first, quietly,
 * and the model votes), once from a pipe. */
static void read_dump(hp *m, lr_read_fn read, void *opaque)
{
    const import_options *opt = m->opt;
    if (read_header(m) != IMP_OK)
        return;
    if (!opt->rewind) {
        read_records(m);
        return;
    }
    m->pass = 1;
    read_records(m);
    int whole = !m->stopped; /* else pass 2 meets and reports the same */
    m->pass = 2;
    if (m->writer_rc != HEAPFMT_OK) {
        say(m, IMPORT_DIAG_ERROR, "out of memory");
        return;
    }
    m->total = m->ndumps;
    /* first: a reading thread may still be reading ahead from the input,
     * and must be gone before the input moves back to its start */
    lr_free(&m->r);
    lr_init(&m->r, read, opaque, 0);
    if (opt->rewind(opaque) != 0) {
        say(m, IMPORT_DIAG_ERROR, "cannot read the input again: %s",
            strerror(errno));
        m->writer_rc = HEAPFMT_E_IO;
        return;
    }
    if (opt->buffer)
        m->r.initial_cap = opt->buffer;
    m->stopped = 0;
    m->st->truncated = 0;
    m->st->malformed = 0;
    m->ndumps = 0;
    m->seg_open = m->end_due = m->in_seg = 0;
    m->dup_classes = 0;
    m->st->two_pass = 1;
    if (m->android)
        hpa_new_pass(m->android);
    choose_model(m);
    if ((m->total >= m->want || !whole) && read_header(m) == IMP_OK)
        read_records(m);
}

int hprof_run(heapfmt_writer *w, lr_read_fn read, void *opaque,
              const import_options *opt, import_stats *st)
{
    hp *m = calloc(1, sizeof *m);
    if (!m)
        return import_nomem(opt);
    m->w = w;
    m->opt = opt;
    m->st = st;
    m->model = &jl_compressed; /* until choose_model */
    m->want = opt->hprof_dump ? opt->hprof_dump : 1;
    if (opt->jvm && strcmp(opt->jvm, "art") == 0) {
        /* --jvm=art: an Android dump, whatever its header says */
        if (!(m->android = hpa_new(opt->hprof_heaps))) {
            free(m);
            return import_nomem(opt);
        }
    }
    lr_init(&m->r, read, opaque, 0);
    if (opt->buffer)
        m->r.initial_cap = opt->buffer;
    hf_map_init(&m->str_of);
    hf_map_init(&m->class_of);

    read_dump(m, read, opaque);
    if (m->writer_rc == HEAPFMT_OK && m->npend > 0)
        write_pending(m);
    if (m->writer_rc == HEAPFMT_OK && m->android)
        android_finish(m);
    if (m->writer_rc == HEAPFMT_OK) {
        int frc = flush_roots(m);
        if (frc != HEAPFMT_OK && m->writer_rc == HEAPFMT_OK)
            writer_failed(m, frc);
    }
    st->bytes_read = m->r.bytes_read;
    st->bytes_json = lr_offset(&m->r);
    st->android = m->android != NULL;
    st->gzip = lr_is_gzip(&m->r);
    unsigned all = m->total > m->ndumps ? m->total : m->ndumps;
    char dumps[256];
    list_dumps(m, all, dumps, sizeof dumps);
    int result;
    if (m->writer_rc != HEAPFMT_OK) {
        result = IMPORT_FAILED;
    } else if (all > 0 && all < m->want && !m->stopped) {
        say(m, IMPORT_DIAG_ERROR, "--dump=%u: the input holds %s", m->want,
            dumps);
        result = IMPORT_FAILED;
    } else if (m->android && android_report(m)) {
        result = IMPORT_FAILED;
    } else if (st->objects == 0 && st->roots == 0) {
        say(m, IMPORT_DIAG_ERROR, m->stopped
                                      ? "no heap record before that: nothing "
                                        "to import"
                                      : "the dump has no heap records");
        result = IMPORT_FAILED;
    } else {
        result = m->stopped ? IMPORT_INCOMPLETE : IMPORT_OK;
        int lost = opt->strict ? IMPORT_DIAG_ERROR : IMPORT_DIAG_WARNING;
        if (all > 1)
            say(m, IMPORT_DIAG_WARNING, "the input holds %s: imported dump %u "
                "alone (--dump=N picks another; dumps are never merged)",
                dumps, m->want);
        if (m->undecoded > 0) {
            say(m, lost, "%llu instances of classes not dumped before them "
                "(or in chains over %d deep): written without references%s",
                (unsigned long long)m->undecoded, HP_MAX_DEPTH,
                m->pass == 0 ? " (the input was read once, as a pipe is: read "
                               "from a regular file, it is read twice and "
                               "keeps those whose class comes later)"
                             : "");
            result = IMPORT_INCOMPLETE;
        }
        if (m->bad_length > 0) {
            say(m, lost, "%llu instances whose field bytes disagree with "
                "their class: written without references",
                (unsigned long long)m->bad_length);
            result = IMPORT_INCOMPLETE;
        }
        if (m->dup_classes > 0)
            say(m, IMPORT_DIAG_WARNING, "%llu classes dumped twice: the first "
                "dump kept", (unsigned long long)m->dup_classes);
        if (opt->hprof_heaps && strcmp(opt->hprof_heaps, "all") != 0 &&
            !(m->android && m->android->named))
            say(m, IMPORT_DIAG_WARNING, "--heap=%s: the dump names no heaps "
                "(Android's do; HotSpot's and hprof-conv's output do not): "
                "every object imported", opt->hprof_heaps);
        if (m->art_late)
            say(m, IMPORT_DIAG_WARNING, "an Android dump converted by "
                "hprof-conv (java.lang.Object declares ART's shadow$_klass_), "
                "recognised too late to be read as Android's: the input was "
                "read once, as a pipe is; import it from a regular file or "
                "with --jvm=art");
        uint64_t v;
        const jl_model *voted = voted_model(m, &v);
        if (m->pass == 0 && !opt->jvm && voted && voted != m->model &&
            v > m->votes[0] + m->votes[1])
            say(m, IMPORT_DIAG_WARNING, "sizes follow the %s model, but %llu "
                "of %llu arrays followed by an object end where it begins "
                "under the %s model: import from a regular file (read twice, "
                "it is detected) or with --jvm=%s", m->model->name,
                (unsigned long long)v, (unsigned long long)m->voted,
                voted->name, voted->name);
        if (st->refs_dropped > 0) {
            say(m, lost, "%llu references left out to fit the format's limits",
                (unsigned long long)st->refs_dropped);
            result = IMPORT_INCOMPLETE;
        }
        if (result != IMPORT_OK && opt->strict)
            result = IMPORT_FAILED;
    }
    hp_free(m);
    return result;
}
