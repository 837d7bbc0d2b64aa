/* request.c -- heapfmt-ruby: the Ruby code injected, and its answers. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "request.h"

typedef struct sbuf {
    char *p;
    size_t len, cap;
    int over;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= b->cap - b->len)
        b->over = 1;
    else
        b->len += (size_t)n;
}

/* s as a double-quoted Ruby string literal: every byte that could end
 * it, interpolate or not print is escaped. */
static void put_literal(sbuf *b, const char *s)
{
    put(b, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c && !b->over; c++) {
        if (*c == '"' || *c == '\\' || *c == '#')
            put(b, "\\%c", *c);
        else if (*c < 0x20 || *c >= 0x7f)
            put(b, "\\x%02X", *c);
        else
            put(b, "%c", *c);
    }
    put(b, "\"");
}

size_t request_code(const request *q, char *buf, size_t cap)
{
    sbuf b = {buf, 0, cap, 0};
    if (cap == 0)
        return 0;
    buf[0] = '\0';
    put(&b, "Thread.new do\n"
            "  Thread.current.name = \"heapfmt-ruby\"\n"
            "  Thread.current.report_on_exception = false\n"
            "  say = lambda do |m|\n"
            "    File.open(");
    put_literal(&b, q->status);
    put(&b, ", File::WRONLY | File::TRUNC) { |f| f.write(m) }\n"
            "  rescue Exception\n"
            "    nil\n"
            "  end\n"
            "  begin\n"
            "    say.call(\"started\\n\")\n"
            "    require ");
    put_literal(&b, q->ext);
    put(&b, " unless defined?(::HeapFmt.dump)\n"
            "    n = File.open(");
    put_literal(&b, q->output);
    put(&b, ", File::WRONLY | File::TRUNC) do |f|\n"
            "      ::HeapFmt.dump(f, fork: %s, gc: %s",
        q->fork ? "true" : "false", q->gc ? "true" : "false");
    if (!q->labels)
        put(&b, ", labels: false");
    if (q->codec != NULL)
        put(&b, ", codec: :%s", q->codec);
    if (q->level >= 0)
        put(&b, ", level: %d", q->level);
    put(&b, ")\n"
            "    end\n"
            "    say.call(\"ok #{n}\\n\")\n"
            "  rescue Exception => e\n"
            "    say.call(\"error #{e.class}: #{e.message}\".tr(\"\\r\\n\", \"  \") + \"\\n\")\n"
            "  end\n"
            "end\n"
            "nil\n");
    return b.over ? 0 : b.len;
}

int request_status(const char *status_path, uint64_t *objects, char *msg,
                   size_t msglen)
{
    char buf[2048];
    int fd = open(status_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return STATUS_NONE;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return STATUS_NONE;
    buf[n] = '\0';
    char *nl = memchr(buf, '\n', (size_t)n);
    if (nl == NULL) /* being written */
        return strncmp(buf, "ok", 2) == 0 || strncmp(buf, "error", 5) == 0
                   ? STATUS_STARTED
                   : STATUS_NONE;
    *nl = '\0';
    if (strcmp(buf, "started") == 0)
        return STATUS_STARTED;
    if (strncmp(buf, "ok ", 3) == 0) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(buf + 3, &end, 10);
        if (errno == 0 && end != buf + 3 && *end == '\0') {
            *objects = v;
            return STATUS_OK;
        }
    }
    const char *m = strncmp(buf, "error ", 6) == 0 ? buf + 6 : buf;
    snprintf(msg, msglen, "%s", m);
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return STATUS_ERROR;
}
