/* writer_bench.c -- the writer alone: objects already in memory, through
 * libheapfmt's writer into a file.
 *
 * Usage: writer_bench [-r RUNS] [-x TIMES] [[-c CODEC] [-t THREADS]
 *                     -l LEVEL]... [-o OUT] DUMP
 *
 * heapfmt-gen's timings include making up the objects. To measure the
 * library's writer by itself, this program first reads every record of
 * DUMP into memory (not timed): strings, classes, objects with their
 * values, references and their labels, roots. Then, in each run, for each
 * level in turn (default DEFLATE 0, 1, 6: rounds, so that a slow moment of
 * the host falls on every level alike), it writes the same records again
 * with heapfmt_write_* to OUT (default /dev/null), timing wall and CPU
 * (user and system) of the writing only. With -x TIMES the objects are written TIMES times over in
 * one dump (a longer, steadier measurement). An allocator hook counts the
 * writer's allocations, to show that none is made per object.
 * -c (zstd, deflate; default deflate) and -t (the writer option threads, 0
 * or 1; default 0) apply to the -l options after them.
 *
 * Prints one JSON object per level on standard output:
 *   {"level": L, "codec": "zstd", "threads": T, "objects": N, "bytes_out": B,
 *    "allocations": A, "runs": [{"wall_s": W, "user_s": U, "sys_s": S}]}
 * Exits 0, or 1 with a message on standard error. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "heapfmt.h"

static void die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "writer_bench: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (p == NULL)
        die("out of memory");
    return p;
}

/* What to write again, in dump order: strings, classes and roots one by
 * one, objects in runs. Objects are stored ready to write (heapfmt_object
 * with value and refs pointing into the model), so the timed loop only
 * hands each to the writer, as a VM's heap walk would. */
enum { R_STRING, R_CLASS, R_OBJECTS, R_ROOT };

typedef struct rec {
    int kind;
    size_t first, n; /* R_OBJECTS: objs[first .. first + n); R_ROOT: refs;
                        R_STRING: text */
    uint32_t id;     /* R_STRING: the id the writer must give it again;
                        R_ROOT: the kind's string id */
    heapfmt_class c; /* R_CLASS (name set at write time) */
    size_t name_off; /* R_CLASS: offset in text[]; SIZE_MAX for none */
    int labeled;     /* R_ROOT: labels[first ..] are its labels */
} rec;

typedef struct model {
    rec *recs;
    size_t nrecs, caprecs;
    heapfmt_object *objs; /* value and refs hold offsets until load ends */
    size_t nobjs, capobjs;
    uint64_t *refs;
    heapfmt_label *labels; /* [caprefs], labels[i] of refs[i]; NULL until
                              a record has labels */
    size_t nrefs, caprefs;
    char *text;
    size_t ntext, captext;
    uint64_t objects;
} model;

static rec *push(model *m)
{
    if (m->nrecs == m->caprecs) {
        m->caprecs = m->caprecs ? m->caprecs * 2 : 4096;
        m->recs = xrealloc(m->recs, m->caprecs * sizeof *m->recs);
    }
    rec *r = &m->recs[m->nrecs++];
    memset(r, 0, sizeof *r);
    return r;
}

static size_t put_text(model *m, const char *p, size_t n)
{
    if (m->ntext + n > m->captext) {
        while (m->ntext + n > m->captext)
            m->captext = m->captext ? m->captext * 2 : 1 << 20;
        m->text = xrealloc(m->text, m->captext);
    }
    memcpy(m->text + m->ntext, p, n);
    m->ntext += n;
    return m->ntext - n;
}

/* Appends n references, and their labels when the record has them (as
 * the reader delivers them: names by string id, which the strings keep
 * when written again). Returns where they start; *labeled tells whether
 * labels were kept. */
static size_t put_refs(model *m, heapfmt_reader *r, const uint64_t *ids,
                       size_t n, int *labeled)
{
    const heapfmt_rlabel *in;
    long nl = heapfmt_reader_labels(r, &in);
    if (nl < 0 || (nl > 0 && (size_t)nl != n))
        die("labels do not decode");
    if (m->nrefs + n > m->caprefs) {
        while (m->nrefs + n > m->caprefs)
            m->caprefs = m->caprefs ? m->caprefs * 2 : 1 << 20;
        m->refs = xrealloc(m->refs, m->caprefs * sizeof *m->refs);
        if (m->labels != NULL)
            m->labels = xrealloc(m->labels, m->caprefs * sizeof *m->labels);
    }
    memcpy(m->refs + m->nrefs, ids, n * sizeof *ids);
    *labeled = nl > 0;
    if (nl > 0) {
        if (m->labels == NULL)
            m->labels = xrealloc(NULL, m->caprefs * sizeof *m->labels);
        for (size_t i = 0; i < n; i++) {
            heapfmt_label *l = &m->labels[m->nrefs + i];
            l->kind = in[i].kind;
            l->weak = in[i].weak;
            l->value = in[i].kind == HEAPFMT_LABEL_INDEX ? in[i].index
                       : in[i].kind == HEAPFMT_LABEL_NONE ? 0
                                                          : in[i].name->id;
        }
    }
    m->nrefs += n;
    return m->nrefs - n;
}

/* Reads every STRING, CLASS, OBJECT and ROOT record of path. Class ids
 * come from the CLASS records; objects name their class by its id. */
static void load(model *m, const char *path)
{
    heapfmt_reader *r;
    int rc = heapfmt_reader_open_path(&r, NULL, path);
    if (rc != HEAPFMT_OK)
        die("%s: %s", path,
            r ? heapfmt_reader_error(r)->message : heapfmt_strerror(rc));
    heapfmt_record in;
    while ((rc = heapfmt_reader_next(r, &in)) == HEAPFMT_OK) {
        const uint64_t *ids;
        long n;
        rec *x;
        switch (in.tag) {
        case HEAPFMT_TAG_STRING:
            x = push(m);
            x->kind = R_STRING;
            x->first = put_text(m, in.u.string->ptr, in.u.string->len);
            x->n = in.u.string->len;
            x->id = in.u.string->id;
            break;
        case HEAPFMT_TAG_CLASS: {
            const heapfmt_rclass *c = in.u.klass;
            x = push(m);
            x->kind = R_CLASS;
            x->c.id = c->id ? c->id : 0x7e0000000000ull + c->index;
            x->c.super_id = c->super_id;
            x->c.flags = c->flags;
            x->name_off = SIZE_MAX;
            if (c->name != NULL) {
                x->name_off = put_text(m, c->name->ptr, c->name->len);
                x->c.name_len = c->name->len;
            }
            break;
        }
        case HEAPFMT_TAG_OBJECT: {
            const heapfmt_robject *o = in.u.object;
            if (m->nrecs == 0 || m->recs[m->nrecs - 1].kind != R_OBJECTS) {
                x = push(m);
                x->kind = R_OBJECTS;
                x->first = m->nobjs;
            }
            m->recs[m->nrecs - 1].n++;
            if (m->nobjs == m->capobjs) {
                m->capobjs = m->capobjs ? m->capobjs * 2 : 1 << 16;
                m->objs = xrealloc(m->objs, m->capobjs * sizeof *m->objs);
            }
            heapfmt_object *y = &m->objs[m->nobjs++];
            memset(y, 0, sizeof *y);
            y->id = o->id;
            y->class_id = o->klass->index == 0 ? 0
                          : o->klass->id     ? o->klass->id
                                             : 0x7e0000000000ull +
                                                   o->klass->index;
            y->type = o->type->id;
            y->fields = o->fields;
            y->size = o->size;
            y->flags = o->flags;
            y->file = o->file->id;
            y->line = o->line;
            y->generation = o->generation;
            if (o->fields & HEAPFMT_F_VALUE) {
                y->value_len = o->value_len;
                y->value = (const char *)(uintptr_t)put_text(m, o->value,
                                                            o->value_len);
            }
            if ((n = heapfmt_reader_refs(r, &ids)) < 0)
                die("%s: references do not decode", path);
            int labeled;
            y->refs = (const uint64_t *)(uintptr_t)put_refs(m, r, ids,
                                                            (size_t)n, &labeled);
            y->nrefs = (size_t)n;
            /* frames and stacks are not written again */
            y->fields &= ~(uint32_t)HEAPFMT_F_STACK;
            if (!labeled)
                y->fields &= ~(uint32_t)HEAPFMT_F_LABELS;
            m->objects++;
            break;
        }
        case HEAPFMT_TAG_ROOT:
            x = push(m);
            x->kind = R_ROOT;
            x->id = in.u.root->kind->id;
            if ((n = heapfmt_reader_refs(r, &ids)) < 0)
                die("%s: references do not decode", path);
            x->first = put_refs(m, r, ids, (size_t)n, &x->labeled);
            x->n = (size_t)n;
            break;
        default:
            break;
        }
    }
    if (rc != HEAPFMT_DONE)
        die("%s: %s", path, heapfmt_reader_error(r)->message);
    heapfmt_reader_free(r);
    for (size_t i = 0; i < m->nobjs; i++) { /* offsets into pointers */
        heapfmt_object *y = &m->objs[i];
        if (y->fields & HEAPFMT_F_LABELS)
            y->labels = m->labels + (uintptr_t)y->refs;
        y->refs = m->refs + (uintptr_t)y->refs;
        y->value = y->value_len ? m->text + (uintptr_t)y->value : NULL;
    }
}

/* ---- counting allocator ---- */

typedef struct counter {
    unsigned long allocations;
} counter;

/* With threads the writer's worker allocates too: the count is atomic. */
static void *count_alloc(void *opaque, size_t size)
{
    __atomic_fetch_add(&((counter *)opaque)->allocations, 1,
                       __ATOMIC_RELAXED);
    return malloc(size);
}

/* One writer configuration to measure. */
typedef struct config {
    int codec; /* enum heapfmt_codec */
    int level;
    int threads;
} config;

static void count_free(void *opaque, void *p)
{
    (void)opaque;
    free(p);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double tv(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec * 1e-6;
}

/* Writes the model once; returns the bytes written. String ids are given
 * again by the writer in the same order, so they stay the same. */
__attribute__((noinline)) static uint64_t
write_once(const model *m, const config *cf, const char *out, long times,
           counter *cnt)
{
    heapfmt_allocator al = {count_alloc, count_free, cnt};
    heapfmt_writer_options wo = HEAPFMT_WRITER_OPTIONS_INIT;
    wo.level = cf->level;
    wo.codec = cf->codec;
    wo.threads = cf->threads;
    wo.allocator = &al;
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        die("%s: %s", out, strerror(errno));
    heapfmt_writer *w;
    if (heapfmt_writer_open_fd(&w, &wo, fd) != HEAPFMT_OK)
        die("cannot create a writer");
    int rc = HEAPFMT_OK;
    for (size_t i = 0; i < m->nrecs && rc == HEAPFMT_OK; i++) {
        const rec *x = &m->recs[i];
        uint32_t id;
        switch (x->kind) {
        case R_STRING:
            rc = heapfmt_write_string(w, m->text + x->first, x->n, &id);
            if (rc == HEAPFMT_OK && id != x->id)
                die("string ids are not dense: %u written as %u",
                    (unsigned)x->id, (unsigned)id);
            break;
        case R_CLASS: {
            heapfmt_class c = x->c;
            c.name = x->name_off == SIZE_MAX ? NULL : m->text + x->name_off;
            rc = heapfmt_write_class(w, &c);
            break;
        }
        case R_OBJECTS:
            for (size_t k = x->first; k < x->first + x->n && rc == HEAPFMT_OK;
                 k++)
                rc = heapfmt_write_object(w, &m->objs[k]);
            break;
        case R_ROOT:
            rc = heapfmt_write_root_labeled(w, x->id, m->refs + x->first,
                                            x->labeled ? m->labels + x->first
                                                       : NULL,
                                            x->n);
            break;
        }
    }
    /* The extra passes: the objects again, every name already defined. */
    for (long t = 1; t < times && rc == HEAPFMT_OK; t++)
        for (size_t k = 0; k < m->nobjs && rc == HEAPFMT_OK; k++)
            rc = heapfmt_write_object(w, &m->objs[k]);
    if (rc == HEAPFMT_OK)
        rc = heapfmt_writer_finish(w);
    if (rc != HEAPFMT_OK)
        die("writing %s: %s", out, heapfmt_writer_error(w)->message);
    uint64_t bytes = heapfmt_writer_offset(w);
    heapfmt_writer_free(w);
    close(fd);
    return bytes;
}

/* Configurations (-l options) on one command line, at most. */
#define MAX_CONFIGS 16

/* What the runs of one configuration found. */
typedef struct result {
    char runs[4096]; /* the runs' JSON objects, comma-separated */
    size_t used;
    uint64_t bytes;  /* dump size */
    unsigned long allocations;
} result;

int main(int argc, char **argv)
{
    const char *out = "/dev/null";
    long runs = 3, times = 1;
    config configs[MAX_CONFIGS], next = {HEAPFMT_CODEC_DEFLATE, 1, 0};
    int nconfigs = 0, c;
    while ((c = getopt(argc, argv, "r:x:l:o:c:t:")) != -1) {
        char *e;
        long v;
        switch (c) {
        case 'c':
            if (strcmp(optarg, "zstd") == 0)
                next.codec = HEAPFMT_CODEC_ZSTD;
            else if (strcmp(optarg, "deflate") == 0)
                next.codec = HEAPFMT_CODEC_DEFLATE;
            else
                die("invalid -c value '%s' (zstd or deflate)", optarg);
            break;
        case 'r':
        case 'x':
        case 'l':
        case 't':
            v = strtol(optarg, &e, 10);
            if (*e != '\0' || v < (c == 'r' || c == 'x') ||
                v > (c == 'l' ? HEAPFMT_ZSTD_MAX_LEVEL : c == 't' ? 1 : 100) ||
                (c == 'l' && nconfigs == MAX_CONFIGS))
                die("invalid -%c value '%s'", c, optarg);
            if (c == 'r')
                runs = v;
            else if (c == 'x')
                times = v;
            else if (c == 't')
                next.threads = (int)v;
            else {
                next.level = (int)v;
                configs[nconfigs++] = next;
            }
            break;
        case 'o':
            out = optarg;
            break;
        default:
            return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "Usage: writer_bench [-r RUNS] [-x TIMES] "
                        "[[-c CODEC] [-t THREADS] -l LEVEL]... [-o OUT] "
                        "DUMP\n");
        return 2;
    }
    if (nconfigs == 0) {
        static const int levels[] = {0, 1, 6};
        for (int l = 0; l < 3; l++)
            configs[nconfigs++] = (config){HEAPFMT_CODEC_DEFLATE, levels[l], 0};
    }
    model m;
    memset(&m, 0, sizeof m);
    load(&m, argv[optind]);
    /* Rounds: every configuration once per round, so that a slow moment of
     * a shared host falls on all of them alike, not on one (the ratios
     * between configurations are what the bench judges). */
    static result res[MAX_CONFIGS];
    for (long i = 0; i < runs; i++) {
        for (int l = 0; l < nconfigs; l++) {
            result *r = &res[l];
            counter cnt = {0};
            struct rusage r0, r1;
            getrusage(RUSAGE_SELF, &r0);
            double w0 = now();
            r->bytes = write_once(&m, &configs[l], out, times, &cnt);
            double w1 = now();
            getrusage(RUSAGE_SELF, &r1);
            r->allocations = cnt.allocations;
            int n = snprintf(r->runs + r->used, sizeof r->runs - r->used,
                             "%s{\"wall_s\": %.6f, \"user_s\": %.6f, "
                             "\"sys_s\": %.6f}",
                             i ? ", " : "", w1 - w0,
                             tv(r1.ru_utime) - tv(r0.ru_utime),
                             tv(r1.ru_stime) - tv(r0.ru_stime));
            if (n > 0 && (size_t)n < sizeof r->runs - r->used)
                r->used += (size_t)n;
        }
    }
    for (int l = 0; l < nconfigs; l++) {
        const config *cf = &configs[l];
        printf("{\"level\": %d, \"codec\": \"%s\", \"threads\": %d, "
               "\"objects\": %llu, \"bytes_out\": %llu, "
               "\"allocations\": %lu, \"runs\": [%s]}\n",
               cf->level,
               heapfmt_codec_name(cf->level ? cf->codec : HEAPFMT_CODEC_STORED),
               cf->threads,
               (unsigned long long)m.objects * (unsigned long long)times,
               (unsigned long long)res[l].bytes, res[l].allocations,
               res[l].runs);
    }
    free(m.recs);
    free(m.objs);
    free(m.refs);
    free(m.labels);
    free(m.text);
    return 0;
}
