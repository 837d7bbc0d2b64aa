/* thprof.c -- an HPROF encoder for the importer's tests (thprof.h). */
#include "thprof.h"

#include <string.h>

void thprof_u4(thprof *w, uint32_t v)
{
    unsigned char p[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 8), (unsigned char)v};
    tbuf_put(&w->b, p, 4);
}

void thprof_u2(thprof *w, unsigned v)
{
    tbuf_u8(&w->b, (v >> 8) & 0xff);
    tbuf_u8(&w->b, v & 0xff);
}

void thprof_id(thprof *w, uint64_t v)
{
    if (w->idsz == 8)
        thprof_u4(w, (uint32_t)(v >> 32));
    thprof_u4(w, (uint32_t)v);
}

void thprof_header(thprof *w, const char *version, unsigned idsz,
                   uint64_t time_ms)
{
    memset(w, 0, sizeof *w);
    w->idsz = idsz;
    tbuf_put(&w->b, version, strlen(version) + 1);
    thprof_u4(w, idsz);
    thprof_u4(w, (uint32_t)(time_ms >> 32));
    thprof_u4(w, (uint32_t)time_ms);
}

void thprof_record(thprof *w, unsigned tag, uint32_t len)
{
    tbuf_u8(&w->b, tag);
    thprof_u4(w, 0);
    thprof_u4(w, len);
}

void thprof_utf8(thprof *w, uint64_t sid, const char *text)
{
    thprof_record(w, 0x01, w->idsz + (uint32_t)strlen(text));
    thprof_id(w, sid);
    tbuf_put(&w->b, text, strlen(text));
}

void thprof_load_class(thprof *w, uint64_t cid, uint64_t name)
{
    thprof_record(w, 0x02, 8 + 2 * w->idsz);
    thprof_u4(w, 1);
    thprof_id(w, cid);
    thprof_u4(w, 0);
    thprof_id(w, name);
}

void thprof_segment_open(thprof *w)
{
    thprof_record(w, 0x1c, 0);
    w->seg_len_at = w->b.len - 4;
}

void thprof_segment_close(thprof *w)
{
    uint32_t len = (uint32_t)(w->b.len - w->seg_len_at - 4);
    unsigned char *p = w->b.data + w->seg_len_at;
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(len >> (24 - 8 * i));
}

/* What every object sub-record starts with: its tag, the object's id and
 * a stack trace serial (0: none). */
static void object_head(thprof *w, unsigned tag, uint64_t oid)
{
    tbuf_u8(&w->b, tag);
    thprof_id(w, oid);
    thprof_u4(w, 0);
}

void thprof_class_head(thprof *w, uint64_t cid, uint64_t super,
                       uint64_t loader, uint32_t size)
{
    object_head(w, 0x20, cid);
    thprof_id(w, super);
    thprof_id(w, loader);
    for (int i = 0; i < 4; i++)
        thprof_id(w, 0); /* signers, protection domain, reserved */
    thprof_u4(w, size);
}

void thprof_instance_head(thprof *w, uint64_t oid, uint64_t cid, uint32_t len)
{
    object_head(w, 0x21, oid);
    thprof_id(w, cid);
    thprof_u4(w, len);
}

void thprof_objects_head(thprof *w, uint64_t oid, uint32_t n, uint64_t cid)
{
    object_head(w, 0x22, oid);
    thprof_u4(w, n);
    thprof_id(w, cid);
}

void thprof_prims_head(thprof *w, uint64_t oid, uint32_t n, unsigned t)
{
    object_head(w, 0x23, oid);
    thprof_u4(w, n);
    tbuf_u8(&w->b, t);
}

void thprof_prims(thprof *w, uint64_t oid, uint32_t n, unsigned t,
                  const void *data, size_t bytes)
{
    thprof_prims_head(w, oid, n, t);
    tbuf_put(&w->b, data, bytes);
}
