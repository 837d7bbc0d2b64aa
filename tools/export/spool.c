/* spool.c -- a temporary file holding one part of a JSON document. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "spool.h"

#define SPOOL_BUFFER (256u << 10)

int spool_open(spool *s)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->file = tmpfile();
    if (s->file == NULL)
        return -1;
    s->fd = fileno(s->file);
    if (jout_init(&s->out, SPOOL_BUFFER, jout_fd_write, &s->fd) != 0) {
        spool_close(s);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

int spool_copy(spool *s, jout *dst)
{
    if (jout_flush(&s->out) != 0) {
        errno = s->out.err;
        return -1;
    }
    if (lseek(s->fd, 0, SEEK_SET) < 0)
        return -1;
    for (;;) {
        char *p = jout_room(dst, JOUT_MIN_CAP);
        ssize_t n = read(s->fd, p, JOUT_MIN_CAP);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        dst->len += (size_t)n;
    }
    if (lseek(s->fd, 0, SEEK_SET) < 0 || ftruncate(s->fd, 0) != 0)
        return -1;
    return 0;
}

void spool_close(spool *s)
{
    jout_free(&s->out);
    if (s->file != NULL)
        fclose(s->file);
    s->file = NULL;
    s->fd = -1;
}
