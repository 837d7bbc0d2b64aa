/* heapfmt_ext.c -- the HeapFmt Ruby module.
 *
 *   HeapFmt.dump(path_or_io, compress: true, codec: :zstd, level: 1,
 *                threads: true, gc: true, fork: false, wait: true,
 *                labels: true)
 *                                                 -> objects written
 *   HeapFmt.address(obj)                          -> the id obj has in dumps
 *
 * This file does everything that needs Ruby: options, opening the file,
 * the GC, metadata, fork and wait, errors. The walk itself is in
 * heapfmt_walk.c and allocates no Ruby object. bindings/ruby/README.md is the
 * manual.
 */
#define _GNU_SOURCE 1 /* as ruby/config.h has it: RTLD_DEFAULT */

#include <ruby.h>
#include <ruby/io.h>
#include <ruby/thread.h>
#include <ruby/version.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "heapfmt_ruby.h"
#include "outfile.h"

/* The interface between this extension and lib/heapfmt.rb, which refuses
 * an extension whose HeapFmt::EXT_ABI differs from its own: raise both
 * together when either side starts relying on something new. (-D lets a
 * test build a mismatched extension.) */
#ifndef HR_EXT_ABI
#define HR_EXT_ABI 1
#endif

/* The Ruby whose headers this extension was compiled with: its ABI. */
#ifndef HR_RUBY_API_MAJOR
#define HR_RUBY_API_MAJOR RUBY_API_VERSION_MAJOR
#define HR_RUBY_API_MINOR RUBY_API_VERSION_MINOR
#endif

/* Also exported by libruby without a public declaration. */
size_t rb_obj_gc_flags(VALUE obj, ID *flags, size_t max);

static VALUE mHeapFmt, eError;
static ID id_write, id_to_path, id_compress, id_gc, id_fork, id_wait;
static ID id_codec, id_level, id_threads, id_zstd, id_deflate, id_stored;
static ID id_labels;
static ID id_auto_compact, id_count, id_attached;
static ID id_wb_protected, id_old, id_uncollectible, id_marked, id_pinned;

/* Set while a dump is being prepared or walked in this process. The walk
 * holds the GVL throughout, but the preparation (GC.start runs finalizers,
 * signal handlers may run) can reach HeapFmt.dump again. */
static int dumping;

enum { TARGET_PATH, TARGET_FD, TARGET_WRITER };

/* Where a dump for an object with #write goes first: the walk cannot call
 * Ruby, so the bytes wait here and are written out after it. */
typedef struct membuf {
    char *data;
    size_t len, cap;
} membuf;

typedef struct dump_args {
    /* options */
    int codec, level, threads, gc, fork, wait, labels;
    /* target */
    int kind;
    VALUE target; /* as given */
    VALUE path;   /* TARGET_PATH: the path, a String */
    int fd;       /* the descriptor written, -1 for TARGET_WRITER */
    int own_fd;   /* opened here, so closed here */
    hf_outfile out; /* TARGET_PATH: a regular file goes through a
                       temporary, renamed over the path when the dump is
                       whole (outfile.h) */
    membuf mem;
    /* state */
    int guard;       /* holds `dumping` */
    int gc_disabled; /* disabled the GC here: enable it again */
    rb_pid_t pid;    /* fork: the child */
    int rfd, wfd;    /* fork: the result pipe */
    int reaped;
    int spool;       /* a target that may block (pipe, FIFO, socket)
                        without fork: the dump is built in memory, then
                        written without the GVL */
    hr_context ctx;
    hr_result res;
} dump_args;

/* ---- helpers ---- */

static long membuf_write(void *opaque, const void *buf, size_t len)
{
    membuf *m = opaque;
    if (m->cap - m->len < len) {
        size_t cap = m->cap ? m->cap : (1u << 20);
        while (cap - m->len < len) {
            if (cap > SIZE_MAX / 2)
                return -ENOMEM;
            cap *= 2;
        }
        char *p = realloc(m->data, cap);
        if (!p)
            return -ENOMEM;
        m->data = p;
        m->cap = cap;
    }
    memcpy(m->data + m->len, buf, len);
    m->len += len;
    return (long)len;
}

static void copy_text(char *dst, size_t size, VALUE v, const char *fallback)
{
    if (RB_TYPE_P(v, RUBY_T_STRING))
        snprintf(dst, size, "%.*s", (int)RSTRING_LEN(v), RSTRING_PTR(v));
    else
        snprintf(dst, size, "%s", fallback);
}

/* Seconds since 1970 at which this process started, from /proc (Linux);
 * 0 when unknown. */
static uint64_t process_start_time(void)
{
    char buf[1024];
    unsigned long long start_ticks = 0, btime = 0;
    long hz = sysconf(_SC_CLK_TCK);
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may hold anything */
    if (!p || hz <= 0)
        return 0;
    /* The fields after the name are separated by single spaces: field 3
     * (state) follows the first, starttime (field 22) the 20th. */
    for (int field = 3; field <= 22 && p; field++)
        p = strchr(p + 1, ' ');
    if (!p || sscanf(p + 1, "%llu", &start_ticks) != 1)
        return 0;
    f = fopen("/proc/stat", "r");
    if (!f)
        return 0;
    while (fgets(buf, sizeof buf, f))
        if (sscanf(buf, "btime %llu", &btime) == 1)
            break;
    fclose(f);
    return btime ? btime + start_ticks / (unsigned long long)hz : 0;
}

/* objspace's allocation lookup, if objspace is loaded and its record has
 * the layout we know. */
static hr_lookup_fn find_allocation_lookup(void)
{
#if RUBY_API_VERSION_CODE >= 20200 && RUBY_API_VERSION_CODE < 30500
    if (dlsym(RTLD_DEFAULT, "objspace_lookup_locindex")) /* a newer layout */
        return NULL;
    void *f = dlsym(RTLD_DEFAULT, "objspace_lookup_allocation_info");
    hr_lookup_fn fn = NULL;
    if (f)
        memcpy(&fn, &f, sizeof fn);
    return fn;
#else
    return NULL;
#endif
}

/* objspace's table of traced allocations (object -> record), for a walk
 * that reads it in one pass. objspace keeps it in a static variable of
 * its own (Ruby 3.1: tmp_trace_arg->object_table), reachable only through
 * the code of objspace_lookup_allocation_info, which loads the variable
 * (mov REG, [rip + disp32]) and hands a field of what it points to (mov
 * rdi, [REG + disp8]) to st_lookup. Used only when that code has this
 * shape, the variable lies in objspace's own image, the field holds a
 * table of st_init_numtable's type, and the table gives a fresh object
 * the record lookup gives it; else NULL, and the walk looks each object
 * up. Allocates one Ruby object (the probe). x86-64, Ruby 3.1 (the
 * layouts read here are checked only there).
 *
 * Until the table is known to be one, every pointer found in the code is
 * read through the kernel (read_own): a build whose code has the shape but
 * other meanings would hand us an address that may not be mapped, and the
 * host must get an answer, not a SIGSEGV. */
static int read_own(void *out, const void *at, size_t n)
{
    struct iovec to = {out, n}, from = {(void *)(uintptr_t)at, n};
    return process_vm_readv(getpid(), &to, 1, &from, 1, 0) == (ssize_t)n;
}

static st_table *find_allocation_table(hr_lookup_fn lookup)
{
#if defined(__x86_64__) && RUBY_API_VERSION_CODE >= 30100 && \
    RUBY_API_VERSION_CODE < 30200
    const unsigned char *code;
    memcpy(&code, &lookup, sizeof code);
    Dl_info fi, vi;
    if (!dladdr(code, &fi) || fi.dli_fname == NULL)
        return NULL;
    const unsigned char *var = NULL;
    int reg = -1, field = -1;
    for (int i = 0; i < 24 && var == NULL; i++) {
        if (code[i] != 0x48 || code[i + 1] != 0x8b ||
            (code[i + 2] & 0xc7) != 0x05)
            continue; /* not mov r64, [rip + disp32] */
        int32_t disp;
        memcpy(&disp, code + i + 3, sizeof disp);
        var = code + i + 7 + disp;
        reg = (code[i + 2] >> 3) & 7;
        for (int j = i + 7; j < i + 24 && field < 0; j++)
            if (reg != 4 && code[j] == 0x48 && code[j + 1] == 0x8b &&
                code[j + 2] == (0x78 | reg)) /* mov rdi, [REG + disp8] */
                field = code[j + 3];
    }
    if (var == NULL || field < 0 || !dladdr(var, &vi) ||
        vi.dli_fname == NULL || strcmp(vi.dli_fname, fi.dli_fname) != 0)
        return NULL;
    const char *arg;
    st_table *t;
    const struct st_hash_type *type;
    if (!read_own(&arg, var, sizeof arg) || arg == NULL ||
        !read_own(&t, arg + field, sizeof t) || t == NULL ||
        !read_own(&type, &t->type, sizeof type))
        return NULL; /* unmapped, or a sandbox without process_vm_readv */
    st_table *ref = st_init_numtable();
    int same_type = type == ref->type;
    st_free_table(ref);
    if (!same_type)
        return NULL;
    VALUE probe = rb_obj_alloc(rb_cObject);
    st_data_t rec = 0;
    void *info = lookup(probe);
    int found = info != NULL && st_lookup(t, (st_data_t)probe, &rec) &&
                (void *)rec == info;
    RB_GC_GUARD(probe);
    return found ? t : NULL;
#else
    (void)lookup;
    return NULL;
#endif
}

static int auto_compact_enabled(void)
{
    if (!rb_respond_to(rb_mGC, id_auto_compact))
        return 0;
    return RTEST(rb_funcall(rb_mGC, id_auto_compact, 0));
}

/* Whether global variable name is the program's own, safe to read: a
 * plain name ($[A-Za-z_][A-Za-z0-9_]*) and not one of Ruby's special
 * variables whose reading depends on the frame, warns or does I/O. */
static int plain_global(const char *name)
{
    static const char *const special[] = {"$_", "$SAFE", "$KCODE",
                                          "$FILENAME", "$-K"};
    if (name[0] != '$' ||
        !(name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z') ||
          (name[1] >= 'a' && name[1] <= 'z')))
        return 0;
    for (const char *p = name + 2; *p; p++)
        if (!(*p == '_' || (*p >= '0' && *p <= '9') ||
              (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
            return 0;
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        if (strcmp(name, special[i]) == 0)
            return 0;
    return strlen(name) < sizeof ((struct hr_global *)0)->name;
}

static int by_module(const void *x, const void *y)
{
    VALUE a = ((const struct hr_constant *)x)->module;
    VALUE b = ((const struct hr_constant *)y)->module;
    return (a > b) - (a < b);
}

/* Exported by libruby, declared in its internal headers. */
void rb_objspace_each_objects(int (*callback)(void *start, void *end,
                                              size_t stride, void *data),
                              void *data);

typedef struct const_walk {
    hr_context *c;
    size_t cap;
    size_t cmodules;
    int failed; /* out of memory for the module list: the walk finds them */
    VALUE mod;
    ID id;
} const_walk;

static VALUE const_get_body(VALUE arg)
{
    const const_walk *w = (const const_walk *)arg;
    return rb_const_get_at(w->mod, w->id);
}

/* One constant of the module being read: kept when it holds a heap
 * object. Autoloads are not triggered (an autoload is left out). */
static int const_i(st_data_t key, st_data_t value, st_data_t arg)
{
    const_walk *w = (const_walk *)arg;
    ID id = (ID)key;
    (void)value;
    if (!NIL_P(rb_autoload_p(w->mod, id)) || !rb_const_defined_at(w->mod, id))
        return ST_CONTINUE;
    w->id = id;
    int state = 0;
    VALUE v = rb_protect(const_get_body, (VALUE)w, &state);
    if (state) { /* a constant that cannot be read is left out */
        rb_set_errinfo(Qnil);
        return ST_CONTINUE;
    }
    const char *name = rb_id2name(id);
    if (RB_SPECIAL_CONST_P(v) || name == NULL ||
        strlen(name) >= sizeof w->c->constants[0].name)
        return ST_CONTINUE;
    if (w->c->nconstants == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 1024;
        void *p = realloc(w->c->constants, cap * sizeof *w->c->constants);
        if (p == NULL)
            return ST_STOP; /* fewer labels, the dump is still whole */
        w->c->constants = p;
        w->cap = cap;
    }
    struct hr_constant *k = &w->c->constants[w->c->nconstants++];
    k->module = w->mod;
    k->value = v;
    snprintf(k->name, sizeof k->name, "%s", name);
    return ST_CONTINUE;
}

static int module_i(void *vstart, void *vend, size_t stride, void *data)
{
    const_walk *w = data;
    for (char *p = vstart; p < (char *)vend; p += stride) {
        VALUE v = (VALUE)p;
        if (!RBASIC(v)->flags || (RB_BUILTIN_TYPE(v) != RUBY_T_CLASS &&
                                  RB_BUILTIN_TYPE(v) != RUBY_T_MODULE))
            continue;
        hr_context *c = w->c;
        if (c->nmodules == w->cmodules && !w->failed) {
            size_t cap = w->cmodules ? 2 * w->cmodules : 1024;
            VALUE *m = realloc(c->modules, cap * sizeof *m);
            if (m == NULL)
                w->failed = 1;
            else {
                c->modules = m;
                w->cmodules = cap;
            }
        }
        if (!w->failed)
            c->modules[c->nmodules++] = v;
        st_table *names = rb_mod_const_at(v, NULL);
        if (names == NULL)
            continue;
        w->mod = v;
        st_foreach(names, const_i, (st_data_t)w);
        st_free_table(names);
    }
    return 0;
}

/* The constants of every module holding a heap object, for the walk's
 * labels, sorted by module, and every module (c->modules: the walk's
 * classes, without a pass of its own). Read before the walk (which calls
 * no Ruby), with the GC off: the values stay where they are until the
 * walk is over. Allocates no Ruby object. */
static void collect_constants(hr_context *c)
{
    const_walk w = {c, 0, 0, 0, Qnil, 0};
    rb_objspace_each_objects(module_i, &w);
    if (w.failed) {
        free(c->modules);
        c->modules = NULL;
        c->nmodules = 0;
    }
    if (c->nconstants > 1)
        qsort(c->constants, c->nconstants, sizeof *c->constants, by_module);
}

/* The global variables holding heap objects, for the walk's labels. */
static void collect_globals(hr_context *c)
{
    VALUE names = rb_f_global_variables();
    long n = RARRAY_LEN(names);
    c->globals = malloc((size_t)(n > 0 ? n : 1) * sizeof *c->globals);
    if (c->globals == NULL)
        return; /* no labels, the dump is still whole */
    for (long i = 0; i < n; i++) {
        const char *name = rb_id2name(SYM2ID(rb_ary_entry(names, i)));
        if (name == NULL || !plain_global(name))
            continue;
        VALUE v = rb_gv_get(name);
        if (RB_SPECIAL_CONST_P(v))
            continue;
        struct hr_global *g = &c->globals[c->nglobals++];
        g->value = v;
        snprintf(g->name, sizeof g->name, "%s", name);
    }
}

/* The IDs the walk compares rb_obj_gc_flags' answers with. */
static void flag_ids(hr_context *c)
{
    c->id_wb_protected = id_wb_protected;
    c->id_old = id_old;
    c->id_uncollectible = id_uncollectible;
    c->id_marked = id_marked;
    c->id_pinned = id_pinned;
    c->id_attached = id_attached;
}

static void fill_context(dump_args *a)
{
    hr_context *c = &a->ctx;
    memset(c, 0, sizeof *c);
    copy_text(c->vm_version, sizeof c->vm_version,
              rb_const_get(rb_cObject, rb_intern("RUBY_VERSION")), "unknown");
    copy_text(c->vm_description, sizeof c->vm_description,
              rb_const_get(rb_cObject, rb_intern("RUBY_DESCRIPTION")),
              "unknown");
    if (gethostname(c->host, sizeof c->host - 1) != 0)
        snprintf(c->host, sizeof c->host, "unknown");
    c->host[sizeof c->host - 1] = '\0';
    c->pid = (uint64_t)getpid();
    c->time = (uint64_t)time(NULL);
    c->process_start = process_start_time();
    c->gc_count = rb_gc_count();
#if RUBY_API_VERSION_CODE >= 30000
    c->compactions = rb_gc_stat(ID2SYM(rb_intern("compact_count")));
#endif
    /* Addresses change only when objects are compacted: automatically
     * when auto_compact is on, else only through GC.compact, which
     * gc.compactions counts. */
    c->ids_stable = !auto_compact_enabled();
    c->lookup = find_allocation_lookup();
    c->allocations = c->lookup ? find_allocation_table(c->lookup) : NULL;
    flag_ids(c);
    c->codec = a->codec;
    c->level = a->level;
    c->threads = a->threads;
    c->labels = a->labels;
    if (!a->labels)
        return; /* the names below only label references */
    collect_globals(c);
    /* A pass over the whole heap (35 ms at 5M objects): with fork the
     * child makes it, not the paused application. */
    if (!a->fork)
        collect_constants(c);
}

static void check_single_ractor(void)
{
#if RUBY_API_VERSION_CODE >= 30000
    ID id_ractor = rb_intern("Ractor");
    if (!rb_const_defined(rb_cObject, id_ractor))
        return;
    VALUE n = rb_funcall(rb_const_get(rb_cObject, id_ractor), id_count, 0);
    if (NUM2LONG(n) > 1)
        rb_raise(eError, "cannot dump the heap while other Ractors run");
#endif
}

/* ---- arguments ---- */

/* The codec named by codec: (a Symbol or a String). */
static int parse_codec(VALUE v)
{
    ID id = 0;
    if (RB_SYMBOL_P(v))
        id = rb_sym2id(v);
    else if (RB_TYPE_P(v, RUBY_T_STRING))
        id = rb_intern_str(v);
    if (id == id_zstd)
        return HEAPFMT_CODEC_ZSTD;
    if (id == id_deflate)
        return HEAPFMT_CODEC_DEFLATE;
    if (id == id_stored)
        return HEAPFMT_CODEC_STORED;
    rb_raise(rb_eArgError, "codec: must be :zstd, :deflate or :stored, not %"
             PRIsVALUE, rb_inspect(v));
}

static int max_level(int codec)
{
    return codec == HEAPFMT_CODEC_ZSTD      ? HEAPFMT_ZSTD_MAX_LEVEL
           : codec == HEAPFMT_CODEC_DEFLATE ? HEAPFMT_DEFLATE_MAX_LEVEL
                                            : 0;
}

/* compress: true (default) / false / an Integer level; codec:; level:.
 * The codec defaults to Zstandard (DEFLATE in a libheapfmt built without
 * it), the level to 1; level 0 (or compress: false, or codec: :stored)
 * stores the blocks. compress: 0-9 keeps its old meaning, a level. */
static void parse_compression(dump_args *a, VALUE compress, VALUE codec,
                              VALUE level)
{
    int codec_given = codec != Qundef && !NIL_P(codec);
    a->codec = codec_given ? parse_codec(codec)
               : heapfmt_codec_supported(HEAPFMT_CODEC_ZSTD)
                   ? HEAPFMT_CODEC_ZSTD
                   : HEAPFMT_CODEC_DEFLATE;
    a->level = 1;
    VALUE lv = Qundef;
    const char *lname = "level:";
    if (compress != Qundef && RB_INTEGER_TYPE_P(compress)) {
        if (level != Qundef && !NIL_P(level))
            rb_raise(rb_eArgError,
                     "give the level as compress: or as level:, not both");
        lv = compress;
        lname = "compress:";
    } else if (level != Qundef && !NIL_P(level)) {
        lv = level;
        if (compress != Qundef && !RTEST(compress) && NUM2LONG(lv) != 0)
            rb_raise(rb_eArgError, "compress: false with level: %ld",
                     NUM2LONG(lv));
    } else if (compress != Qundef && !RTEST(compress)) {
        a->level = 0;
    }
    if (a->codec == HEAPFMT_CODEC_STORED) {
        if (lv != Qundef && NUM2LONG(lv) != 0)
            rb_raise(rb_eArgError,
                     "codec: :stored does not compress (%s must be 0)", lname);
        a->level = 0;
    } else if (lv != Qundef) {
        long l = NUM2LONG(lv);
        int max = max_level(a->codec);
        if (l < 0 || l > max)
            rb_raise(rb_eArgError, "%s %s level must be 0-%d, not %ld", lname,
                     heapfmt_codec_name(a->codec), max, l);
        a->level = (int)l;
    }
    if (a->level > 0 && !heapfmt_codec_supported(a->codec))
        rb_raise(eError, "this libheapfmt was built without %s support",
                 heapfmt_codec_name(a->codec));
}

static void parse_options(dump_args *a, VALUE opts)
{
    a->gc = 1;
    a->fork = 0;
    a->wait = 1;
    a->threads = 1; /* compression off the walk's path */
    a->labels = 1;
    enum { COMPRESS, CODEC, LEVEL, THREADS, GC, FORK, WAIT, LABELS, NKEYS };
    VALUE v[NKEYS];
    for (int i = 0; i < NKEYS; i++)
        v[i] = Qundef;
    if (!NIL_P(opts)) {
        ID keys[NKEYS] = {id_compress, id_codec, id_level, id_threads,
                          id_gc,       id_fork,  id_wait,  id_labels};
        rb_get_kwargs(opts, keys, 0, NKEYS, v);
    }
    parse_compression(a, v[COMPRESS], v[CODEC], v[LEVEL]);
    if (v[THREADS] != Qundef)
        a->threads = RTEST(v[THREADS]);
    if (v[GC] != Qundef)
        a->gc = RTEST(v[GC]);
    if (v[FORK] != Qundef)
        a->fork = RTEST(v[FORK]);
    if (v[WAIT] != Qundef)
        a->wait = RTEST(v[WAIT]);
    if (v[LABELS] != Qundef)
        a->labels = RTEST(v[LABELS]);
}

static void classify_target(dump_args *a, VALUE target)
{
    a->target = target;
    /* A real IO first: a File also has #to_path, but is written as opened.
     * Objects that only wrap an IO (Zlib::GzipWriter has #to_io) are
     * written through their #write, else the wrapper would be bypassed. */
    if (RB_TYPE_P(target, RUBY_T_FILE)) {
        rb_io_t *fptr;
        VALUE wio = rb_io_get_write_io(target);
        GetOpenFile(wio, fptr);
        if (!(fptr->mode & FMODE_WRITABLE))
            rb_raise(rb_eIOError, "not opened for writing");
        rb_io_check_writable(fptr);
        rb_io_flush(wio); /* what Ruby buffered goes first */
        a->kind = TARGET_FD;
        a->fd = fptr->fd;
    } else if (RB_TYPE_P(target, RUBY_T_STRING) ||
               rb_respond_to(target, id_to_path)) {
        a->kind = TARGET_PATH;
        a->path = rb_get_path(target);
        StringValueCStr(a->path); /* no NUL inside */
    } else if (rb_respond_to(target, id_write)) {
        a->kind = TARGET_WRITER;
    } else {
        rb_raise(rb_eTypeError,
                 "expected a path, an IO or an object with #write, not %"
                 PRIsVALUE, rb_obj_class(target));
    }
}

/* ---- the dump ---- */

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/* Ends the file opened for a path: renamed to its name when the dump is
 * whole, removed otherwise. A close failure (NFS, quota) fails the dump,
 * since data may be lost. */
static void close_own_fd(dump_args *a, hr_result *res)
{
    if (!a->own_fd || a->fd < 0)
        return;
    a->fd = -1; /* a->out.fd: closed below */
    if (res->status != HEAPFMT_OK) {
        hf_outfile_discard(&a->out);
        return;
    }
    int temp = a->out.temp;
    if (hf_outfile_commit(&a->out) != 0) {
        res->status = HEAPFMT_E_IO;
        res->sys_errno = errno;
        snprintf(res->message, sizeof res->message, "%s failed: %s",
                 temp ? "rename" : "close", strerror(errno));
    }
}

/* In the child: dump, report through the pipe, leave without running any
 * Ruby (no at_exit, no finalizers, no flushing of inherited buffers). */
static void child_main(dump_args *a)
{
    static const int reset[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT,
                                SIGUSR1, SIGUSR2, SIGALRM};
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++)
        signal(reset[i], SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    close_fd(&a->rfd);

    /* No compression thread here: glibc gives a thread created in the
     * child the stack memory of the parent's other threads (they do not
     * exist in the child), and the walk reads those stacks when it marks
     * their Thread objects: a crash, seen with a ticking thread. The
     * parent runs on meanwhile, so compressing on this thread costs the
     * application nothing. */
    a->ctx.threads = 0;
    if (a->ctx.labels)
        collect_constants(&a->ctx);
    hr_result res;
    hr_dump_heap(&a->ctx, a->fd, NULL, NULL, &res);
    close_own_fd(a, &res);
    if (a->wfd >= 0) {
        const char *p = (const char *)&res;
        size_t left = sizeof res;
        while (left > 0) {
            ssize_t n = write(a->wfd, p, left);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            p += n;
            left -= (size_t)n;
        }
    }
    _exit(res.status == HEAPFMT_OK ? 0 : 1);
}

static void start_child(dump_args *a)
{
    int p[2] = {-1, -1};
    if (a->wait) {
        if (rb_pipe(p) < 0)
            rb_sys_fail("pipe");
        a->rfd = p[0];
        a->wfd = p[1];
    }
    rb_pid_t pid = fork();
    if (pid < 0)
        rb_sys_fail("fork");
    if (pid == 0)
        child_main(a); /* does not return */
    a->pid = pid;
    close_fd(&a->wfd);
}

/* ---- targets that may block ---- */

typedef struct nogvl_io {
    const char *path;
    hf_outfile *out;
    int fd;
    const char *buf;
    size_t len;
    ssize_t ret;
    int err;
} nogvl_io;

static void *open_nogvl(void *arg)
{
    nogvl_io *io = arg;
    io->fd = hf_outfile_open(io->out, io->path) == 0 ? io->out->fd : -1;
    io->err = errno;
    return NULL;
}

static void *write_nogvl(void *arg)
{
    nogvl_io *io = arg;
    io->ret = write(io->fd, io->buf, io->len);
    io->err = errno;
    return NULL;
}

/* Opens the target path without the GVL: a FIFO without a reader blocks
 * in open(2), and the other threads must go on meanwhile. Interruptible
 * (Thread#raise, Timeout): EINTR checks the thread's interrupts. */
static int open_target(VALUE path, hf_outfile *out)
{
    nogvl_io io = {RSTRING_PTR(path), out, -1, NULL, 0, 0, 0};
    for (;;) {
        rb_thread_call_without_gvl(open_nogvl, &io, RUBY_UBF_IO, NULL);
        if (io.fd >= 0 || io.err != EINTR)
            break;
        rb_thread_check_ints();
    }
    if (io.fd < 0)
        rb_syserr_fail_str(io.err, path);
    rb_update_max_fd(io.fd);
    return io.fd;
}

/* Whether writing fd may block for long: anything but a regular file. */
static int may_block(int fd)
{
    struct stat st;
    return fstat(fd, &st) != 0 || !S_ISREG(st.st_mode);
}

/* Writes the dump built in memory to the target, without the GVL. */
static void write_spool(dump_args *a)
{
    size_t off = 0;
    while (off < a->mem.len && a->res.status == HEAPFMT_OK) {
        nogvl_io io = {NULL, NULL, a->fd, a->mem.data + off,
                       a->mem.len - off, 0, 0};
        rb_thread_call_without_gvl(write_nogvl, &io, RUBY_UBF_IO, NULL);
        if (io.ret > 0) {
            off += (size_t)io.ret;
        } else if (io.ret < 0 && io.err == EINTR) {
            rb_thread_check_ints();
        } else if (io.ret < 0 && (io.err == EAGAIN || io.err == EWOULDBLOCK)) {
            rb_thread_fd_writable(a->fd);
        } else {
            a->res.status = HEAPFMT_E_IO;
            a->res.sys_errno = io.ret < 0 ? io.err : EIO;
            snprintf(a->res.message, sizeof a->res.message,
                     "write failed: %s", strerror(a->res.sys_errno));
        }
    }
    if (a->res.status == HEAPFMT_OK)
        a->res.bytes = a->mem.len;
}

static VALUE dump_body(VALUE arg)
{
    dump_args *a = (dump_args *)arg;
    dumping = 1;
    a->guard = 1;
    if (a->kind == TARGET_PATH) {
        a->fd = open_target(a->path, &a->out);
        a->own_fd = 1;
    }
    /* Without fork the walk holds the GVL; a target that may block gets
     * the dump once it is whole, written without the GVL. */
    a->spool = !a->fork && a->kind != TARGET_WRITER && may_block(a->fd);
    if (a->gc)
        rb_gc_start();
    /* Also finishes any lazy sweep, so that every slot the walk sees holds
     * a valid object or nothing; without GC nothing moves or dies. */
    a->gc_disabled = !RTEST(rb_gc_disable());
    fill_context(a);
    if (a->fork) {
        start_child(a);
        if (a->own_fd) { /* the child has its own copy, and renames */
            close_fd(&a->fd);
            a->out.fd = -1;
        }
    } else {
        int direct = a->kind != TARGET_WRITER && !a->spool;
        hr_dump_heap(&a->ctx, direct ? a->fd : -1, membuf_write, &a->mem,
                     &a->res);
        if (a->spool) {
            if (a->gc_disabled) { /* the heap may change from here on */
                rb_gc_enable();
                a->gc_disabled = 0;
            }
            write_spool(a);
        }
        close_own_fd(a, &a->res);
    }
    return Qnil;
}

static VALUE dump_cleanup(VALUE arg)
{
    dump_args *a = (dump_args *)arg;
    if (a->gc_disabled) {
        rb_gc_enable();
        a->gc_disabled = 0;
    }
    if (a->own_fd && !a->pid) { /* the dump did not end: nothing is left */
        hf_outfile_discard(&a->out);
        a->fd = -1;
    }
    close_fd(&a->wfd);
    if (!a->pid)
        close_fd(&a->rfd); /* no child to wait for */
    if (a->guard) {
        dumping = 0;
        a->guard = 0;
    }
    free(a->ctx.globals);
    a->ctx.globals = NULL;
    a->ctx.nglobals = 0;
    free(a->ctx.constants);
    a->ctx.constants = NULL;
    a->ctx.nconstants = 0;
    free(a->ctx.modules);
    a->ctx.modules = NULL;
    a->ctx.nmodules = 0;

    if (a->spool) {
        free(a->mem.data);
        a->mem.data = NULL;
        a->mem.len = a->mem.cap = 0;
    }
    return Qnil;
}

/* ---- after the dump ---- */

static VALUE wait_body(VALUE arg)
{
    dump_args *a = (dump_args *)arg;
    hr_result res;
    size_t got = 0;
    while (got < sizeof res) {
        rb_thread_wait_fd(a->rfd); /* without the GVL; interruptible */
        ssize_t n = read(a->rfd, (char *)&res + got, sizeof res - got);
        if (n > 0)
            got += (size_t)n;
        else if (n == 0)
            break; /* the child is gone */
        else if (errno != EINTR && errno != EAGAIN)
            rb_sys_fail("read");
    }
    int status = 0;
    rb_pid_t r = rb_waitpid(a->pid, &status, 0);
    /* ECHILD: another part of the program reaped it. */
    if (r == a->pid || (r < 0 && errno == ECHILD))
        a->reaped = 1;
    if (got < sizeof res) {
        if (a->own_fd && a->out.temp) /* the child could not remove it */
            unlink(a->out.tmp);
        if (r == a->pid && WIFSIGNALED(status))
            rb_raise(eError,
                     "the dumping child (pid %ld) was killed by signal %d",
                     (long)a->pid, WTERMSIG(status));
        rb_raise(eError, "the dumping child (pid %ld) ended without a result",
                 (long)a->pid);
    }
    a->res = res;
    return Qnil;
}

static VALUE wait_cleanup(VALUE arg)
{
    dump_args *a = (dump_args *)arg;
    close_fd(&a->rfd);
    if (!a->reaped)
        rb_detach_process(a->pid);
    return Qnil;
}

/* Hands the dump to the target's #write, a megabyte at a time. #write
 * must say how many bytes it took (IO#write does): fewer than given are
 * followed by the rest; 0, nil or anything not an Integer is a failure,
 * never a dump reported as written. */
static VALUE write_out_body(VALUE arg)
{
    dump_args *a = (dump_args *)arg;
    const size_t chunk = 1u << 20;
    size_t off = 0;
    while (off < a->mem.len) {
        size_t n = a->mem.len - off < chunk ? a->mem.len - off : chunk;
        VALUE s = rb_str_new(a->mem.data + off, (long)n);
        VALUE r = rb_funcall(a->target, id_write, 1, s);
        if (!RB_INTEGER_TYPE_P(r) || NUM2LL(r) <= 0 ||
            (unsigned long long)NUM2LL(r) > n)
            rb_raise(eError,
                     "the target's #write returned %" PRIsVALUE
                     " for %zu bytes: the dump was not written (%zu of %zu "
                     "bytes were)",
                     rb_inspect(r), n, off, a->mem.len);
        off += (size_t)NUM2LL(r);
    }
    return Qnil;
}

static VALUE write_out_cleanup(VALUE arg)
{
    dump_args *a = (dump_args *)arg;
    free(a->mem.data);
    a->mem.data = NULL;
    a->mem.len = a->mem.cap = 0;
    return Qnil;
}

static void raise_result(const dump_args *a)
{
    const hr_result *r = &a->res;
    if (r->status == HEAPFMT_E_IO && r->sys_errno)
        rb_syserr_fail_str(r->sys_errno, a->kind == TARGET_PATH
                                             ? a->path
                                             : rb_str_new_cstr("heap dump"));
    rb_raise(eError, "%s", r->message[0] ? r->message
                                         : heapfmt_strerror(r->status));
}

/*
 * call-seq:
 *   HeapFmt.dump(path_or_io, compress: true, codec: :zstd, level: 1,
 *                threads: true, gc: true, fork: false, wait: true,
 *                labels: true)
 *     -> Integer
 *
 * Writes every object of the heap to path_or_io as a heapfmt dump and
 * returns the number of objects written. See bindings/ruby/README.md.
 */
static VALUE hr_dump(int argc, VALUE *argv, VALUE self)
{
    VALUE target, opts;
    (void)self;
    rb_scan_args(argc, argv, "1:", &target, &opts);
    dump_args a;
    memset(&a, 0, sizeof a);
    a.fd = a.rfd = a.wfd = -1;
    parse_options(&a, opts);
    classify_target(&a, target);
    if (a.fork && a.kind == TARGET_WRITER)
        rb_raise(rb_eArgError,
                 "fork: true needs a path or an IO, not an object with #write");
    if (dumping)
        rb_raise(eError, "a heap dump is already in progress");
    check_single_ractor();

    rb_ensure(dump_body, (VALUE)&a, dump_cleanup, (VALUE)&a);

    if (a.fork && !a.wait) {
        rb_detach_process(a.pid);
        return PIDT2NUM(a.pid);
    }
    if (a.fork)
        rb_ensure(wait_body, (VALUE)&a, wait_cleanup, (VALUE)&a);
    if (a.kind == TARGET_WRITER) {
        if (a.res.status == HEAPFMT_OK)
            rb_ensure(write_out_body, (VALUE)&a, write_out_cleanup, (VALUE)&a);
        else
            write_out_cleanup((VALUE)&a);
    }
    if (a.res.ruby_state && !a.fork)
        rb_jump_tag(a.res.ruby_state); /* what the VM raised in the walk */
    if (a.res.status != HEAPFMT_OK)
        raise_result(&a);
    return ULL2NUM(a.res.objects);
}

/*
 * call-seq:
 *   HeapFmt.address(obj) -> Integer or nil
 *
 * The id obj has in a dump (its address), or nil for an immediate value
 * (nil, true, false, small Integers, static Symbols, flonums), which is
 * not a heap object.
 */
static VALUE hr_address(VALUE self, VALUE obj)
{
    (void)self;
    if (RB_SPECIAL_CONST_P(obj))
        return Qnil;
    return ULL2NUM((unsigned long long)obj);
}

/* ---- production helpers ---- */

/* HeapFmt.on_signal, in Ruby: a trap runs in a context where a Mutex
 * cannot be taken, so the dump runs on a thread of its own. */
static const char on_signal_rb[] =
    "module HeapFmt\n"
    "  def self.on_signal(signal, dir: Dir.pwd, fork: true, **options)\n"
    "    Signal.trap(signal) do\n"
    "      Thread.new do\n"
    "        stamp = Time.now.utc.strftime('%Y%m%dT%H%M%S.%LZ')\n"
    "        path = File.join(dir, \"heap-#{Process.pid}-#{stamp}.hfd\")\n"
    "        begin\n"
    "          HeapFmt.dump(path, fork: fork, **options)\n"
    "        rescue StandardError => e\n"
    "          warn \"HeapFmt.on_signal: #{path}: #{e.message}\"\n"
    "        end\n"
    "      end\n"
    "    end\n"
    "  end\n"
    "end\n";

static VALUE gdb_dump_body(VALUE path)
{
    return rb_funcall(mHeapFmt, rb_intern("dump"), 1, path);
}

/* For a debugger attached to a live process:
 *     (gdb) call (long)heapfmt_dump_to_path("/tmp/heap.hfd")
 * Dumps the heap to path and returns the number of objects, or -1 (the
 * exception is printed on stderr). The calling thread must hold the GVL:
 * stop the process where Ruby runs Ruby code (for instance at a breakpoint
 * on rb_thread_check_ints), not inside a blocking system call. */
__attribute__((visibility("default"))) long
heapfmt_dump_to_path(const char *path)
{
    int state = 0;
    VALUE n = rb_protect(gdb_dump_body, rb_str_new_cstr(path), &state);
    if (state) {
        VALUE e = rb_errinfo();
        rb_set_errinfo(Qnil);
        if (!NIL_P(e)) {
            VALUE msg = rb_funcall(e, rb_intern("message"), 0);
            if (RB_TYPE_P(msg, RUBY_T_STRING))
                fprintf(stderr, "heapfmt_dump_to_path: %.*s\n",
                        (int)RSTRING_LEN(msg), RSTRING_PTR(msg));
        }
        return -1;
    }
    return NUM2LONG(n);
}

/* The Ruby API this extension was built for, read by heapfmt-ruby from
 * the file (without loading it) before it injects the extension into a
 * running Ruby: an extension loads only into the Ruby it was built for. */
__attribute__((visibility("default"))) const int heapfmt_ruby_api_version[3] = {
    RUBY_API_VERSION_MAJOR, RUBY_API_VERSION_MINOR, RUBY_API_VERSION_TEENY};

/* HeapFmt.send(:walk_floor) -> [objects, checksum]: the floor of
 * HeapFmt.dump's time (hr_walk_floor), for bench/ruby_bench.rb. No GC
 * runs first; the GC is off during the walk. Not part of the API. */
static VALUE hr_walk_floor_m(VALUE self)
{
    (void)self;
    if (dumping)
        rb_raise(eError, "a dump is already in progress in this process");
    int was_disabled = RTEST(rb_gc_disable());
    hr_context c;
    memset(&c, 0, sizeof c);
    flag_ids(&c);
    uint64_t sum = 0, n = hr_walk_floor(&c, &sum);
    if (!was_disabled)
        rb_gc_enable();
    if (n == 0)
        rb_raise(eError, "the floor walk failed");
    return rb_assoc_new(ULL2NUM(n), ULL2NUM(sum));
}

/* Refuses, with a LoadError that says so, to run in a Ruby other than the
 * one this extension was compiled for: structures the walk reads differ
 * between Ruby versions (a gem built for one Ruby and found by another
 * through a shared GEM_HOME, say). */
static void check_ruby_abi(void)
{
    if (ruby_api_version[0] == HR_RUBY_API_MAJOR &&
        ruby_api_version[1] == HR_RUBY_API_MINOR)
        return;
    Dl_info info;
    const char *self = dladdr((void *)check_ruby_abi, &info) && info.dli_fname
                           ? info.dli_fname
                           : "heapfmt.so";
    rb_raise(rb_eLoadError,
             "heapfmt: %s was built for Ruby %d.%d, not for this Ruby %d.%d: "
             "reinstall the gem with this Ruby (gem pristine heapfmt), or "
             "rebuild it (make ruby RUBY=...)",
             self, HR_RUBY_API_MAJOR, HR_RUBY_API_MINOR, ruby_api_version[0],
             ruby_api_version[1]);
}

RUBY_FUNC_EXPORTED void Init_heapfmt(void)
{
    check_ruby_abi();
    rb_global_variable(&mHeapFmt); /* marked and pinned: GC.compact */
    rb_global_variable(&eError);
    mHeapFmt = rb_define_module("HeapFmt");
    /* Raised when a dump cannot be written (errors of the system come as
     * SystemCallError: Errno::ENOSPC...). */
    eError = rb_define_class_under(mHeapFmt, "Error", rb_eStandardError);
    rb_define_const(mHeapFmt, "VERSION", rb_str_new_cstr(heapfmt_version()));
    rb_define_const(mHeapFmt, "EXT_ABI", INT2FIX(HR_EXT_ABI));
    rb_define_const(mHeapFmt, "FORMAT_VERSION",
                    rb_sprintf("%d.%d", HEAPFMT_FORMAT_MAJOR,
                               HEAPFMT_FORMAT_MINOR));
    rb_define_module_function(mHeapFmt, "dump", hr_dump, -1);
    rb_define_module_function(mHeapFmt, "address", hr_address, 1);
    rb_define_singleton_method(mHeapFmt, "walk_floor", hr_walk_floor_m, 0);
    rb_funcall(rb_singleton_class(mHeapFmt), rb_intern("private"), 1,
               ID2SYM(rb_intern("walk_floor")));
    rb_eval_string(on_signal_rb);

    id_write = rb_intern("write");
    id_to_path = rb_intern("to_path");
    id_compress = rb_intern("compress");
    id_codec = rb_intern("codec");
    id_level = rb_intern("level");
    id_threads = rb_intern("threads");
    id_zstd = rb_intern("zstd");
    id_deflate = rb_intern("deflate");
    id_stored = rb_intern("stored");
    id_gc = rb_intern("gc");
    id_fork = rb_intern("fork");
    id_wait = rb_intern("wait");
    id_labels = rb_intern("labels");
    id_auto_compact = rb_intern("auto_compact");
    id_count = rb_intern("count");
    id_attached = rb_intern("__attached__");
    id_wb_protected = rb_intern("wb_protected");
    id_old = rb_intern("old");
    id_uncollectible = rb_intern("uncollectible");
    id_marked = rb_intern("marked");
    id_pinned = rb_intern("pinned");
    /* rb_obj_gc_flags creates its IDs on first use: do it now, not during
     * a walk. */
    rb_obj_gc_flags(mHeapFmt, NULL, 0);
}
