/* heapfmt_ruby.h -- internals shared by the Ruby extension's sources.
 *
 * heapfmt_ext.c   the Ruby-facing part: HeapFmt.dump, options, files and
 *                 IOs, fork, errors. It may allocate Ruby objects.
 * heapfmt_walk.c  the heap walk itself. It allocates no Ruby object, raises
 *                 nothing and never calls back into Ruby code, so it can run
 *                 with the GC disabled and in a forked child.
 */
#ifndef HEAPFMT_RUBY_H
#define HEAPFMT_RUBY_H

#include <stdint.h>

#include <ruby.h>

#include "heapfmt.h"

/* objspace's record of a traced allocation (ext/objspace/objspace.h), as
 * laid out since Ruby 2.2; used for 2.2 to 3.4, tested with 3.1. Only
 * read, never written. */
struct hr_allocation_info {
    int living;
    VALUE flags;
    VALUE klass;
    const char *path;
    unsigned long line;
    const char *class_path;
    VALUE mid;
    size_t generation;
};

typedef struct hr_allocation_info *(*hr_lookup_fn)(VALUE obj);

/* Everything the walk needs that must be computed with Ruby's help, before
 * the walk. */
typedef struct hr_context {
    /* META */
    char vm_version[64];
    char vm_description[512];
    char host[256];
    uint64_t pid;
    uint64_t time;
    uint64_t process_start; /* 0: unknown */
    uint64_t gc_count;
    uint64_t compactions;
    int ids_stable;

    /* objspace_lookup_allocation_info, when objspace is loaded and its
     * layout is known; else NULL. */
    hr_lookup_fn lookup;
    /* objspace's own table behind lookup (object -> record), when it
     * could be found and checked (heapfmt_ext.c, find_allocation_table):
     * the walk then reads it in one pass, not object by object. NULL
     * otherwise. Only read. */
    st_table *allocations;

    /* IDs rb_obj_gc_flags returns. */
    ID id_wb_protected, id_old, id_uncollectible, id_marked, id_pinned;
    ID id_attached; /* __attached__, the object of a singleton class */

    /* The program's global variables that hold a heap object, read before
     * the walk (Ruby's special ones left out): the global_tbl root labels
     * its references with their names. malloc'ed; freed after the dump. */
    struct hr_global {
        VALUE value;
        char name[64];
    } *globals;
    size_t nglobals;
    /* The constants of every module that hold a heap object (autoloads
     * left alone), sorted by module: labels of the module's references. */
    struct hr_constant {
        VALUE module;
        VALUE value;
        char name[64];
    } *constants;
    size_t nconstants;
    /* Every class and module of the heap, found while the constants were
     * read (NULL when they were not): the walk's classes. malloc'ed. */
    VALUE *modules;
    size_t nmodules;

    int labels;  /* 1: label references (format 1.1; labels: true) */
    int codec;   /* enum heapfmt_codec of the compressed blocks */
    int level;   /* the codec's level; 0 stores the blocks */
    int threads; /* 1: compress on a worker thread */
} hr_context;

/* The outcome of a walk: fixed size and free of pointers, so that a forked
 * child can send it through a pipe in one write. */
typedef struct hr_result {
    int status;      /* HEAPFMT_OK or a heapfmt_status */
    int sys_errno;   /* errno of a failed write, else 0 */
    uint64_t objects;  /* OBJECT records written */
    uint64_t bytes;    /* bytes of dump written */
    uint64_t truncated; /* objects whose references were cut to fit */
    int ruby_state;  /* nonzero: the VM raised during the walk (rb_protect's
                      * state; rb_jump_tag re-raises it) */
    char message[256];
} hr_result;

/* Walks the whole heap and writes it as a dump: through write(2) to fd when
 * fd >= 0, else through write/opaque. Fills *res (status HEAPFMT_OK when the
 * dump is complete). Call with the GVL held, the GC disabled and lazy
 * sweeping finished (rb_gc_disable does both). Allocates no Ruby object
 * and raises nothing: should the VM raise (NoMemoryError from its own
 * allocations), the walk stops, frees what it holds and reports it in
 * res->ruby_state. Safe in a forked child. */
void hr_dump_heap(const hr_context *ctx, int fd, heapfmt_write_fn write,
                  void *opaque, hr_result *res);

/* The floor of hr_dump_heap's time: the same walk through the heap and the
 * VM's functions (type, class, memsize, GC flags, references), writing
 * nothing. Returns the objects visited (0 if the VM raised or memory ran
 * out) and a checksum of what was read. Same conditions as hr_dump_heap. */
uint64_t hr_walk_floor(const hr_context *ctx, uint64_t *checksum);

#endif
