/*
 * heapfmt.h -- read and write heapfmt heap dumps.
 *
 * This header is the library's manual. The format itself is specified in
 * spec/FORMAT.md; this file describes the C interface.
 *
 * Overview
 *   A heap dump is a stream of records (META, STRING, CLASS, FRAME, STACK,
 *   OBJECT, ROOT, EVENTS, END) packed into independent, CRC-checked blocks, each
 *   stored or compressed (Zstandard by default, or DEFLATE), followed by a
 *   footer (totals, block index, per-class summary) and a fixed-size
 *   trailer. References may carry labels (a field name, an element index,
 *   a hash key...; weak or not) and objects a call stack. A trace of a
 *   program's allocation calls (format 1.2) is the same container with
 *   EVENTS records.
 *
 *   heapfmt_writer  streams records out through a write callback. Memory is
 *                   bounded: one block buffer plus the string and class
 *                   tables. Nothing is allocated per object. It uses no stdio
 *                   and is safe to use in a forked child.
 *   heapfmt_reader  pulls records one at a time from a read callback, with
 *                   memory of about one block plus the string/class tables.
 *
 * Conventions
 *   - Functions that can fail return an int: HEAPFMT_OK (0) on success or a
 *     negative heapfmt_status. The reader's next function also returns
 *     HEAPFMT_DONE (1) at the clean end of a complete dump.
 *   - Details of the last error (message, file offset, block and record
 *     index) are kept on the handle: heapfmt_writer_error(),
 *     heapfmt_reader_error(). There is no global state; distinct handles may
 *     be used from distinct threads at the same time. One handle must not be
 *     used by two threads at once.
 *   - The library never prints, exits or aborts.
 *   - _free(NULL) is a no-op.
 */
#ifndef HEAPFMT_H
#define HEAPFMT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define HEAPFMT_API __attribute__((visibility("default")))
#else
#define HEAPFMT_API
#endif

/* ------------------------------------------------------------------ */
/* Versions                                                            */
/* ------------------------------------------------------------------ */

#define HEAPFMT_LIB_VERSION_MAJOR 0
#define HEAPFMT_LIB_VERSION_MINOR 1
#define HEAPFMT_LIB_VERSION_PATCH 0
#define HEAPFMT_LIB_VERSION_STRING "0.1.0"

/* The format version this library writes, and the newest it reads. */
#define HEAPFMT_FORMAT_MAJOR 1
#define HEAPFMT_FORMAT_MINOR 3

/* Block codecs (spec/FORMAT.md, "Blocks"). */
enum heapfmt_codec {
    HEAPFMT_CODEC_STORED = 0,
    HEAPFMT_CODEC_DEFLATE = 1, /* raw DEFLATE, zlib */
    HEAPFMT_CODEC_ZSTD = 2     /* Zstandard frame, libzstd (format 1.1) */
};

/* Whether this build of the library can read and write a codec (Zstandard
 * can be left out at build time: make HEAPFMT_ZSTD=0). Returns 1 or 0. */
HEAPFMT_API int heapfmt_codec_supported(int codec);

/* Name of a codec ("stored", "deflate", "zstd"), or "unknown". */
HEAPFMT_API const char *heapfmt_codec_name(int codec);

/* Returns HEAPFMT_LIB_VERSION_STRING of the library actually linked. */
HEAPFMT_API const char *heapfmt_version(void);

/* ------------------------------------------------------------------ */
/* Limits (spec/FORMAT.md, "Limits")                                   */
/* ------------------------------------------------------------------ */

#define HEAPFMT_MAX_BLOCK (128u << 20)       /* raw or stored bytes of one block */
#define HEAPFMT_MIN_BLOCK_SIZE 1024u         /* smallest writer block_size */
#define HEAPFMT_DEFAULT_BLOCK_SIZE (256u << 10)
/* The default with the compression thread (threads = 1): each block
 * handed to the worker costs a wake-up and a trip of its bytes to the
 * other core, and at 256 KiB that cost the caller more than it saved. */
#define HEAPFMT_THREAD_BLOCK_SIZE (1u << 20)
#define HEAPFMT_MAX_STRING (16u << 20)       /* STRING text, value preview, META text */
#define HEAPFMT_MAX_KEY 255u                 /* META key */
#define HEAPFMT_MAX_REFS (16u << 20)         /* references of one OBJECT or ROOT record */
#define HEAPFMT_MAX_ID 0xffffffffu           /* largest string id / class index */
#define HEAPFMT_MAX_FRAMES 4096u             /* frames of one STACK record */
#define HEAPFMT_ZSTD_MAX_LEVEL 19            /* writer levels: zstd 1-19 */
#define HEAPFMT_DEFLATE_MAX_LEVEL 9          /*                deflate 1-9 */

/* ------------------------------------------------------------------ */
/* Status codes                                                        */
/* ------------------------------------------------------------------ */

/* X(name, value, message). Values are fixed forever. */
#define HEAPFMT_STATUS_LIST(X)                                              \
    X(HEAPFMT_OK,            0, "success")                                  \
    X(HEAPFMT_DONE,          1, "end of dump")                              \
    X(HEAPFMT_E_IO,         -1, "I/O error")                                \
    X(HEAPFMT_E_NOMEM,      -2, "out of memory")                            \
    X(HEAPFMT_E_ARG,        -3, "invalid argument")                         \
    X(HEAPFMT_E_STATE,      -4, "handle not usable in this state")          \
    X(HEAPFMT_E_NOT_HEAPFMT,-5, "not a heapfmt dump")                       \
    X(HEAPFMT_E_VERSION,    -6, "unsupported format version")               \
    X(HEAPFMT_E_CORRUPT,    -7, "corrupt data")                             \
    X(HEAPFMT_E_TRUNCATED,  -8, "dump is incomplete (truncated)")           \
    X(HEAPFMT_E_LIMIT,      -9, "limit exceeded")                           \
    X(HEAPFMT_E_NO_FOOTER, -10, "footer not available")                    \
    X(HEAPFMT_E_UNSUPPORTED, -11, "unsupported by this build or version")

typedef enum heapfmt_status {
#define HEAPFMT_X_ENUM(name, value, msg) name = value,
    HEAPFMT_STATUS_LIST(HEAPFMT_X_ENUM)
#undef HEAPFMT_X_ENUM
} heapfmt_status;

/* Short static description of a status code; never NULL (unknown codes give
 * "unknown status"). */
HEAPFMT_API const char *heapfmt_strerror(int status);

/* Detail of the last failure on a handle. offset is the file offset where
 * the problem was found (the start of the block or structure at fault),
 * block the 0-based data block index, record the 0-based index of the record
 * in the whole dump (for a reader: the number of records delivered before
 * the problem). sys_errno is the errno of a failed I/O call, else 0. */
typedef struct heapfmt_error {
    int code;
    int sys_errno;
    uint64_t offset;
    uint64_t block;
    uint64_t record;
    char message[256];
} heapfmt_error;

/* ------------------------------------------------------------------ */
/* Allocator hooks                                                     */
/* ------------------------------------------------------------------ */

/* alloc returns NULL on failure; free(opaque, NULL) must be harmless.
 * Both are called only from the thread using the handle. */
typedef struct heapfmt_allocator {
    void *(*alloc)(void *opaque, size_t size);
    void (*free)(void *opaque, void *ptr);
    void *opaque;
} heapfmt_allocator;

/* ------------------------------------------------------------------ */
/* Record data                                                         */
/* ------------------------------------------------------------------ */

/* Record tags (spec/FORMAT.md, "Records"). */
enum heapfmt_tag {
    HEAPFMT_TAG_META = 0x01,
    HEAPFMT_TAG_STRING = 0x02,
    HEAPFMT_TAG_CLASS = 0x03,
    HEAPFMT_TAG_OBJECT = 0x04,
    HEAPFMT_TAG_ROOT = 0x05,
    HEAPFMT_TAG_END = 0x06,
    HEAPFMT_TAG_FRAME = 0x07,    /* format 1.1 */
    HEAPFMT_TAG_STACK = 0x08,    /* format 1.1 */
    HEAPFMT_TAG_LIFESPAN = 0x09, /* format 1.2 */
    HEAPFMT_TAG_EVENTS = 0x0a,   /* format 1.2: allocation events */
    HEAPFMT_TAG_TOTALS = 0x40,   /* footer only */
    HEAPFMT_TAG_BLOCKS = 0x41,   /* footer only */
    HEAPFMT_TAG_SUMMARY = 0x42,  /* footer only */
    HEAPFMT_TAG_EXT_FIRST = 0x80 /* 0x80-0xff: extensions, always skipped */
};

/* heapfmt_object.fields: which optional parts are present. */
#define HEAPFMT_F_FLAGS 0x01u
#define HEAPFMT_F_VALUE 0x02u
#define HEAPFMT_F_SITE 0x04u
#define HEAPFMT_F_GENERATION 0x08u
#define HEAPFMT_F_LABELS 0x10u     /* format 1.1: labels of the references */
#define HEAPFMT_F_STACK 0x20u      /* format 1.1: allocation call stack */
/* format 1.3: every reference without a label of its own is labeled with
 * its index (its position, plus the offset of the last explicit index
 * label before it): an array's labels cost nothing (spec 6.4.1). */
#define HEAPFMT_F_INDEXED 0x40u
#define HEAPFMT_F_BASIC 0x0fu      /* the four fields of format 1.0 */
#define HEAPFMT_F_ALL 0x7fu

/* heapfmt_object.flags: standard object flag bits (spec). Bits 32-63 are
 * for the VM's own use. */
#define HEAPFMT_OF_FROZEN 0x01u
#define HEAPFMT_OF_OLD 0x02u
#define HEAPFMT_OF_UNCOLLECTIBLE 0x04u
#define HEAPFMT_OF_MARKED 0x08u
#define HEAPFMT_OF_WB_PROTECTED 0x10u
/* Bits 32-63 as heapfmt's own Ruby producers use them (HeapFmt.dump and
 * heapfmt-import of ObjectSpace.dump_all), spec 6.4: */
#define HEAPFMT_OF_RUBY_PINNED (1ull << 32)         /* compaction may not move it */
#define HEAPFMT_OF_RUBY_REFS_TRUNCATED (1ull << 33) /* references cut to fit */
#define HEAPFMT_OF_RUBY_EMBEDDED (1ull << 34) /* its data is in its slot */
#define HEAPFMT_OF_RUBY_SHARED (1ull << 35)   /* shares another's buffer */

/* heapfmt_class.flags */
#define HEAPFMT_CF_MODULE 0x01u
#define HEAPFMT_CF_SINGLETON 0x02u
#define HEAPFMT_CF_ICLASS 0x04u

/* META value types. */
enum heapfmt_meta_type {
    HEAPFMT_META_TEXT = 0,
    HEAPFMT_META_UINT = 1,
    HEAPFMT_META_INT = 2
};

/* What a reference is (spec/FORMAT.md, "Labels"). */
enum heapfmt_label_kind {
    HEAPFMT_LABEL_NONE = 0,     /* no label (a weak flag alone) */
    HEAPFMT_LABEL_FIELD = 1,    /* instance variable or field name */
    HEAPFMT_LABEL_INDEX = 2,    /* element index of an array */
    HEAPFMT_LABEL_KEY = 3,      /* printable text of a hash key */
    HEAPFMT_LABEL_CONSTANT = 4, /* constant name */
    HEAPFMT_LABEL_GLOBAL = 5,   /* global variable name */
    HEAPFMT_LABEL_OTHER = 6     /* any other description */
};

/* The label of one reference, as given to the writer.
 *   kind   enum heapfmt_label_kind.
 *   weak   1 if the reference does not keep its target alive, else 0.
 *   value  INDEX: the index (within 2^59 of the reference's position:
 *          HEAPFMT_E_LIMIT past it); NONE: 0; every other kind: the string
 *          id (heapfmt_write_string) of the name or text. */
typedef struct heapfmt_label {
    uint32_t kind;
    uint32_t weak;
    uint64_t value;
} heapfmt_label;

/* One frame of a call stack, as given to heapfmt_write_frame().
 *   function  string id of the function name, 0 when unknown.
 *   library   string id of the module or shared object, 0 when unknown.
 *   offset    offset of the instruction in library (or its address when
 *             library is 0).
 *   file, line  source position: string id and line, 0 when unknown. */
typedef struct heapfmt_frame {
    uint32_t function;
    uint32_t library;
    uint64_t offset;
    uint32_t file;
    uint64_t line;
} heapfmt_frame;

/* The key of a LIFESPAN record (format 1.2): its counts are for a stack,
 * a site, or the allocations made at a site with a stack. */
#define HEAPFMT_LIFESPAN_STACK 0x01u
#define HEAPFMT_LIFESPAN_SITE 0x02u

/* What a producer that sees allocations and frees counted for one stack or
 * site since it started counting, as given to heapfmt_write_lifespan().
 *   key          HEAPFMT_LIFESPAN_STACK and/or HEAPFMT_LIFESPAN_SITE.
 *   stack        with STACK: a stack id (heapfmt_write_stack).
 *   file, line   with SITE: the site (file is a string id).
 *   allocs, frees, alloc_bytes, free_bytes
 *                blocks and bytes allocated there, and of them freed.
 *   lifetime_us  the sum of the freed blocks' lifetimes, microseconds.
 *   oldest_us    the age of the oldest block still alive, microseconds
 *                (0: none is). */
typedef struct heapfmt_lifespan {
    uint32_t key;
    uint32_t stack;
    uint32_t file;
    uint64_t line;
    uint64_t allocs, frees;
    uint64_t alloc_bytes, free_bytes;
    uint64_t lifetime_us;
    uint64_t oldest_us;
} heapfmt_lifespan;

/* Allocation events (format 1.2, spec/FORMAT.md "EVENTS"): a trace of
 * a program's allocation calls, as heapfmt-malloc --record writes it.
 * Every event of the process has a sequence number, increasing in the
 * order the events happened; a block of memory is named by the sequence
 * number of the event that allocated it (its block number). The values
 * are those of the trace's operations; 10-14 are reserved. */
enum heapfmt_event_op {
    HEAPFMT_EV_MALLOC = 0,
    HEAPFMT_EV_CALLOC = 1,         /* size: count x size of the call */
    HEAPFMT_EV_REALLOC = 2,
    HEAPFMT_EV_REALLOCARRAY = 3,   /* size: count x size of the call */
    HEAPFMT_EV_POSIX_MEMALIGN = 4,
    HEAPFMT_EV_ALIGNED_ALLOC = 5,
    HEAPFMT_EV_MEMALIGN = 6,
    HEAPFMT_EV_VALLOC = 7,
    HEAPFMT_EV_PVALLOC = 8,
    HEAPFMT_EV_FREE = 9,
    HEAPFMT_EV_MARK = 15           /* the recorder's measure (thread 0) */
};
#define HEAPFMT_EV_LAST_ALLOC HEAPFMT_EV_PVALLOC
#define HEAPFMT_MAX_EVENTS (1u << 24) /* events of one EVENTS record */

/* One event, as given to heapfmt_write_events() and delivered by
 * heapfmt_reader_event().
 *   op       enum heapfmt_event_op.
 *   seq      its sequence number (>= 1); an allocation's block number.
 *   time_us  when it happened, microseconds since the trace started.
 *   block    FREE, REALLOC, REALLOCARRAY: the number of the block it
 *            frees or resizes (less than seq); 0 for a realloc of NULL.
 *   size     the allocations: the bytes asked for.
 *   align    POSIX_MEMALIGN, ALIGNED_ALLOC, MEMALIGN: the alignment.
 *   rss, peak, own  MARK: the program's resident anonymous bytes now, the
 *            most sampled since the previous MARK, and the recorder's own
 *            resident bytes (already taken out of rss and peak). */
typedef struct heapfmt_event {
    uint32_t op;
    uint64_t seq;
    uint64_t time_us;
    uint64_t block;
    uint64_t size;
    uint64_t align;
    uint64_t rss, peak, own;
} heapfmt_event;

/* An object, as given to heapfmt_write_object().
 *   id          the object's identity (e.g. its address); any 64-bit value.
 *   class_id    the id of its class as given to heapfmt_write_class(), or 0
 *               for an object without a class. An id never given to
 *               heapfmt_write_class() defines an anonymous class on the fly.
 *   type        string id (heapfmt_write_string) of the VM type, e.g.
 *               "T_STRING"; 0 for none.
 *   size        real allocated bytes, including the object's slot.
 *   fields      HEAPFMT_F_* bits: which of flags, value, file/line and
 *               generation are present. Absent parts are ignored.
 *   value       preview bytes (not NUL-terminated), value_len bytes.
 *   file, line  allocation site: file is a string id.
 *   refs        nrefs ids this object references, in any order.
 *   labels      with HEAPFMT_F_LABELS: nrefs labels, labels[i] for refs[i].
 *               A list of NONE labels that are not weak is not written.
 *               With HEAPFMT_F_INDEXED (format 1.3) as well, the labels
 *               are written in the indexed form: an INDEX label is left
 *               out when the reader infers it (its index minus its
 *               position is that of the previous INDEX label, 0 for the
 *               first), a NONE label is written; same labels read back.
 *               HEAPFMT_F_INDEXED without HEAPFMT_F_LABELS: refs[i] is
 *               labeled INDEX i, and nothing is written per reference
 *               (labels is not read): an array listed in element order.
 *   stack       with HEAPFMT_F_STACK: stack id (heapfmt_write_stack) of
 *               the allocation's call stack. */
typedef struct heapfmt_object {
    uint64_t id;
    uint64_t class_id;
    uint32_t type;
    uint32_t fields;
    uint64_t size;
    uint64_t flags;
    const char *value;
    size_t value_len;
    uint32_t file;
    uint64_t line;
    uint64_t generation;
    const uint64_t *refs;
    size_t nrefs;
    const heapfmt_label *labels;
    uint32_t stack;
} heapfmt_object;

/* A class, as given to heapfmt_write_class().
 *   id        the class's identity (the class object's id); must not be 0.
 *   name      UTF-8 name, name_len bytes; NULL for an anonymous class.
 *   super_id  id of its superclass, 0 for none.
 *   flags     HEAPFMT_CF_* bits. */
typedef struct heapfmt_class {
    uint64_t id;
    const char *name;
    size_t name_len;
    uint64_t super_id;
    uint64_t flags;
} heapfmt_class;

/* ------------------------------------------------------------------ */
/* Writer                                                              */
/* ------------------------------------------------------------------ */

/* Write callback: write up to len bytes of buf. Returns the number of bytes
 * written (1..len), or a negative errno value on failure. -EINTR and -EAGAIN
 * are retried; 0 is treated as a failure (EIO). */
typedef long (*heapfmt_write_fn)(void *opaque, const void *buf, size_t len);

typedef struct heapfmt_writer heapfmt_writer;

/* Writer options. Always start from HEAPFMT_WRITER_OPTIONS_INIT so that
 * fields added later get their defaults.
 *   size        sizeof(heapfmt_writer_options), set by the INIT macro.
 *   level       0 = store blocks uncompressed; else the codec's level:
 *               zstd 1-HEAPFMT_ZSTD_MAX_LEVEL, deflate
 *               1-HEAPFMT_DEFLATE_MAX_LEVEL. Default 1.
 *   block_size  target raw bytes per block, HEAPFMT_MIN_BLOCK_SIZE to
 *               HEAPFMT_MAX_BLOCK; 0 = HEAPFMT_DEFAULT_BLOCK_SIZE, or
 *               HEAPFMT_THREAD_BLOCK_SIZE when blocks are compressed on
 *               the worker thread. A record larger than block_size gets a
 *               block of its own.
 *   allocator   NULL for malloc/free. Copied; must outlive the writer.
 *   codec       HEAPFMT_CODEC_ZSTD (default), HEAPFMT_CODEC_DEFLATE, or
 *               HEAPFMT_CODEC_STORED (same as level 0). A block that would
 *               not shrink is stored.
 *   threads     0: blocks are compressed in the calling thread. 1: on one
 *               worker thread, while the caller fills the next block (the
 *               write callback is still called from the caller's thread;
 *               the allocator may then be called from the worker too, so
 *               it must be thread-safe). Up to three blocks are in
 *               flight: costs three more blocks of memory and their
 *               compressed copies (7 MiB at the 1 MiB default).
 *               Ignored when level is 0. */
typedef struct heapfmt_writer_options {
    size_t size;
    int level;
    uint32_t block_size;
    const heapfmt_allocator *allocator;
    int codec;
    int threads;
} heapfmt_writer_options;

#ifdef __cplusplus /* designated initializers: C++20 and C only */
#define HEAPFMT_WRITER_OPTIONS_INIT \
    { sizeof(heapfmt_writer_options), 1, 0, NULL, HEAPFMT_CODEC_ZSTD, 0 }
#else
#define HEAPFMT_WRITER_OPTIONS_INIT                                          \
    { .size = sizeof(heapfmt_writer_options), .level = 1, .block_size = 0,  \
      .allocator = NULL, .codec = HEAPFMT_CODEC_ZSTD, .threads = 0 }
#endif

/* Creates a writer over a write callback. opt may be NULL for defaults.
 * On success stores the writer in *out and returns HEAPFMT_OK. On failure
 * stores NULL and returns HEAPFMT_E_ARG or HEAPFMT_E_NOMEM. Nothing is
 * written until the first block is full, heapfmt_writer_flush() or
 * heapfmt_writer_finish(). */
HEAPFMT_API int heapfmt_writer_open(heapfmt_writer **out,
                                    const heapfmt_writer_options *opt,
                                    heapfmt_write_fn write, void *opaque);

/* As heapfmt_writer_open, over a file descriptor written with write(2).
 * The descriptor is not closed by the writer. On a non-blocking descriptor
 * a write that would block waits in poll(2) until it is writable: do not
 * give it a pipe read by the same thread. */
HEAPFMT_API int heapfmt_writer_open_fd(heapfmt_writer **out,
                                       const heapfmt_writer_options *opt,
                                       int fd);

/* As heapfmt_writer_open, writing the file at path. The dump appears
 * under path only when heapfmt_writer_finish() succeeds: it is written to
 * a temporary file in the same directory (.NAME.XXXXXX.tmp, created with
 * O_EXCL, mode 0666 less umask, or the permissions of the file it
 * replaces) and renamed over path by finish. So a writer that fails, is
 * freed without finish or is killed never leaves a half-written dump
 * under path (finish and free remove the temporary; only a killed
 * process leaves it), a dump that was at path stays whole until then, and
 * two writers of one path never interleave their bytes: each writes its
 * own file and the last to finish wins, whole. (An exclusive lock would
 * make the second writer wait or fail; the rename lets both succeed with
 * a dump that reads complete.) A symbolic link is followed: its target is
 * replaced, the link stays. What is not a regular file (a FIFO, a device)
 * is written directly, as is a file in a directory where no temporary can
 * be created. A close(2) or rename(2) failure is reported by finish.
 * Returns HEAPFMT_E_IO with *out NULL if the file cannot be opened; there
 * is no handle to carry the detail, so errno is left as open(2) set it. */
HEAPFMT_API int heapfmt_writer_open_path(heapfmt_writer **out,
                                         const heapfmt_writer_options *opt,
                                         const char *path);

/* Adds a META key/value pair. key is 1..HEAPFMT_MAX_KEY bytes of
 * [A-Za-z0-9._-]; text values are UTF-8, at most HEAPFMT_MAX_STRING bytes.
 * Returns HEAPFMT_OK or an error (see "Writer errors"). */
HEAPFMT_API int heapfmt_write_meta_text(heapfmt_writer *w, const char *key,
                                        const char *value);
HEAPFMT_API int heapfmt_write_meta_uint(heapfmt_writer *w, const char *key,
                                        uint64_t value);
HEAPFMT_API int heapfmt_write_meta_int(heapfmt_writer *w, const char *key,
                                       int64_t value);

/* Interns a string of len bytes (any bytes, at most HEAPFMT_MAX_STRING) and
 * stores its id (>= 1) in *id. The first call for a given text writes a
 * STRING record; later calls return the same id without writing. Allocates
 * only when the text is new. */
HEAPFMT_API int heapfmt_write_string(heapfmt_writer *w, const char *s,
                                     size_t len, uint32_t *id);

/* Defines (or redefines, e.g. to name a class first seen anonymously) a
 * class. c->id must not be 0. */
HEAPFMT_API int heapfmt_write_class(heapfmt_writer *w, const heapfmt_class *c);

/* Interns a call-stack frame and stores its id (>= 1) in *id. The first
 * call for given values writes a FRAME record; later calls return the same
 * id. Its string ids must have been defined. Format 1.1. */
HEAPFMT_API int heapfmt_write_frame(heapfmt_writer *w, const heapfmt_frame *f,
                                    uint32_t *id);

/* Interns a call stack of n frame ids (1..HEAPFMT_MAX_FRAMES, innermost
 * frame first, each from heapfmt_write_frame) and stores its id (>= 1) in
 * *id. The first call for a sequence writes a STACK record. Format 1.1. */
HEAPFMT_API int heapfmt_write_stack(heapfmt_writer *w, const uint32_t *frames,
                                    size_t n, uint32_t *id);

/* Writes a LIFESPAN record. Its stack and string ids must have been
 * defined; key must name a stack, a site or both. Format 1.2. */
HEAPFMT_API int heapfmt_write_lifespan(heapfmt_writer *w,
                                       const heapfmt_lifespan *l);

/* Writes an EVENTS record: n events (1..HEAPFMT_MAX_EVENTS) of program
 * thread `thread` (>= 1), or of the recorder's marks (thread 0, MARK
 * events only), in increasing seq and non-decreasing time_us; a block
 * number must be less than its event's seq. A thread's records must be
 * written in the order of their events. Format 1.2. */
HEAPFMT_API int heapfmt_write_events(heapfmt_writer *w, uint32_t thread,
                                     const heapfmt_event *ev, size_t n);

/* Writes one object. Allocates only when o->class_id is new, when the
 * record is larger than any before and than the block size, or when a
 * finished block grows the block index (doubling, so a few times per
 * dump) -- never per object. */
HEAPFMT_API int heapfmt_write_object(heapfmt_writer *w,
                                     const heapfmt_object *o);

/* How many of o's first references its OBJECT record is sure to hold:
 * o->nrefs when the record fits in a block (every object but those with
 * millions of references), else the most that fit with its value and
 * the labels it writes (with HEAPFMT_F_INDEXED, not those the reader
 * infers from their position), and never more than HEAPFMT_MAX_REFS. A producer whose object
 * is too large for the format writes that many and notes the cut, rather
 * than retrying on HEAPFMT_E_LIMIT (as ZSTD_compressBound is asked before
 * compressing). Constant time below the limit, one pass over the
 * references and labels near it. */
HEAPFMT_API size_t heapfmt_object_refs_fit(const heapfmt_object *o);

/* Writes a ROOT record: n ids held by the root kind named by string id
 * kind (e.g. "vm", "global_tbl"). n may be 0. */
HEAPFMT_API int heapfmt_write_root(heapfmt_writer *w, uint32_t kind,
                                   const uint64_t *ids, size_t n);

/* As heapfmt_write_root, with labels[i] the label of ids[i] (e.g. the name
 * of the global variable or constant); labels may be NULL. Format 1.1. */
HEAPFMT_API int heapfmt_write_root_labeled(heapfmt_writer *w, uint32_t kind,
                                           const uint64_t *ids,
                                           const heapfmt_label *labels,
                                           size_t n);

/* Ends the current block and writes it out, so that a reader of a dump cut
 * after this point still sees every record written so far. */
HEAPFMT_API int heapfmt_writer_flush(heapfmt_writer *w);

/* Writes END, the last block, the footer and the trailer, and closes a file
 * opened by heapfmt_writer_open_path (renaming it to its name). After it
 * the writer can only be freed. Returns HEAPFMT_OK only if every byte of
 * the dump was written. On failure the output lacks a valid trailer and
 * reads as incomplete (a file of heapfmt_writer_open_path is removed). */
HEAPFMT_API int heapfmt_writer_finish(heapfmt_writer *w);

/* Frees the writer. If finish was not called (or failed), what was written
 * stays as an incomplete dump, except in a file of
 * heapfmt_writer_open_path, which is removed. */
HEAPFMT_API void heapfmt_writer_free(heapfmt_writer *w);

/* Detail of the writer's last error; never NULL for a non-NULL writer. */
HEAPFMT_API const heapfmt_error *heapfmt_writer_error(const heapfmt_writer *w);

/* Bytes handed to the write callback so far. */
HEAPFMT_API uint64_t heapfmt_writer_offset(const heapfmt_writer *w);

/* Writer errors
 *   HEAPFMT_E_ARG    bad argument (NULL, key syntax, class id 0, a string,
 *                    frame or stack id never defined, an unknown label
 *                    kind; a length over a limit: HEAPFMT_E_LIMIT). Not
 *                    sticky: the writer stays usable.
 *   HEAPFMT_E_UNSUPPORTED  (open) a codec this build does not have.
 *   HEAPFMT_E_LIMIT  a record would exceed HEAPFMT_MAX_BLOCK or a count
 *                    limit. Not sticky.
 *   HEAPFMT_E_STATE  called during another call on the same writer (from an
 *                    allocator or write callback), or after finish.
 *   HEAPFMT_E_IO, HEAPFMT_E_NOMEM
 *                    sticky: every later call returns the same code; the
 *                    output is incomplete. */

/* ------------------------------------------------------------------ */
/* Reader                                                              */
/* ------------------------------------------------------------------ */

/* Read callback: read up to len bytes into buf. Returns the number read,
 * 0 at end of input, or a negative errno value on failure (-EINTR and
 * -EAGAIN are retried). */
typedef long (*heapfmt_read_fn)(void *opaque, void *buf, size_t len);

/* Optional seek callback for random access (footer, parallel decode):
 * move to offset from the start, or from the end when from_end is nonzero
 * (offset then is <= 0). Returns the new absolute offset, or a negative
 * errno value. NULL for unseekable sources. */
typedef int64_t (*heapfmt_seek_fn)(void *opaque, int64_t offset, int from_end);

typedef struct heapfmt_reader heapfmt_reader;

/* Whether the reader keeps the string of this id (heapfmt_reader_options
 * keep_string): nonzero to keep it. */
typedef int (*heapfmt_keep_string_fn)(void *user, uint32_t id);

/* Reader options; start from HEAPFMT_READER_OPTIONS_INIT.
 *   max_table_memory  cap on memory for the string and class tables, in
 *                     bytes (0 = 1 GiB). Past it: HEAPFMT_E_LIMIT.
 *   allocator         NULL for malloc/free.
 *   keep_string       NULL to keep every string (the default). Else it is
 *                     called once for each STRING record, with its id, and
 *                     a string it does not keep costs the reader 4 bytes
 *                     (the id table) instead of an entry and its text: for
 *                     a caller that needs a few names of a dump whose
 *                     strings are mostly label names (a V8 import names
 *                     every property). The record is still delivered, its
 *                     text valid until the next call (slot 0, dropped
 *                     set). A later use of the id gets an entry without
 *                     text (ptr "", len 0, dropped set, undefined 0): a
 *                     label's name the reader's one shared entry (id 0,
 *                     slot 0); any other use (a class's name, an object's
 *                     type or file, a root's kind, a frame's strings) an
 *                     entry of its own, with its id and a slot, made on
 *                     first use, so that a caller can learn which ids it
 *                     needs and keep them in a second read.
 *   keep_string_user  passed to keep_string. */
typedef struct heapfmt_reader_options {
    size_t size;
    uint64_t max_table_memory;
    const heapfmt_allocator *allocator;
    heapfmt_keep_string_fn keep_string;
    void *keep_string_user;
} heapfmt_reader_options;

#define HEAPFMT_READER_OPTIONS_INIT                                         \
    { sizeof(heapfmt_reader_options), 0, NULL, NULL, NULL }

/* Creates a reader and reads the file header. On success stores the reader
 * in *out and returns HEAPFMT_OK. Otherwise returns an error; if a reader
 * could be created it is still stored in *out (so that
 * heapfmt_reader_error() explains the failure: not a heapfmt dump, JSON
 * input, newer major version...) and must be freed; else *out is NULL.
 * seek may be NULL. */
HEAPFMT_API int heapfmt_reader_open(heapfmt_reader **out,
                                    const heapfmt_reader_options *opt,
                                    heapfmt_read_fn read, heapfmt_seek_fn seek,
                                    void *opaque);

/* Over a file descriptor (read(2), lseek(2) when it is a regular file). The
 * descriptor is not closed. */
HEAPFMT_API int heapfmt_reader_open_fd(heapfmt_reader **out,
                                       const heapfmt_reader_options *opt,
                                       int fd);

/* Over a file path; the file is closed by heapfmt_reader_free. If the file
 * cannot be opened, returns HEAPFMT_E_IO with *out NULL and errno set. */
HEAPFMT_API int heapfmt_reader_open_path(heapfmt_reader **out,
                                         const heapfmt_reader_options *opt,
                                         const char *path);

/* Over len bytes at data, which must stay valid and unchanged while the
 * reader is used. Seekable. */
HEAPFMT_API int heapfmt_reader_open_memory(heapfmt_reader **out,
                                           const heapfmt_reader_options *opt,
                                           const void *data, size_t len);

/* Format version found in the file header. */
HEAPFMT_API void heapfmt_reader_version(const heapfmt_reader *r, int *major,
                                        int *minor);

/* An interned string as the reader knows it. ptr is NUL-terminated (the
 * text itself may contain NUL bytes; use len). slot is a dense number
 * (0 = the empty string standing for "none") usable as an array index.
 * undefined is set for an id that was referenced but never defined (its
 * STRING record was in a lost block); ptr is then "". dropped is set
 * for a string defined but not kept (heapfmt_reader_options keep_string);
 * ptr is then "" too. Valid until the reader is freed. */
typedef struct heapfmt_rstring {
    const char *ptr;
    size_t len;
    uint32_t id;
    uint32_t slot;
    int undefined;
    int dropped;
} heapfmt_rstring;

/* A class as the reader knows it (after redefinitions). slot 0 is the
 * "no class" entry used for objects with class index 0. name is NULL for an
 * anonymous class. undefined: referenced by an object but never defined
 * (its CLASS record was in a lost block). Valid until the reader is freed;
 * fields change if the class is redefined later in the dump. */
typedef struct heapfmt_rclass {
    uint32_t index;
    uint32_t slot;
    uint64_t id;
    uint64_t super_id;
    uint64_t flags;
    const heapfmt_rstring *name;
    int undefined;
} heapfmt_rclass;

/* A call-stack frame as the reader knows it. function, library and file
 * are never NULL (the empty string when unknown). undefined: referenced
 * by a STACK but its FRAME record was in a lost block. Valid until the
 * reader is freed. */
typedef struct heapfmt_rframe {
    uint32_t id;
    uint32_t slot;
    const heapfmt_rstring *function;
    const heapfmt_rstring *library;
    uint64_t offset;
    const heapfmt_rstring *file;
    uint64_t line;
    int undefined;
} heapfmt_rframe;

/* A call stack: nframes frames, innermost first. undefined: referenced by
 * an object but its STACK record was in a lost block (nframes is 0).
 * Valid until the reader is freed. */
typedef struct heapfmt_rstack {
    uint32_t id;
    uint32_t slot;
    size_t nframes;
    const heapfmt_rframe *const *frames;
    int undefined;
} heapfmt_rstack;

/* A LIFESPAN record as the reader delivers it (format 1.2): the fields
 * of heapfmt_lifespan, with the stack (NULL unless key has
 * HEAPFMT_LIFESPAN_STACK; an undefined stack when its record was lost)
 * and the site's file (the empty string unless key has
 * HEAPFMT_LIFESPAN_SITE) resolved. */
typedef struct heapfmt_rlifespan {
    uint32_t key;
    const heapfmt_rstack *stack;
    const heapfmt_rstring *file;
    uint64_t line;
    uint64_t allocs, frees;
    uint64_t alloc_bytes, free_bytes;
    uint64_t lifetime_us;
    uint64_t oldest_us;
} heapfmt_rlifespan;

/* The label of a reference as the reader delivers it: kind (enum
 * heapfmt_label_kind), weak, index (INDEX only) and name (every other
 * kind but NONE; the empty string otherwise). */
typedef struct heapfmt_rlabel {
    uint32_t kind;
    uint32_t weak;
    uint64_t index;
    const heapfmt_rstring *name;
} heapfmt_rlabel;

/* An object record. klass, type and file are never NULL (absent ones point
 * at the slot-0 entries). value points into the reader's block buffer:
 * valid until the next heapfmt_reader_next call. The references and their
 * labels are decoded only on demand by heapfmt_reader_refs() and
 * heapfmt_reader_labels(). stack is NULL unless fields has
 * HEAPFMT_F_STACK. */
typedef struct heapfmt_robject {
    uint64_t id;
    const heapfmt_rclass *klass;
    const heapfmt_rstring *type;
    uint64_t size;
    uint32_t fields;
    uint64_t flags;
    const char *value;
    size_t value_len;
    const heapfmt_rstring *file;
    uint64_t line;
    uint64_t generation;
    uint64_t nrefs;
    const heapfmt_rstack *stack;
} heapfmt_robject;

typedef struct heapfmt_rmeta {
    const char *key; /* NUL-terminated */
    size_t key_len;
    int type; /* enum heapfmt_meta_type */
    const char *text; /* TEXT: NUL-terminated, text_len bytes */
    size_t text_len;
    uint64_t uint_value; /* UINT */
    int64_t int_value;   /* INT */
} heapfmt_rmeta;

/* A ROOT record; labeled is 1 when its references carry labels. */
typedef struct heapfmt_rroot {
    const heapfmt_rstring *kind;
    uint64_t nrefs;
    int labeled;
} heapfmt_rroot;

/* An EVENTS record (format 1.2): the thread its events belong to (0:
 * the recorder's marks), how many, and the sequence numbers and times of
 * the first and the last. The events themselves are read one at a time
 * with heapfmt_reader_event(). */
typedef struct heapfmt_revents {
    uint32_t thread;
    uint64_t count;
    uint64_t first_seq, last_seq;
    uint64_t first_time_us, last_time_us;
} heapfmt_revents;

/* Totals of END and of the footer's TOTALS record. */
typedef struct heapfmt_totals {
    uint64_t objects;
    uint64_t bytes;
    uint64_t records;
    uint64_t classes;
    uint64_t strings;
    uint64_t roots;
    uint64_t blocks;
    uint64_t raw_bytes; /* decoded bytes of all data blocks (footer only) */
    uint64_t codecs;    /* bit c set: some data block uses codec c (footer
                           of a 1.1 dump only; 0 when not recorded) */
} heapfmt_totals;

/* One record from heapfmt_reader_next. tag tells which member is valid;
 * the pointed-to data is valid until the next call. For STRING, CLASS,
 * FRAME and STACK, the reader's table entry is given (already updated);
 * LIFESPAN and EVENTS records are delivered from files of format 1.2 on. For END, only
 * objects, bytes and records of end are set (END's records field counts
 * the records before END, unknown ones included). index counts the
 * records delivered before this one. */
typedef struct heapfmt_record {
    int tag; /* enum heapfmt_tag; never a skipped (unknown) tag */
    uint64_t offset; /* file offset of the block holding the record */
    uint64_t index;  /* 0-based record number in the dump */
    union {
        const heapfmt_rmeta *meta;
        const heapfmt_rstring *string;
        const heapfmt_rclass *klass;
        const heapfmt_robject *object;
        const heapfmt_rroot *root;
        const heapfmt_totals *end;
        const heapfmt_rframe *frame;
        const heapfmt_rstack *stack;
        const heapfmt_rlifespan *lifespan;
        const heapfmt_revents *events;
    } u;
} heapfmt_record;

/* Reads the next record. Returns
 *   HEAPFMT_OK        *rec filled.
 *   HEAPFMT_DONE      end of a complete dump (END, footer and trailer all
 *                     valid); the footer is then available.
 *   HEAPFMT_E_CORRUPT a block failed its check or held a malformed record.
 *                     If the block's header was intact, the rest of that
 *                     block is skipped and the next call continues with the
 *                     next block (the dump will end as incomplete).
 *                     Otherwise the error is sticky.
 *   HEAPFMT_E_TRUNCATED  input ended before the end of the dump: every
 *                     record of every complete block was delivered. Sticky.
 *   HEAPFMT_E_UNSUPPORTED  a block uses a codec this build cannot decode
 *                     (Zstandard left out at build time, or a codec of a
 *                     newer format version). Sticky: the message names
 *                     the codec.
 *   other errors      sticky (HEAPFMT_E_IO, HEAPFMT_E_NOMEM,
 *                     HEAPFMT_E_LIMIT, HEAPFMT_E_STATE).
 * Unknown record tags and block kinds are skipped silently. */
HEAPFMT_API int heapfmt_reader_next(heapfmt_reader *r, heapfmt_record *rec);

/* Returns 1 if heapfmt_reader_next may still deliver records: after
 * HEAPFMT_OK, or after a HEAPFMT_E_CORRUPT that skipped a block. Returns 0
 * once the reader reached HEAPFMT_DONE or a sticky error. */
HEAPFMT_API int heapfmt_reader_can_continue(const heapfmt_reader *r);

/* Decodes the references of the record last returned (OBJECT or ROOT) into
 * a buffer owned by the reader, valid until the next call, and stores it in
 * *ids. Returns the count (>= 0; 0 for a record with no references) or a
 * negative error: HEAPFMT_E_STATE if the last record was not an OBJECT or
 * ROOT, HEAPFMT_E_CORRUPT if they do not decode (which also ends that block
 * as heapfmt_reader_next would), HEAPFMT_E_NOMEM. It does not invalidate
 * the record's other fields (value included): they stay valid until the
 * next heapfmt_reader_next, also after an error. */
HEAPFMT_API long heapfmt_reader_refs(heapfmt_reader *r, const uint64_t **ids);

/* Decodes the labels of the record last returned (OBJECT with
 * HEAPFMT_F_LABELS, or a labeled ROOT) into a buffer owned by the reader,
 * one per reference (unlabeled ones have kind HEAPFMT_LABEL_NONE), valid
 * until the next call, and stores it in *labels. Returns the count (the
 * record's nrefs), 0 when the record has no labels (at no cost), or a
 * negative error as heapfmt_reader_refs does. */
HEAPFMT_API long heapfmt_reader_labels(heapfmt_reader *r,
                                       const heapfmt_rlabel **labels);

/* The next event of the EVENTS record last returned, in its order.
 * Returns 1 with *ev filled, 0 after its last event, or HEAPFMT_E_STATE
 * when the last record was not EVENTS. The record was checked whole when
 * it was read (heapfmt_reader_next reports a malformed one as corrupt),
 * so this cannot fail otherwise. */
HEAPFMT_API int heapfmt_reader_event(heapfmt_reader *r, heapfmt_event *ev);

/* Block index entry of the footer. offset is the file offset of the
 * block's header. */
typedef struct heapfmt_block_entry {
    uint64_t offset;
    uint64_t records;
    uint64_t objects;
} heapfmt_block_entry;

/* Per-class summary entry of the footer. name is NULL for anonymous. */
typedef struct heapfmt_class_summary {
    uint32_t index;
    uint64_t id;
    uint64_t flags;
    uint64_t count;
    uint64_t bytes;
    const char *name; /* NUL-terminated */
    size_t name_len;
} heapfmt_class_summary;

typedef struct heapfmt_footer {
    heapfmt_totals totals;
    size_t nblocks;
    const heapfmt_block_entry *blocks;
    size_t nclasses;
    const heapfmt_class_summary *classes;
    uint64_t offset; /* file offset of the footer block (its header) */
} heapfmt_footer;

/* Reads the footer through the seek callback without reading the blocks,
 * and stores it in *out (valid until the reader is freed). After a
 * successful call, heapfmt_reader_next continues where it was. Returns
 * HEAPFMT_E_NO_FOOTER (not sticky) if the source is not seekable or has no
 * valid trailer (an incomplete dump), HEAPFMT_E_CORRUPT if the trailer is
 * valid but the footer is not, HEAPFMT_E_UNSUPPORTED if the footer block
 * uses a codec this build cannot decode. If heapfmt_reader_next has already returned
 * HEAPFMT_DONE, returns the footer read then, without seeking. */
HEAPFMT_API int heapfmt_reader_footer(heapfmt_reader *r,
                                      const heapfmt_footer **out);

/* What heapfmt_reader_check_blocks checks. */
enum heapfmt_check_level {
    HEAPFMT_CHECK_HEADERS = 0, /* the blocks' headers and places */
    HEAPFMT_CHECK_PAYLOADS = 1 /* also every payload's decoding and CRC */
};

/* Checks the data blocks the footer's block index describes, without
 * delivering their records, for a reader that answers from the footer
 * alone: the footer's figures agree with each other (totals, index,
 * summary), and at every offset of the index is a data block whose header
 * check matches, with lengths within the limits and possible for its
 * codec, ending exactly where the next block (the last: the footer)
 * starts. A footer can be intact while its blocks are not (two writers
 * of one path interleaved, a file patched, a lost page): then its numbers
 * are not the dump's. HEAPFMT_CHECK_HEADERS costs one read of 20 bytes
 * per block (a millisecond for a gigabyte dump in the page cache);
 * HEAPFMT_CHECK_PAYLOADS also reads, decodes and checks every block's
 * data_crc, which costs a decode of the whole dump. Call it after a
 * successful heapfmt_reader_footer. Returns HEAPFMT_OK,
 * HEAPFMT_E_CORRUPT (the message names the block and its offset),
 * HEAPFMT_E_UNSUPPORTED (a codec this build cannot decode),
 * HEAPFMT_E_NO_FOOTER (no footer read, or not seekable), HEAPFMT_E_IO,
 * HEAPFMT_E_NOMEM or HEAPFMT_E_ARG. Errors are not sticky (an I/O error
 * seeking back is); heapfmt_reader_next continues where it was. */
HEAPFMT_API int heapfmt_reader_check_blocks(heapfmt_reader *r, int level);

/* Moves a seekable reader to the data block whose header is at offset (an
 * entry of the footer's block index), for reading blocks in parallel: each
 * thread opens its own reader on the file, moves it to its first block and
 * stops when a record's offset reaches the next thread's first block.
 * Strings and classes defined in blocks before it are unknown to this
 * reader: objects refer to them through "undefined" entries whose index or
 * id is still exact (aggregate by heapfmt_rclass.index and take names from
 * the footer). From then on END and footer totals are not checked against
 * what this reader counted. Returns HEAPFMT_OK, HEAPFMT_E_NO_FOOTER if the
 * source is not seekable, HEAPFMT_E_ARG for an offset before the first
 * block, HEAPFMT_E_IO; errors here are sticky. */
HEAPFMT_API int heapfmt_reader_seek_block(heapfmt_reader *r, uint64_t offset);

/* As heapfmt_reader_seek_block, and the reader ends (HEAPFMT_DONE) at the
 * block whose header is at offset end, without reading it: a range of the
 * block index, end being the next range's first block or the footer's
 * offset (heapfmt_footer.offset). The reader's progress then counts that
 * range exactly. A block that runs past end, or a footer block before it,
 * is corrupt (sticky). */
HEAPFMT_API int heapfmt_reader_seek_range(heapfmt_reader *r, uint64_t offset,
                                          uint64_t end);

/* META pairs seen so far, in file order; *n receives the count. */
HEAPFMT_API const heapfmt_rmeta *heapfmt_reader_meta(const heapfmt_reader *r,
                                                     size_t *n);

/* Finds the last META pair with this key, or NULL. */
HEAPFMT_API const heapfmt_rmeta *heapfmt_reader_meta_get(const heapfmt_reader *r,
                                                         const char *key);

/* Classes and strings known so far, by slot (0 .. count-1). */
HEAPFMT_API size_t heapfmt_reader_class_count(const heapfmt_reader *r);
HEAPFMT_API const heapfmt_rclass *heapfmt_reader_class(const heapfmt_reader *r,
                                                       size_t slot);
HEAPFMT_API size_t heapfmt_reader_string_count(const heapfmt_reader *r);
HEAPFMT_API const heapfmt_rstring *heapfmt_reader_string(const heapfmt_reader *r,
                                                         size_t slot);

/* Progress of a reader:
 *   records         records delivered (skipped unknown ones not counted)
 *   skipped         records of unknown kinds, skipped as the spec says
 *                   (END's record count includes them)
 *   objects, bytes  OBJECT records delivered and the sum of their sizes
 *   blocks          data blocks read completely
 *   corrupt_blocks  blocks skipped as corrupt
 *   offset          input bytes consumed
 *   raw_bytes       decoded bytes of the data blocks read so far
 *   stored_bytes    their stored (possibly compressed) payload bytes
 *   codecs          bit c set: a data block read so far used codec c */
typedef struct heapfmt_progress {
    uint64_t records;
    uint64_t objects;
    uint64_t bytes;
    uint64_t blocks;
    uint64_t corrupt_blocks;
    uint64_t offset;
    uint64_t raw_bytes;
    uint64_t stored_bytes;
    uint64_t skipped;
    uint64_t codecs;
} heapfmt_progress;

HEAPFMT_API void heapfmt_reader_progress(const heapfmt_reader *r,
                                         heapfmt_progress *p);

/* Detail of the last error; never NULL for a non-NULL reader. */
HEAPFMT_API const heapfmt_error *heapfmt_reader_error(const heapfmt_reader *r);

HEAPFMT_API void heapfmt_reader_free(heapfmt_reader *r);

#ifdef __cplusplus
}
#endif
#endif /* HEAPFMT_H */
