/* reader_open.c -- creating and freeing readers; fd, path, memory sources. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader_internal.h"

#define DEFAULT_TABLE_LIMIT (1ull << 30)

int hf_rfail(heapfmt_reader *r, int code, int sys_errno, uint64_t offset,
             const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hf_error_vset(&r->err, code, sys_errno,
                  (hf_where){offset, r->block_no, r->delivered}, fmt, ap);
    va_end(ap);
    return code;
}

int hf_rstop(heapfmt_reader *r, int code)
{
    r->state = HF_R_FAILED;
    r->err.code = code;
    r->failure = r->err;
    return code;
}

/* Explains bytes that are not a heapfmt header. */
static int not_heapfmt(heapfmt_reader *r, const uint8_t *h, size_t n)
{
    size_t i = 0;
    while (i < n && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n' ||
                     h[i] == '\r'))
        i++;
    if (i < n && (h[i] == '{' || h[i] == '['))
        return hf_rfail(r, HEAPFMT_E_NOT_HEAPFMT, 0, 0,
                        "not a heapfmt dump: it looks like JSON (for an "
                        "ObjectSpace.dump_all file use heapfmt-import)");
    if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
        return hf_rfail(r, HEAPFMT_E_NOT_HEAPFMT, 0, 0,
                        "not a heapfmt dump: it is gzip-compressed data");
    return hf_rfail(r, HEAPFMT_E_NOT_HEAPFMT, 0, 0,
                    "not a heapfmt dump (no heapfmt magic number)");
}

static int read_header(heapfmt_reader *r)
{
    uint8_t h[HF_HEADER_SIZE];
    size_t got;
    int rc = hf_read_full(r, h, sizeof h, &got);
    if (rc != HEAPFMT_OK)
        return rc;
    size_t m = got < 8 ? got : 8;
    if (memcmp(h, HF_MAGIC, m) != 0)
        return not_heapfmt(r, h, got);
    if (got < sizeof h)
        return hf_rfail(r, HEAPFMT_E_TRUNCATED, 0, 0,
                        got == 0 ? "dump is empty (truncated at offset 0)"
                                 : "dump is truncated inside its header");
    hf_file_header fh;
    const char *why = hf_file_header_decode(h, &fh);
    if (why)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, 0, "%s", why);
    r->major = fh.major;
    r->minor = fh.minor;
    if (r->major != HEAPFMT_FORMAT_MAJOR)
        return hf_rfail(r, HEAPFMT_E_VERSION, 0, 8,
                        "file is format %d.%d; this reader supports %d.x "
                        "(up to %d.%d)",
                        r->major, r->minor, HEAPFMT_FORMAT_MAJOR,
                        HEAPFMT_FORMAT_MAJOR, HEAPFMT_FORMAT_MINOR);
    r->strict = r->minor <= HEAPFMT_FORMAT_MINOR;
    r->obj_fields_known = r->minor >= 3   ? HF_OBJ_FIELDS_1_3
                          : r->minor >= 1 ? HF_OBJ_FIELDS_1_1
                                          : HF_OBJ_FIELDS_1_0;
    if (fh.flags != 0 && r->strict)
        return hf_rfail(r, HEAPFMT_E_CORRUPT, 0, 10,
                        "file header has reserved flags set");
    return HEAPFMT_OK;
}

/* Allocates a reader without touching the input. */
static int create(heapfmt_reader **out, const heapfmt_reader_options *opt,
                  heapfmt_read_fn read, heapfmt_seek_fn seek, void *opaque)
{
    if (!out)
        return HEAPFMT_E_ARG;
    *out = NULL;
    heapfmt_reader_options o = HEAPFMT_READER_OPTIONS_INIT;
    if (hf_copy_options(&o, sizeof o, opt) != HEAPFMT_OK)
        return HEAPFMT_E_ARG;
    if (!read)
        return HEAPFMT_E_ARG;
    heapfmt_reader *r = hf_handle_alloc(o.allocator, sizeof *r,
                                        offsetof(heapfmt_reader, al));
    if (!r)
        return HEAPFMT_E_NOMEM;
    r->read = read;
    r->seek = seek;
    r->opaque = opaque;
    r->fd = -1;
    r->state = HF_R_BLOCK;
    r->table_limit = o.max_table_memory ? o.max_table_memory
                                        : DEFAULT_TABLE_LIMIT;
    r->keep_string = o.keep_string;
    r->keep_string_user = o.keep_string_user;
    hf_arena_init(&r->footer_arena, &r->al);
    hf_decompressor_init(&r->dec, &r->al);
    if (hf_tables_init(r) != HEAPFMT_OK) {
        heapfmt_reader_free(r);
        return HEAPFMT_E_NOMEM;
    }
    *out = r;
    return HEAPFMT_OK;
}

static int start(heapfmt_reader *r)
{
    int rc = read_header(r);
    if (rc != HEAPFMT_OK)
        hf_rstop(r, rc);
    return rc;
}

int heapfmt_reader_open(heapfmt_reader **out, const heapfmt_reader_options *opt,
                        heapfmt_read_fn read, heapfmt_seek_fn seek,
                        void *opaque)
{
    if (!read) {
        if (out)
            *out = NULL;
        return HEAPFMT_E_ARG;
    }
    int rc = create(out, opt, read, seek, opaque);
    if (rc != HEAPFMT_OK)
        return rc;
    return start(*out);
}

static long fd_read(void *opaque, void *buf, size_t len)
{
    heapfmt_reader *r = opaque;
    ssize_t n = read(r->fd_source, buf, len);
    return n >= 0 ? (long)n : -(long)errno;
}

static int64_t fd_seek(void *opaque, int64_t off, int from_end)
{
    heapfmt_reader *r = opaque;
    off_t at = lseek(r->fd_source, (off_t)off, from_end ? SEEK_END : SEEK_SET);
    return at < 0 ? -(int64_t)errno : (int64_t)at;
}

int heapfmt_reader_open_fd(heapfmt_reader **out,
                           const heapfmt_reader_options *opt, int fd)
{
    if (fd < 0) {
        if (out)
            *out = NULL;
        return HEAPFMT_E_ARG;
    }
    struct stat st;
    int seekable = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    int rc = create(out, opt, fd_read, seekable ? fd_seek : NULL, NULL);
    if (rc != HEAPFMT_OK)
        return rc;
    (*out)->opaque = *out; /* the built-in sources read the handle */
    (*out)->fd_source = fd;
    if (seekable) /* offsets are relative to where the dump starts */
        seekable = lseek(fd, 0, SEEK_CUR) == 0;
    if (!seekable)
        (*out)->seek = NULL;
    return start(*out);
}

int heapfmt_reader_open_path(heapfmt_reader **out,
                             const heapfmt_reader_options *opt,
                             const char *path)
{
    if (!path) {
        if (out)
            *out = NULL;
        return HEAPFMT_E_ARG;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (out)
            *out = NULL;
        return HEAPFMT_E_IO;
    }
    int rc = heapfmt_reader_open_fd(out, opt, fd);
    if (!out || !*out) {
        int e = errno;
        close(fd);
        errno = e;
        return rc;
    }
    (*out)->fd = fd;
    return rc;
}

static long mem_read(void *opaque, void *buf, size_t len)
{
    heapfmt_reader *r = opaque;
    size_t left = r->mem_len - r->mem_pos;
    size_t n = len < left ? len : left;
    if (n)
        memcpy(buf, r->mem + r->mem_pos, n);
    r->mem_pos += n;
    return (long)n;
}

static int64_t mem_seek(void *opaque, int64_t off, int from_end)
{
    heapfmt_reader *r = opaque;
    int64_t at = from_end ? (int64_t)r->mem_len + off : off;
    if (at < 0 || (uint64_t)at > r->mem_len)
        return -EINVAL;
    r->mem_pos = (size_t)at;
    return at;
}

int heapfmt_reader_open_memory(heapfmt_reader **out,
                               const heapfmt_reader_options *opt,
                               const void *data, size_t len)
{
    if (!data && len) {
        if (out)
            *out = NULL;
        return HEAPFMT_E_ARG;
    }
    int rc = create(out, opt, mem_read, mem_seek, NULL);
    if (rc != HEAPFMT_OK)
        return rc;
    (*out)->opaque = *out;
    (*out)->mem = data;
    (*out)->mem_len = len;
    return start(*out);
}

void heapfmt_reader_free(heapfmt_reader *r)
{
    if (!r)
        return;
    heapfmt_allocator al = r->al;
    if (r->fd >= 0)
        close(r->fd);
    hf_decompressor_free(&r->dec);
    hf_tables_free(r);
    hf_arena_free(&r->footer_arena);
    hf_free(&al, r->fblocks);
    hf_free(&al, r->fclasses);
    hf_free(&al, r->stored);
    hf_free(&al, r->raw);
    hf_free(&al, r->refs_buf);
    hf_free(&al, r->labels_buf);
    hf_free(&al, r);
}
