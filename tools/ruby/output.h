/* output.h -- heapfmt-ruby: the files the target writes, and the dump's
 * final name.
 *
 * The target writes its dump and its status into two files this program
 * creates beside the output (hidden names, mode 0600, given to the
 * target's user when that is another one), so that the target needs no
 * right to create files there and never creates any itself. The dump gets
 * its final name (or goes to standard output) only once it is complete;
 * on any failure both files are removed. */
#ifndef RUBY_OUTPUT_H
#define RUBY_OUTPUT_H

#include <limits.h>
#include <sys/types.h>

typedef struct output {
    const char *path;        /* as given: a file, or "-" */
    char final[PATH_MAX];    /* its absolute name ("" for "-") */
    char tmp[PATH_MAX];      /* the dump as it is written */
    char status[PATH_MAX];   /* the target's answers */
    int made_tmp, made_status;
    int chowned;             /* the files were given to another user */
} output;

/* Creates the two files for path, owned by uid:gid when this process is
 * not them. Returns 0, or 1 after printing the error. */
int output_prepare(output *o, const char *path, uid_t uid, gid_t gid);

/* Gives the complete dump its final name (or copies it to standard
 * output), this process's owner and the usual mode (0666 less umask).
 * Returns 0, or 1 after printing the error. */
int output_publish(output *o);

/* Removes whatever is left of the two files. */
void output_discard(output *o);

#endif /* RUBY_OUTPUT_H */
