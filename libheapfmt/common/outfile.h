/* outfile.h -- a file that appears under its name only once it is whole.
 *
 * The writer's heapfmt_writer_open_path, the tools' -o FILE
 * (tools/common/cli_file.h) and the Ruby gem's HeapFmt.dump(path) write
 * a regular file through a temporary one in the same directory, created
 * with O_EXCL, and rename it over the final name when the output is
 * complete. So a failed or killed writer never leaves a half-written file
 * under the final name, and two writers of one path never mix their bytes:
 * each writes its own file and the last rename wins, whole.
 *
 * What is not a regular file (a FIFO, /dev/null, /dev/stdout, a terminal)
 * cannot be renamed over and is written directly. A symbolic link is
 * followed: the temporary goes beside its target, which is replaced, and
 * the link stays. When no temporary can be made (a directory the user
 * cannot write, holding a file the user can), the final file is written
 * directly, as before.
 *
 * No allocation, no stdio, no signal, no global state: safe in a forked
 * child and inside another program (the malloc tracker). */
#ifndef HEAPFMT_OUTFILE_H
#define HEAPFMT_OUTFILE_H

#include <limits.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

typedef struct hf_outfile {
    int fd;              /* the descriptor to write, -1 when closed */
    int temp;            /* 1: fd is the temporary file, tmp its name */
    int created;         /* direct: the file did not exist before */
    char final[PATH_MAX];/* where the output goes (a link's target) */
    char tmp[PATH_MAX];  /* the temporary's name, when temp */
} hf_outfile;

/* Opens path for writing as above (mode 0666 less umask for a new file;
 * a file replaced keeps its permission bits). Returns 0, or -1 with errno
 * set (as open(2) of path would set it) and o->fd -1. */
int hf_outfile_open(hf_outfile *o, const char *path);

/* Closes the descriptor (if still open) and, for a temporary, renames it
 * over the final name. Returns 0, or -1 with errno set; the temporary is
 * then removed. */
int hf_outfile_commit(hf_outfile *o);

/* Gives up: closes the descriptor (if still open) and removes the
 * temporary. A file written directly is left as it is. Keeps errno. */
void hf_outfile_discard(hf_outfile *o);

/* Closes the descriptor only (before commit or discard, e.g. to check
 * close(2)'s late write errors). Returns 0, or -1 with errno set. */
int hf_outfile_close(hf_outfile *o);

#endif
