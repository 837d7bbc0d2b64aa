/* writer_open.c -- creating and freeing writers; fd and path sinks. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "writer_internal.h"

int heapfmt_writer_open(heapfmt_writer **out, const heapfmt_writer_options *opt,
                        heapfmt_write_fn write, void *opaque)
{
    if (!out)
        return HEAPFMT_E_ARG;
    *out = NULL;
    heapfmt_writer_options o = HEAPFMT_WRITER_OPTIONS_INIT;
    if (hf_copy_options(&o, sizeof o, opt) != HEAPFMT_OK)
        return HEAPFMT_E_ARG;
    if (o.codec == HEAPFMT_CODEC_STORED)
        o.level = 0; /* the level of "no compression" */
    int max_level = o.codec == HEAPFMT_CODEC_ZSTD ? HEAPFMT_ZSTD_MAX_LEVEL
                                                  : HEAPFMT_DEFLATE_MAX_LEVEL;
    if (!write || o.level < 0 || o.level > max_level ||
        o.codec < HEAPFMT_CODEC_STORED || o.codec > HEAPFMT_CODEC_ZSTD ||
        o.threads < 0 || o.threads > 1 ||
        (o.block_size != 0 && (o.block_size < HEAPFMT_MIN_BLOCK_SIZE ||
                               o.block_size > HEAPFMT_MAX_BLOCK)))
        return HEAPFMT_E_ARG;
    if (o.level > 0 && !heapfmt_codec_supported(o.codec))
        return HEAPFMT_E_UNSUPPORTED;
    heapfmt_writer *w = hf_handle_alloc(o.allocator, sizeof *w,
                                        offsetof(heapfmt_writer, al));
    if (!w)
        return HEAPFMT_E_NOMEM;
    w->write = write;
    w->opaque = opaque;
    w->out = NULL;
    w->level = o.level;
    w->codec = o.codec;
    w->block_size = o.block_size               ? o.block_size
                    : o.threads && o.level > 0 ? HEAPFMT_THREAD_BLOCK_SIZE
                                               : HEAPFMT_DEFAULT_BLOCK_SIZE;
    w->kind = HF_KIND_DATA;
    hf_strtab_init(&w->strings, &w->al);
    hf_strtab_init(&w->frames, &w->al);
    hf_strtab_init(&w->stacks, &w->al);
    hf_map_init(&w->class_ids);
    /* Allocate the block buffer, codec state and worker now, not in the
     * middle of a dump. */
    w->cap = w->block_size + 64;
    w->buf = hf_alloc(&w->al, w->cap);
    int rc = w->buf ? HEAPFMT_OK : HEAPFMT_E_NOMEM;
    if (rc == HEAPFMT_OK && w->level > 0)
        rc = hf_compressor_init(&w->comp, &w->al, w->codec, w->level);
    if (rc == HEAPFMT_OK && w->level > 0 && o.threads)
        rc = hf_wthread_start(w);
    if (rc != HEAPFMT_OK) {
        heapfmt_writer_free(w);
        return rc;
    }
    *out = w;
    return HEAPFMT_OK;
}

/* write(2) sink: short writes are returned to the writer's loop; EAGAIN
 * on a non-blocking descriptor waits until it is writable. */
static long fd_write(void *opaque, const void *buf, size_t len)
{
    heapfmt_writer *w = opaque;
    ssize_t n = write(w->fd_target, buf, len);
    if (n >= 0)
        return n == 0 ? -EIO : (long)n;
    int e = errno;
    if (e == EAGAIN || e == EWOULDBLOCK) {
        struct pollfd p = {.fd = w->fd_target, .events = POLLOUT};
        (void)poll(&p, 1, -1);
        return -EAGAIN;
    }
    return -e;
}

int heapfmt_writer_open_fd(heapfmt_writer **out,
                           const heapfmt_writer_options *opt, int fd)
{
    if (fd < 0) {
        if (out)
            *out = NULL;
        return HEAPFMT_E_ARG;
    }
    int rc = heapfmt_writer_open(out, opt, fd_write, NULL);
    if (rc == HEAPFMT_OK) {
        (*out)->opaque = *out;
        (*out)->fd_target = fd;
    }
    return rc;
}

int heapfmt_writer_open_path(heapfmt_writer **out,
                             const heapfmt_writer_options *opt,
                             const char *path)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return HEAPFMT_E_ARG;
    heapfmt_writer_options o = HEAPFMT_WRITER_OPTIONS_INIT;
    if (hf_copy_options(&o, sizeof o, opt) != HEAPFMT_OK)
        return HEAPFMT_E_ARG;
    heapfmt_allocator al;
    hf_allocator_init(&al, o.allocator);
    hf_outfile *f = hf_alloc(&al, sizeof *f);
    if (!f)
        return HEAPFMT_E_NOMEM;
    if (hf_outfile_open(f, path) != 0) {
        int e = errno;
        hf_free(&al, f);
        errno = e;
        return HEAPFMT_E_IO;
    }
    int rc = heapfmt_writer_open_fd(out, opt, f->fd);
    if (rc != HEAPFMT_OK) {
        hf_outfile_discard(f);
        hf_free(&al, f);
        return rc;
    }
    (*out)->out = f;
    return HEAPFMT_OK;
}

int hf_writer_close_target(heapfmt_writer *w, int complete)
{
    hf_outfile *f = w->out;
    if (!f || (f->fd < 0 && !f->temp))
        return HEAPFMT_OK;
    if (!complete) {
        hf_outfile_discard(f);
        return HEAPFMT_OK;
    }
    if (hf_outfile_commit(f) == 0)
        return HEAPFMT_OK;
    int e = errno;
    return hf_wfail(w, HEAPFMT_E_IO, e, "%s failed: %s",
                    f->temp ? "rename" : "close", strerror(e));
}

void heapfmt_writer_free(heapfmt_writer *w)
{
    if (!w)
        return;
    heapfmt_allocator al = w->al;
    hf_writer_close_target(w, 0);
    hf_free(&al, w->out);
    hf_wthread_stop(w);
    hf_compressor_free(&w->comp);
    hf_strtab_free(&w->strings);
    hf_strtab_free(&w->frames);
    hf_strtab_free(&w->stacks);
    hf_map_free(&w->class_ids, &al);
    hf_free(&al, w->classes);
    hf_free(&al, w->blocks);
    hf_free(&al, w->buf);
    hf_free(&al, w);
}
