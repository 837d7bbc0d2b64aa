/* histo_build.c -- every dump into one histogram table. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_file.h"
#include "histo.h"

/* Only a regular file can be opened again and read from its start: a
 * FIFO, /dev/stdin or <(command) would lose what the check consumed. */
static int reopenable(const an_dump *d)
{
    struct stat st;
    return d->fd >= 0 && fstat(d->fd, &st) == 0 && S_ISREG(st.st_mode) &&
           strcmp(d->path, "-") != 0;
}

int histo_build(histo_table *t, const char *const *paths, size_t npaths,
                const histo_options *opt)
{
    memset(t, 0, sizeof *t); /* freeable whatever fails */
    an_dump *dumps = calloc(npaths, sizeof *dumps);
    if (dumps == NULL || histo_table_init(t, npaths) != 0) {
        free(dumps);
        return an_no_memory(opt->ctx, NULL);
    }
    for (size_t d = 0; d < npaths; d++) {
        dumps[d].fd = -1; /* closed: an_dump_close does nothing */
        t->dumps[d].path = paths[d];
        t->dumps[d].name = cli_input_name(paths[d]);
    }
    int result = AN_OK;

    /* Check every dump first: a mistyped last name fails at once, not
     * after minutes spent reading the others. Files are closed again (a
     * trend may have more dumps than the process may have open files);
     * standard input, pipes and FIFOs stay open: they cannot be read
     * twice. */
    for (size_t d = 0; d < npaths && result != AN_ERROR; d++) {
        int rc = an_dump_open(&dumps[d], paths[d], NULL, opt->ctx);
        if (rc == AN_OK && reopenable(&dumps[d]))
            an_dump_close(&dumps[d]);
        if (rc == AN_INCOMPLETE) {
            /* Cut inside the file header: nothing readable, but still a
             * column of the table. dumps[d] is closed. */
            t->dumps[d].status = rc;
            an_warn(opt->ctx, t->dumps[d].name,
                    "incomplete dump: results cover 0 objects");
            result = rc;
        } else if (rc != AN_OK) {
            result = rc;
        }
    }
    for (size_t d = 0; d < npaths && result != AN_ERROR; d++) {
        if (t->dumps[d].status == AN_INCOMPLETE)
            continue; /* cut inside its header: nothing to read */
        int rc = AN_OK;
        if (dumps[d].reader == NULL)
            rc = an_dump_open(&dumps[d], paths[d], NULL, opt->ctx);
        if (rc == AN_OK)
            rc = histo_collect_dump(t, d, &dumps[d], opt);
        an_dump_close(&dumps[d]);
        if (rc != AN_OK)
            result = rc;
    }
    for (size_t d = 0; d < npaths; d++)
        an_dump_close(&dumps[d]);
    free(dumps);

    if (result != AN_ERROR)
        histo_table_finish(t, opt);
    return result;
}
