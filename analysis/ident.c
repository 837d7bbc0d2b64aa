/* ident.c -- can object ids of two dumps be compared at all? */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli_escape.h"
#include "ident.h"

static const char *const keys[IDENT_KEYS] = {
    [IDENT_PID] = "pid",
    [IDENT_HOST] = "host",
    [IDENT_START] = "process.start",
    [IDENT_IDS_STABLE] = "ids_stable",
    [IDENT_COMPACTIONS] = "gc.compactions",
};

void ident_capture(ident *id, const heapfmt_reader *r)
{
    memset(id, 0, sizeof *id);
    for (int k = 0; k < IDENT_KEYS; k++) {
        const heapfmt_rmeta *m = heapfmt_reader_meta_get(r, keys[k]);
        if (m == NULL)
            continue;
        char *v = id->value[k];
        size_t size = sizeof id->value[k];
        switch (m->type) {
        case HEAPFMT_META_UINT:
            snprintf(v, size, "%" PRIu64, m->uint_value);
            id->is_zero[k] = m->uint_value == 0;
            break;
        case HEAPFMT_META_INT:
            snprintf(v, size, "%" PRId64, m->int_value);
            id->is_zero[k] = m->int_value == 0;
            break;
        case HEAPFMT_META_TEXT:
            cli_text_format(v, size, m->text, m->text_len);
            break;
        default:
            continue; /* a type this tool does not know: no opinion */
        }
        id->present[k] = 1;
    }
}

int ident_check_one(const ident *a, const char *aname, notes *w)
{
    if (a->present[IDENT_IDS_STABLE] && a->is_zero[IDENT_IDS_STABLE])
        return notes_add(w, aname,
                         "ids are not stable (META ids_stable is 0): an "
                         "object may have another id in another dump, so "
                         "results may be wrong");
    return 0;
}

/* Whether key k is present in both and differs. */
static int differs(const ident *a, const ident *b, int k)
{
    return a->present[k] && b->present[k] &&
           strcmp(a->value[k], b->value[k]) != 0;
}

int ident_check_pair(const ident *a, const char *aname, const ident *b,
                     const char *bname, notes *w)
{
    static const int process_keys[] = {IDENT_PID, IDENT_HOST, IDENT_START};
    char why[400] = "";
    size_t len = 0;
    for (size_t i = 0; i < sizeof process_keys / sizeof *process_keys; i++) {
        int k = process_keys[i];
        if (differs(a, b, k) && len < sizeof why)
            len += (size_t)snprintf(why + len, sizeof why - len, "%s%s %s vs %s",
                                    len > 0 ? ", " : "", keys[k],
                                    a->value[k], b->value[k]);
    }
    if (len > 0)
        /* Compaction counts of two processes say nothing: stop here. */
        return notes_add(w, NULL,
                         "%s and %s come from different processes (%s): ids "
                         "of one process mean nothing in another, so results "
                         "may be wrong",
                         aname, bname, why);
    if (differs(a, b, IDENT_COMPACTIONS))
        return notes_add(w, NULL,
                         "the heap was compacted between %s and %s "
                         "(gc.compactions %s vs %s): objects may have moved "
                         "to other ids, so results may be wrong",
                         aname, bname, a->value[IDENT_COMPACTIONS],
                         b->value[IDENT_COMPACTIONS]);
    return 0;
}
