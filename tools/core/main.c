/* main.c -- heapfmt-core: the native heap of a core file or a running
 * process as a heapfmt dump. The command line; the work is in core.c /
 * live.c (the image), modules.c (files and symbols), glibc.c (the
 * allocator), blockclass.c, roots.c, bindex.c and dump.c. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bindex.h"
#include "blockclass.h"
#include "cli_exit.h"
#include "cli_file.h"
#include "cli_msg.h"
#include "cli_num.h"
#include "cli_progress.h"
#include "cli_writer_opts.h"
#include "core.h"
#include "dump.h"
#include "glibc.h"
#include "jemalloc.h"
#include "heapfmt.h"
#include "live.h"
#include "modules.h"
#include "others.h"
#include "roots.h"

#define MAX_SEARCH 32

static void usage(void)
{
    printf(
        "Usage: %s [OPTION]... CORE\n"
        "  or:  %s [OPTION]... -p PID\n"
        "Write the native heap of a core file (gcore, or the kernel's) or of\n"
        "a running process as a heapfmt dump: every malloc'd block with its\n"
        "class (C++ vtables, else its size), the blocks it points to, and\n"
        "the roots (registers, stacks, static data). glibc malloc and\n"
        "jemalloc 5.3 are read; tcmalloc and mimalloc are told, not read\n"
        "yet.\n"
        "\n"
        "  -o, --output FILE     write to FILE; - for standard output, which\n"
        "                        must not be a terminal (default -)\n"
        "  -p, --pid PID         read the running process PID: stop it,\n"
        "                        copy its memory, let it go (the pause is\n"
        "                        printed)\n"
        "      --free FILE       list the free blocks (address, size, kind,\n"
        "                        arena) to FILE, - for standard output\n"
        "      --sysroot DIR     find the mapped files under DIR\n"
        "      --search DIR      also look for mapped files in DIR, by name\n"
        "                        (repeatable)\n"
        "      --debug-dir DIR   separate debug files (default\n"
        "                        /usr/lib/debug)\n"
        "      --no-debug-files  ignore separate debug files (libc6-dbg):\n"
        "                        find malloc's arenas by structure, as on a\n"
        "                        machine without them\n"
        "      --codec=CODEC     compress blocks with zstd (default),\n"
        "                        deflate, or store them uncompressed\n"
        "  -l, --level L         the codec's level (default 1)\n"
        "      --threads         compress on a worker thread while the\n"
        "                        next block is filled\n"
        "  -v, --verbose         print what was found to stderr\n"
        "  -h, --help            show this help and exit\n"
        "  -V, --version         show the version and exit\n"
        "\n"
        "Exit status: 0 success, 1 error (no output left), 2 usage error,\n"
        "3 the heap could not be read whole: truncated core, corrupt chunk,\n"
        "an allocator not read (the dump holds what was read, and says so).\n"
        "The manual: man heapfmt-core.\n",
        cli_progname(), cli_progname());
}

enum {
    OPT_FREE = 256,
    OPT_SYSROOT,
    OPT_SEARCH,
    OPT_DEBUG_DIR,
    OPT_NO_DEBUG,
    OPT_NO_SYMBOLS
};

static const struct option long_options[] = {
    {"pid", required_argument, NULL, 'p'},
    {"free", required_argument, NULL, OPT_FREE},
    {"sysroot", required_argument, NULL, OPT_SYSROOT},
    {"search", required_argument, NULL, OPT_SEARCH},
    {"debug-dir", required_argument, NULL, OPT_DEBUG_DIR},
    {"no-debug-files", no_argument, NULL, OPT_NO_DEBUG},
    {"no-symbols", no_argument, NULL, OPT_NO_SYMBOLS},
    CLI_WRITER_LONG_OPTIONS,
    {"verbose", no_argument, NULL, 'v'},
    CLI_STANDARD_LONG_OPTIONS,
};

typedef struct args {
    const char *core;
    const char *output;
    const char *free_list;
    pid_t pid;
    int verbose;
    int no_symbols;
    mod_options mod;
    const char *search[MAX_SEARCH];
    heapfmt_writer_options wopt;
} args;

/* CPU seconds of each phase, for -v (and the bench). */
enum { PH_IMAGE, PH_HEAP, PH_INDEX, PH_DUMP, PH_N };
static double phase_cpu[PH_N];
static double phase_mark;

static void phase_end(int ph)
{
    double now = cli_seconds(CLOCK_PROCESS_CPUTIME_ID);
    phase_cpu[ph] += now - phase_mark;
    phase_mark = now;
}

static int write_free_list(const char *path, const char *core,
                           const heap *h)
{
    /* whole or not at all, never over the core (cli_file.h) */
    cli_output o;
    if (cli_output_open(&o, path, 0, &core, core != NULL) != 0)
        return -1;
    FILE *f = o.fd == STDOUT_FILENO ? stdout : fdopen(o.fd, "w");
    if (f == NULL) {
        cli_error(path, "%s", strerror(errno));
        cli_output_discard(&o);
        return -1;
    }
    fprintf(f, "address\tsize\tkind\tarena\n");
    for (size_t i = 0; i < h->nfree; i++) {
        const hblock *b = &h->free[i];
        unsigned k = (unsigned)(b->addr & HB_FLAGS);
        fprintf(f, "0x%016llx\t%llu\t%s\t%u\n",
                (unsigned long long)(HB_ADDR(*b) - h->chunk_hdr),
                (unsigned long long)HF_SIZE(*b),
                k < 5 ? hfree_kind_names[k] : "?", HF_ARENA(*b));
    }
    int bad = fflush(f) != 0 || ferror(f);
    if (f != stdout) {
        bad |= fclose(f) != 0; /* the descriptor too: commit renames */
        o.file.fd = -1;
    }
    if (bad) {
        cli_error(path, "write error");
        cli_output_discard(&o);
        return -1;
    }
    return cli_output_commit(&o);
}

static void verbose_summary(const char *name, const image *im,
                            const modules *ms, const heap *h, size_t nfree,
                            const bindex *x, const dump_stats *st,
                            double secs)
{
    uint64_t used = st->used_bytes; /* h->used is given back by then */
    fprintf(stderr, "%s: %s: %s, arenas %s (%s), threads %zu, modules %zu "
                    "(debug files %zu, not found %zu)\n",
            cli_progname(), name, h->allocator, h->found_by[0] ? "found by" : "-",
            h->found_by, im->nthr, ms->n, ms->debug_files, ms->missing);
    fprintf(stderr, "%s: %s: used %s blocks (%s), free %s, mmapped %s, "
                    "references %s (%s interior), root references %s\n",
            cli_progname(), name, cli_fmt_count(h->nused).s,
            cli_fmt_bytes(used).s, cli_fmt_count(nfree).s,
            cli_fmt_count(h->mmapped).s, cli_fmt_count(st->refs).s,
            cli_fmt_count(st->interior).s, cli_fmt_count(st->root_refs).s);
    /* Memory beyond the mapped core (or the copy of a live process): the
     * peak resident set less the file pages resident at the end (the
     * core's, all touched by then) and the copy. */
    long hwm = proc_status(0, "VmHWM"), file = proc_status(0, "RssFile"),
         shm = proc_status(0, "RssShmem");
    uint64_t peak = hwm > 0 ? (uint64_t)hwm * 1024 : 0;
    uint64_t other = (uint64_t)(file > 0 ? file : 0) * 1024 +
                     (uint64_t)(shm > 0 ? shm : 0) * 1024 +
                     (im->live ? im->copied : 0);
    peak = peak > other ? peak - other : 0;
    fprintf(stderr, "%s: %s: CPU %.2f s: image and files %.2f, heap %.2f, "
                    "index and roots %.2f, dump %.2f\n",
            cli_progname(), name, cli_seconds(CLOCK_PROCESS_CPUTIME_ID),
            phase_cpu[PH_IMAGE], phase_cpu[PH_HEAP], phase_cpu[PH_INDEX],
            phase_cpu[PH_DUMP]);
    fprintf(stderr, "%s: %s: %.2f s; index %s; peak memory %s beyond the "
                    "%s (%.1f bytes a block)\n",
            cli_progname(), name, secs, cli_fmt_bytes(x->bytes).s,
            cli_fmt_bytes(peak).s,
            im->live ? "copy of the process" : "mapped core",
            h->nused ? (double)peak / h->nused : 0.0);
}

static int run(args *a)
{
    char err[512];
    char pidname[32];
    const char *name = a->core;
    image im;
    uint64_t pause_us = 0;
    double t0 = cli_seconds(CLOCK_MONOTONIC);
    if (a->pid > 0) {
        snprintf(pidname, sizeof pidname, "process %d", a->pid);
        name = pidname;
        if (live_open(&im, a->pid, &pause_us, err, sizeof err) != 0) {
            cli_error(name, "%s", err);
            img_free(&im);
            return CLI_EXIT_ERROR;
        }
        fprintf(stderr, "%s: %s: paused %.3f s to copy %s of its memory "
                        "(%zu thread%s)\n",
                cli_progname(), name, pause_us / 1e6,
                cli_fmt_bytes(im.copied).s, im.nthr, im.nthr == 1 ? "" : "s");
        if (a->verbose)
            fprintf(stderr, "%s: %s: the pause took %.3f s of CPU here (the "
                            "rest: waiting for a CPU, or for the threads to "
                            "stop)\n",
                    cli_progname(), name, im.pause_cpu_us / 1e6);
    } else if (core_open(&im, a->core, err, sizeof err) != 0) {
        cli_error(name, "%s", err);
        img_free(&im);
        return CLI_EXIT_ERROR;
    }
    int incomplete = 0;
    if (im.truncated) {
        if (im.missing > 0)
            cli_warn(name, "the core is truncated: %s of its mappings are "
                           "missing; what they held is not read",
                     cli_fmt_bytes(im.missing).s);
        if (im.notes_cut)
            cli_warn(name, "the core is truncated: its notes are cut off "
                           "(threads and registers unknown%s)",
                     im.nfiles > 0 ? "; the mapped files come from the "
                                     "dynamic linker's list" : "");
        incomplete = 1;
    } else if (im.missing > 0) {
        cli_warn(name, "%s of its memory could not be read",
                 cli_fmt_bytes(im.missing).s);
        incomplete = 1;
    }
    if (im.nthr == 0)
        cli_warn(name, "no threads: registers and stacks are not roots");
    a->mod.live_pid = a->pid;
    modules ms;
    heap h;
    heap_init(&h);
    bindex x;
    memset(&x, 0, sizeof x);
    classes cls;
    classes_init(&cls, &im, NULL);
    roots rs;
    memset(&rs, 0, sizeof rs);
    int code = CLI_EXIT_ERROR;
    cli_output out = {.fd = -1};
    heapfmt_writer *w = NULL;
    if (modules_load(&ms, &im, &a->mod, name) != 0) {
        cli_error(name, "out of memory");
        img_free(&im);
        return CLI_EXIT_ERROR;
    }
    cls.ms = &ms;
    const char *where = NULL;
    const char *other = other_allocator(&im, &ms, &where);
    glibc_options gopt = {a->no_symbols};
    phase_end(PH_IMAGE);
    /* A process that allocates with jemalloc (LD_PRELOAD, or linked):
     * its heap is jemalloc's; glibc's arenas are left unread. */
    const char *why = NULL;
    int found = 0;
    if (other != NULL && strcmp(other, "jemalloc") == 0) {
        found = jemalloc_read(&h, &im, &ms, &why);
        if (found == 1)
            other = NULL;
        else if (found == 0) {
            heap_free(&h);
            heap_init(&h);
        }
    }
    if (found == 0)
        found = glibc_read(&h, &im, &ms, &gopt);
    cls.internal = h.internal;
    phase_end(PH_HEAP);
    if (found < 0) {
        cli_error(name, "out of memory");
        goto out;
    }
    char allocator[160];
    const char *alloc_meta = NULL;
    const char *note = NULL;
    if (other != NULL && why != NULL) {
        cli_warn(name, "the process allocates with %s (%s), which heapfmt-core "
                       "could not read: %s; its blocks are missing%s",
                 other, where, why, found ? "; only glibc malloc's are written" : "");
    } else if (other != NULL) {
        cli_warn(name, "the process allocates with %s (%s), which heapfmt-core "
                       "does not read yet: its blocks are missing%s",
                 other, where, found ? "; only glibc malloc's are written" : "");
    }
    if (other != NULL) {
        snprintf(allocator, sizeof allocator, "%s (not read)%s%s", other,
                 found ? ", " : "", found ? h.allocator : "");
        alloc_meta = allocator;
        note = "the process's main allocator is not read yet: this dump "
               "lacks its blocks";
        incomplete = 1;
    } else if (!found) {
        if (im.truncated)
            cli_error(name, "no glibc malloc arena found in what the "
                            "truncated core holds (libc's data may be in "
                            "the part cut off)");
        else if (ms.libc < 0 && im.nfiles > 0)
            cli_error(name, "no glibc malloc arena found, and no libc among "
                            "its mapped files (a static program, or an "
                            "allocator heapfmt-core does not know)");
        else if (ms.libc < 0)
            cli_error(name, "no glibc malloc arena found, and the core names "
                            "no mapped files (no NT_FILE note)");
        else
            cli_error(name, "no glibc malloc arena found in %s's data: malloc "
                            "never ran, or this libc's layout is not one "
                            "heapfmt-core knows (2.23 to 2.36+)",
                      ms.m[ms.libc].path);
        goto out;
    }
    for (size_t i = 0; i < h.nproblems; i++) {
        if (i < HEAP_MAX_PROBLEMS)
            cli_warn(name, "%s", h.problems[i]);
        else {
            cli_warn(name, "%zu more problems", h.nproblems - i);
            break;
        }
    }
    if (!h.complete)
        incomplete = 1;
    if (bindex_build(&x, &h) != 0 || roots_find(&rs, &im, &ms, &h) != 0) {
        cli_error(name, "out of memory");
        goto out;
    }
    phase_end(PH_INDEX);
    if (rs.no_stack > 0) {
        cli_warn(name, "%u thread%s stack is not in the image: not a root",
                 rs.no_stack, rs.no_stack == 1 ? "'s" : "s'");
        incomplete = 1;
    }
    if (a->free_list != NULL &&
        write_free_list(a->free_list, a->core, &h) != 0)
        goto out;
    const char *out_name = cli_output_name(a->output);
    if (cli_output_open(&out, a->output, 1, &a->core, a->core != NULL) != 0)
        goto out;
    if (heapfmt_writer_open_fd(&w, &a->wopt, out.fd) != HEAPFMT_OK) {
        cli_error(out_name, "cannot start the dump: out of memory");
        goto out;
    }
    char source[600], host[256] = "";
    snprintf(source, sizeof source, "%s %s", a->pid > 0 ? "live" : "core",
             a->pid > 0 ? pidname + 8 : a->core);
    dump_info info = {.source = source,
                      .allocator = alloc_meta,
                      .note = note,
                      .live = a->pid > 0,
                      .pause_us = pause_us,
                      .copied = im.copied,
                      .complete = !incomplete};
    if (a->pid > 0) {
        info.time = (uint64_t)time(NULL);
        if (gethostname(host, sizeof host - 1) == 0)
            info.host = host;
    } else {
        struct stat st;
        if (stat(a->core, &st) == 0)
            info.time = (uint64_t)st.st_mtime;
    }
    dump_stats st = {.name = name};
    size_t nfree = h.nfree; /* dump_write releases the free list */
    int rc = cli_writer_finish(
        w, dump_write(w, &im, &ms, &h, &cls, &x, &rs, &info, &st), out_name);
    phase_end(PH_DUMP);
    if (rc != HEAPFMT_OK)
        goto out;
    if (st.truncated > 0) {
        cli_warn(name, "%s block%s more than %u references: cut",
                 cli_fmt_count(st.truncated).s, st.truncated == 1 ? " has" : "s have",
                 (unsigned)HEAPFMT_MAX_REFS);
    }
    if (a->verbose)
        verbose_summary(name, &im, &ms, &h, nfree, &x, &st,
                        cli_seconds(CLOCK_MONOTONIC) - t0);
    code = incomplete ? CLI_EXIT_INCOMPLETE : CLI_EXIT_OK;
out:
    heapfmt_writer_free(w);
    code = cli_output_end(&out, code);
    roots_free(&rs);
    classes_free(&cls);
    bindex_free(&x);
    heap_free(&h);
    modules_free(&ms);
    img_free(&im);
    return code;
}

int main(int argc, char **argv)
{
    cli_set_progname("heapfmt-core");
    args a;
    memset(&a, 0, sizeof a);
    a.mod.search = a.search;
    cli_writer_opts wo = CLI_WRITER_OPTS_INIT;
    int c;
    while ((c = cli_getopt(argc, argv, ":o:p:l:vhV", long_options)) != -1) {
        switch (c) {
        case 'p':
            if (cli_option_pid("--pid", optarg, &a.pid) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_FREE:
            if (cli_option_file("--free", optarg, &a.free_list) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_SYSROOT:
            a.mod.sysroot = optarg;
            break;
        case OPT_SEARCH:
            if (a.mod.nsearch == MAX_SEARCH)
                return cli_usage_error(
                    "too many --search directories (at most %d)", MAX_SEARCH);
            a.search[a.mod.nsearch++] = optarg;
            break;
        case OPT_DEBUG_DIR:
            a.mod.debug_dir = optarg;
            break;
        case OPT_NO_DEBUG:
            a.mod.no_debug = 1;
            break;
        case OPT_NO_SYMBOLS:
            a.no_symbols = 1;
            break;
        CLI_WRITER_OPTION_CASES:
            if (cli_writer_option(c, optarg, &wo) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'v':
            a.verbose = 1;
            break;
        default:
            return cli_standard_option(c, argv, usage);
        }
    }
    if (cli_writer_opts_finish(&wo) != 0)
        return CLI_EXIT_USAGE;
    a.wopt = wo.w;
    a.output = wo.output;
    int operands = argc - optind;
    if (a.pid > 0 ? operands != 0 : operands != 1)
        return cli_usage_error(a.pid > 0
                                   ? "-p takes no CORE operand"
                                   : "expected one CORE file (or -p PID)");
    if (a.pid == 0) {
        a.core = argv[optind];
        if (a.core[0] == '\0')
            return cli_usage_error("empty argument");
        if (strcmp(a.core, "-") == 0)
            return cli_usage_error(
                "a core is mapped, not streamed: give its path, "
                "not -");
        /* the outputs are opened after the heap is read: refuse the
         * core as one now, before that work */
        if (cli_output_check(a.output, &a.core, 1) != 0 ||
            (a.free_list != NULL &&
             cli_output_check(a.free_list, &a.core, 1) != 0))
            return CLI_EXIT_ERROR;
    }
    if (a.free_list != NULL && strcmp(a.free_list, a.output) == 0) {
        /* the dump would replace the list */
        return cli_usage_error("--free and -o name the same file");
    }
    if (a.free_list != NULL && strcmp(a.free_list, "-") == 0 &&
        strcmp(a.output, "-") == 0) {
        return cli_usage_error(
            "--free - and the dump cannot both go to standard "
            "output: give -o FILE");
    }
    return cli_finish_stdout(run(&a));
}
