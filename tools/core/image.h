/* image.h -- the memory of a process as heapfmt-core sees it: the
 * mappings with the bytes that could be read, the threads' registers and
 * the mapped files. A core file (core.c) or a stopped live process
 * (live.c) fills one in; everything after reads only the image, so the
 * two give the same answers.
 *
 * A mapping whose bytes are not all present (a core dumped without
 * read-only file pages, a truncated core, pages that could not be read)
 * keeps its full range and says how many bytes from its start are
 * present (avail); file-backed ones are completed from the files on disk
 * (modules.c). */
#ifndef CORE_IMAGE_H
#define CORE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "strtab.h"

enum { IMG_R = 4u, IMG_W = 2u, IMG_X = 1u };

/* The registers of x86-64's user_regs_struct, in its order. */
enum img_reg {
    REG_R15, REG_R14, REG_R13, REG_R12, REG_RBP, REG_RBX, REG_R11, REG_R10,
    REG_R9, REG_R8, REG_RAX, REG_RCX, REG_RDX, REG_RSI, REG_RDI,
    REG_ORIG_RAX, REG_RIP, REG_CS, REG_EFLAGS, REG_RSP, REG_SS, REG_FS_BASE,
    REG_GS_BASE, REG_DS, REG_ES, REG_FS, REG_GS, IMG_NREGS
};

extern const char *const img_reg_names[IMG_NREGS];

typedef struct img_seg {
    uint64_t start, end;        /* [start, end) */
    const unsigned char *data;  /* the bytes of [start, start + avail) */
    uint64_t avail;
    uint32_t prot;              /* IMG_R | IMG_W | IMG_X */
    int32_t file;               /* index in image.files, -1: anonymous */
    uint64_t file_off;          /* offset in that file of start */
    uint32_t stack;             /* 1 + index of the thread whose stack
                                   it is, 0: none (set by roots.c) */
} img_seg;

typedef struct img_thread {
    uint32_t tid;
    uint64_t reg[IMG_NREGS];
} img_thread;

typedef struct image {
    img_seg *seg;        /* sorted by start, not overlapping */
    size_t nseg;
    img_thread *thr;
    size_t nthr;
    hf_strtab files;     /* paths of the mapped files (NT_FILE, maps):
                            file index i is string id i + 1 */
    size_t nfiles;
    int pid;             /* 0 when unknown */
    int live;            /* read from a live process */
    char exe[256];       /* the command name (prpsinfo, comm), or "" */
    uint64_t missing;    /* bytes of mappings the source lacked */
    int truncated;       /* the core ends before its segments' data */
    int notes_cut;       /* ... or before its notes (threads, files) */
    /* owned storage */
    void *map;           /* the mapped core */
    size_t map_size;
    unsigned char **bufs;/* the copies of a live process's memory */
    size_t nbufs;
    size_t copied;       /* bytes copied from a live process */
    uint64_t pause_cpu_us; /* CPU time heapfmt-core spent in the pause */
    size_t seg_cap, thr_cap, buf_cap;
} image;

/* An empty image. */
void img_init(image *im);
void img_free(image *im);

/* The path of mapped file i. */
const char *img_file(const image *im, size_t i);

/* Sorts the mappings and drops overlaps (a later duplicate). Returns 0
 * or -1 out of memory. */
int img_sort(image *im);

/* The mapping holding addr, or NULL. */
const img_seg *img_find(const image *im, uint64_t addr);

/* Copies len bytes at addr; returns 0, or -1 when any byte is absent. */
int img_read(const image *im, uint64_t addr, void *buf, size_t len);

/* The bytes [addr, addr + len) when present in one mapping, or NULL. */
const unsigned char *img_ptr(const image *im, uint64_t addr, size_t len);

/* Maps the pages of [start, end) of mapping s in advance, when they are
 * a mapped core's (MADV_POPULATE_READ, Linux 5.14; else nothing): a
 * scan in address order can then prefetch them. */
void img_populate(const image *im, const img_seg *s, uint64_t start,
                  uint64_t end);

/* A 64-bit word at addr (any alignment); 0 or -1. */
int img_u64(const image *im, uint64_t addr, uint64_t *v);

/* Copies a NUL-terminated string at addr into buf (cap bytes); returns
 * its length, or -1 when absent or longer than cap - 1. */
int img_string(const image *im, uint64_t addr, char *buf, size_t cap);

/* Adds a mapping (the caller sorts once at the end). Returns 0 or -1. */
int img_add(image *im, const img_seg *s);

/* Adds a thread. Returns 0 or -1. */
int img_add_thread(image *im, const img_thread *t);

/* Takes ownership of a malloc'd buffer (freed by img_free). 0 or -1. */
int img_add_buf(image *im, unsigned char *buf);

/* Adds a file path, returning its index, or -1. */
int img_add_file(image *im, const char *path, size_t len);

#endif /* CORE_IMAGE_H */
