/* strtab.h -- a string intern table: text -> id 1, 2, 3..., id -> text
 * (NUL-terminated copies). The writer's strings; the tools' names
 * (tools/common/cli_strmap.h). */
#ifndef HEAPFMT_STRTAB_H
#define HEAPFMT_STRTAB_H

#include "hf_common.h"

typedef struct hf_strent {
    const char *text;
    size_t len;
    uint32_t hash;
} hf_strent;

typedef struct hf_strtab {
    const heapfmt_allocator *al;
    hf_arena arena;
    hf_strent *ents; /* id - 1 */
    size_t count, cents;
    uint32_t *index; /* open addressing: entry number + 1, 0 = empty */
    size_t icap;
    uint64_t seed;   /* hash.h */
} hf_strtab;

void hf_strtab_init(hf_strtab *t, const heapfmt_allocator *al);
void hf_strtab_free(hf_strtab *t);
/* Looks s up; if absent adds it with id new_id (== count + 1). Stores the
 * id in *id and whether it existed in *found. Returns 0 or -1 (no memory,
 * table unchanged). */
int hf_strtab_intern(hf_strtab *t, const char *s, size_t len, uint32_t new_id,
                     uint32_t *id, int *found);
/* Looks s up without adding it: returns 1 with its id in *id, else 0. */
int hf_strtab_find(const hf_strtab *t, const char *s, size_t len,
                   uint32_t *id);
/* Removes the entry added last (its record could not be written). */
void hf_strtab_forget_last(hf_strtab *t);
const char *hf_strtab_text(const hf_strtab *t, uint32_t id, size_t *len);

#endif
