/* main.c -- heapfmt-ruby: dump the heap of a running Ruby process that
 * never loaded heapfmt.
 *
 * The process is read first (target.c: is it a 64-bit Ruby we may trace,
 * where are its functions), an extension built for its Ruby is found
 * (ext.c), two files are made for it to write (output.c), and a short
 * piece of Ruby is run in it at a VM safe point (request.c, inject.c):
 * a thread that loads the extension and calls HeapFmt.dump, which forks
 * and walks the heap in the child. This program waits for the answer,
 * checks the dump and gives it its name. man heapfmt-ruby is the manual. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_exit.h"
#include "cli_file.h"
#include "cli_msg.h"
#include "cli_num.h"
#include "cli_proc.h"
#include "cli_progress.h"
#include "cli_target.h"
#include "ext.h"
#include "heapfmt.h"
#include "inject.h"
#include "output.h"
#include "request.h"
#include "target.h"

static void usage(void)
{
    printf(
        "Usage: %s -p PID [OPTION]...\n"
        "Dump the Ruby heap of a running Ruby process that never loaded\n"
        "heapfmt: the extension is loaded into it and HeapFmt.dump runs\n"
        "there at a VM safe point, from a forked child.\n"
        "\n"
        "  -p, --pid=PID         the Ruby process\n"
        "  -o, --output=FILE     write the dump to FILE ('-': standard output;\n"
        "                        default heap-PID-TIME.hfd, named on stdout)\n"
        "      --no-fork         walk in the process itself (every thread\n"
        "                        waits for the whole dump)\n"
        "      --no-gc           no full GC before the dump\n"
        "      --no-labels       no names on references (instance variables,\n"
        "                        hash keys, constants, globals)\n"
        "      --codec=NAME      zstd (default), deflate or stored\n"
        "  -l, --level=N         compression level (zstd 0-19, deflate 0-9,\n"
        "                        default 1)\n"
        "      --ext=PATH        the heapfmt.so to load (default: found)\n"
        "  -t, --timeout=SECS    wait at most SECS for a safe point (default 10)\n"
        "  -v, --verbose         what was done and the pauses measured, on stderr\n"
        "  -h, --help            show this help and exit\n"
        "  -V, --version         show the version and exit\n"
        "\n"
        "Exit status: 0 success, 1 error (the process is left as it was),\n"
        "2 usage error. The manual: man heapfmt-ruby.\n",
        cli_progname());
}

enum { OPT_NO_FORK = 256, OPT_NO_GC, OPT_NO_LABELS, OPT_CODEC, OPT_EXT };

static const struct option long_options[] = {
    {"pid", required_argument, NULL, 'p'},
    {"output", required_argument, NULL, 'o'},
    {"no-fork", no_argument, NULL, OPT_NO_FORK},
    {"no-gc", no_argument, NULL, OPT_NO_GC},
    {"no-labels", no_argument, NULL, OPT_NO_LABELS},
    {"codec", required_argument, NULL, OPT_CODEC},
    {"level", required_argument, NULL, 'l'},
    {"ext", required_argument, NULL, OPT_EXT},
    {"timeout", required_argument, NULL, 't'},
    {"verbose", no_argument, NULL, 'v'},
    CLI_STANDARD_LONG_OPTIONS,
};

typedef struct options {
    pid_t pid;
    const char *output;
    const char *ext;
    unsigned timeout_ms;
    int verbose;
    request q;
} options;

static int parse(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->timeout_ms = 10000;
    o->q.fork = o->q.gc = o->q.labels = 1;
    o->q.level = -1;
    int c;
    uint64_t v;
    while ((c = cli_getopt(argc, argv, ":p:o:l:t:vhV", long_options)) != -1) {
        switch (c) {
        case 'p':
            if (cli_option_pid("--pid", optarg, &o->pid) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'o':
            if (cli_option_file("--output", optarg, &o->output) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_NO_FORK:
            o->q.fork = 0;
            break;
        case OPT_NO_GC:
            o->q.gc = 0;
            break;
        case OPT_NO_LABELS:
            o->q.labels = 0;
            break;
        case OPT_CODEC:
            if (strcmp(optarg, "zstd") != 0 && strcmp(optarg, "deflate") != 0 &&
                strcmp(optarg, "stored") != 0) {
                return cli_usage_error(
                    "--codec: '%s' is not zstd, deflate or stored", optarg);
            }
            o->q.codec = optarg;
            break;
        case 'l':
            if (cli_option_u64("--level", optarg, 0, 19, &v) != 0)
                return CLI_EXIT_USAGE;
            o->q.level = (int)v;
            break;
        case OPT_EXT:
            if (optarg[0] == '\0')
                return cli_usage_error("--ext: an empty path");
            o->ext = optarg;
            break;
        case 't':
            if (cli_option_attach_timeout(optarg, &o->timeout_ms) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'v':
            o->verbose = 1;
            break;
        default:
            return cli_standard_option(c, argv, usage);
        }
    }
    if (optind < argc)
        return cli_usage_error("unexpected argument '%s'", argv[optind]);
    if (o->pid == 0)
        return cli_usage_error("missing -p PID");
    if (o->q.codec != NULL && o->q.level > 0 &&
        ((strcmp(o->q.codec, "deflate") == 0 && o->q.level > 9) ||
         strcmp(o->q.codec, "stored") == 0)) {
        return cli_usage_error("--level %d is out of range for %s", o->q.level,
                               o->q.codec);
    }
    return CLI_GO_ON;
}

static void on_signal(int sig)
{
    (void)sig;
    inject_interrupted = 1;
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: waits end early */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

static int has_started(void *arg)
{
    const output *out = arg;
    uint64_t n;
    char msg[8];
    return request_status(out->status, &n, msg, sizeof msg) != STATUS_NONE;
}

/* Whether the thread that dumps (named heapfmt-ruby) is still there. */
static int dump_thread_alive(pid_t pid)
{
    pid_t tids[4096];
    size_t n = 0;
    if (cli_proc_threads(pid, tids, 4096, &n) != 0)
        return 0;
    if (n > 4096)
        return 1; /* too many to look through: assume so */
    for (size_t i = 0; i < n; i++) {
        char state, comm[32];
        if (cli_proc_state(pid, tids[i], &state, comm, sizeof comm) == 0 &&
            strcmp(comm, "heapfmt-ruby") == 0)
            return 1;
    }
    return 0;
}

/* Waits for "ok" or "error" in the status file. Returns 0 with the
 * objects, or 1 after printing the error. */
static int wait_result(const options *o, const output *out, const char *name,
                       uint64_t *objects)
{
    cli_progress prog;
    cli_progress_begin(&prog, name, 0);
    unsigned missing = 0;
    uint64_t next_check = cli_now_ns();
    for (;;) {
        char msg[1024];
        int st = request_status(out->status, objects, msg, sizeof msg);
        if (st == STATUS_OK) {
            cli_progress_end(&prog);
            return 0;
        }
        if (st == STATUS_ERROR) {
            cli_progress_end(&prog);
            cli_error(name, "the dump failed in the process: %s", msg);
            return 1;
        }
        char state;
        if (cli_proc_state(o->pid, 0, &state, NULL, 0) != 0 || state == 'Z') {
            cli_progress_end(&prog);
            cli_error(name, "the process exited during the dump");
            return 1;
        }
        if (inject_interrupted) {
            cli_progress_end(&prog);
            cli_error(name, "interrupted (the process finishes its dump into "
                            "a file that is removed)");
            return 1;
        }
        uint64_t now = cli_now_ns();
        if (now >= next_check) {
            /* Twice absent, half a second apart: the thread has ended
             * without writing its answer (killed by the program). */
            missing = dump_thread_alive(o->pid) ? 0 : missing + 1;
            if (missing >= 2 &&
                request_status(out->status, objects, msg, sizeof msg) < STATUS_OK) {
                cli_progress_end(&prog);
                cli_error(name, "the dumping thread ended without an answer");
                return 1;
            }
            next_check = now + 500000000ull;
        }
        struct stat sb;
        if (stat(out->tmp, &sb) == 0)
            cli_progress_tick(&prog, (uint64_t)sb.st_size, 0);
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
}

/* The dump is whole: its trailer and footer read. */
static int check_dump(const char *path, const char *name)
{
    heapfmt_reader *r = NULL;
    int rc = heapfmt_reader_open_path(&r, NULL, path);
    const heapfmt_footer *f;
    if (rc == HEAPFMT_OK)
        rc = heapfmt_reader_footer(r, &f);
    if (rc != HEAPFMT_OK) {
        cli_error(name, "the dump written is not complete: %s",
                  r ? heapfmt_reader_error(r)->message : heapfmt_strerror(rc));
        heapfmt_reader_free(r);
        return 1;
    }
    heapfmt_reader_free(r);
    return 0;
}

int main(int argc, char **argv)
{
    cli_set_progname("heapfmt-ruby");
    options o;
    int code = parse(argc, argv, &o);
    if (code != CLI_GO_ON)
        return code;
    char name[32];
    snprintf(name, sizeof name, "%ld", (long)o.pid);
    char deflt[64];
    int named_here = o.output == NULL;
    if (named_here) {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
        snprintf(deflt, sizeof deflt, "heap-%ld-%s.hfd", (long)o.pid, stamp);
        o.output = deflt;
    }
    /* standard output: a terminal is refused before the attach (output.c
     * makes and names a file itself: the target writes it) */
    cli_output tty_check;
    if (strcmp(o.output, "-") == 0 &&
        cli_output_open(&tty_check, "-", 1, NULL, 0) != 0) /* says why */
        return CLI_EXIT_ERROR;

    char err[PATH_MAX + 512];
    target t;
    if (target_probe(&t, o.pid, err, sizeof err) != 0) {
        cli_error(name, "%s", err);
        return CLI_EXIT_ERROR;
    }
    char ext[PATH_MAX];
    if (ext_find(&t, o.ext, ext, err, sizeof err) != 0) {
        cli_error(name, "%s", err);
        return CLI_EXIT_ERROR;
    }
    if (o.verbose)
        fprintf(stderr, "%s: %s: %s, Ruby %s, extension %s\n", cli_progname(),
                name, t.comm, t.ruby_version, ext);

    output out;
    if (output_prepare(&out, o.output, t.uid, t.gid) != 0)
        return CLI_EXIT_ERROR;
    catch_signals();
    o.q.ext = ext;
    o.q.output = out.tmp;
    o.q.status = out.status;
    static char codebuf[4 * PATH_MAX + 2048];
    if (request_code(&o.q, codebuf, sizeof codebuf) == 0) {
        cli_error(name, "paths too long");
        output_discard(&out);
        return CLI_EXIT_ERROR;
    }
    uint64_t t0 = cli_now_ns();
    inject_report rep;
    if (inject_ruby(&t, codebuf, o.timeout_ms, has_started, &out, &rep, err,
                    sizeof err) != 0) {
        cli_error(name, "%s", err);
        output_discard(&out);
        return CLI_EXIT_ERROR;
    }
    if (o.verbose)
        fprintf(stderr,
                "%s: %s: thread %ld (in %s%s) took the request; safe point "
                "after %.1f ms; longest stop of a thread %.0f us\n",
                cli_progname(), name, (long)rep.tid,
                rep.syscall < 0 ? "user space" : "a system call",
                rep.woken ? ", woken with SIGVTALRM" : "",
                (double)rep.wait_ns / 1e6, (double)rep.stop_ns / 1e3);
    uint64_t objects = 0;
    if (wait_result(&o, &out, name, &objects) != 0 ||
        check_dump(out.tmp, name) != 0) {
        output_discard(&out);
        return CLI_EXIT_ERROR;
    }
    struct stat sb;
    uint64_t bytes = stat(out.tmp, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    if (output_publish(&out) != 0) {
        output_discard(&out);
        return CLI_EXIT_ERROR;
    }
    if (o.verbose)
        fprintf(stderr, "%s: %s: %s objects, %s in %.2f s\n", cli_progname(),
                name, cli_fmt_count(objects).s, cli_fmt_bytes(bytes).s,
                (double)(cli_now_ns() - t0) / 1e9);
    if (named_here)
        printf("%s\n", o.output);
    return cli_finish_stdout(CLI_EXIT_OK);
}
