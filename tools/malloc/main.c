/* main.c -- heapfmt-malloc: run a program under the malloc tracker, or
 * attach the tracker to a running one.
 *
 * The tracker is libheapfmt-malloc.so, preloaded; this launcher only turns
 * its options into the HEAPFMT_MALLOC_* variables the tracker reads, puts
 * the tracker first in LD_PRELOAD and executes the program, which keeps
 * this process's pid (so the dumps are named with the pid the user sees).
 * With -p, --dump or --detach it works on a running process instead
 * (attach.c), handing it the same settings. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attach.h"
#include "cli_exit.h"
#include "cli_installed.h"
#include "cli_msg.h"
#include "cli_num.h"
#include "cli_target.h"
#include "hm_settings.h"

static void usage(void)
{
    printf(
        "Usage: %s [OPTION]... [--] COMMAND [ARG]...\n"
        "  or:  %s -p PID [OPTION]...\n"
        "  or:  %s --dump=PID | --detach=PID\n"
        "Run COMMAND with its native heap tracked: every live malloc'd block\n"
        "with the call stack that made it, written as heapfmt dumps that\n"
        "histo, heapfmt-diff and the other tools read. Or track the running\n"
        "process PID from now on.\n"
        "\n"
        "  -p, --pid=PID         attach the tracker to the running process PID\n"
        "                        (ptrace): it tracks from now on, with the\n"
        "                        options below; dumps go to DIR (default:\n"
        "                        this directory)\n"
        "      --dump=PID        ask PID's tracker for a dump now (its signal,\n"
        "                        -S)\n"
        "      --detach=PID      stop tracking in PID and give its allocator\n"
        "                        back\n"
        "  -t, --timeout=SECS    -p, --detach: wait at most SECS for a thread\n"
        "                        of PID at a safe point (default 10)\n"
        "  -m, --mode=MODE       sampled (default: Poisson sampling by bytes,\n"
        "                        low overhead, sizes scaled to estimates) or\n"
        "                        exact (every allocation)\n"
        "  -s, --sample=BYTES    mean bytes between samples (default 524288)\n"
        "      --depth=N         frames kept per stack, 1-%d (default 32)\n"
        "  -d, --dir=DIR         write dumps into DIR (default: the directory\n"
        "                        it starts in), named PREFIX-PID-N.hfd\n"
        "      --prefix=NAME     dump name prefix (default heapfmt-malloc)\n"
        "  -S, --signal=SIG      dump when SIG arrives: USR1, USR2 or RTMIN+N\n"
        "                        (a name or number), or none (default RTMIN+7)\n"
        "  -i, --interval=SECS   also dump every SECS seconds\n"
        "      --no-exit-dump    no dump when the program exits\n"
        "      --no-ruby         do not attribute allocations to Ruby lines\n"
        "  -l, --level=N         zstd level of the dumps, 0-19 (default 1)\n"
        "  -r, --record          record every allocation call as a trace\n"
        "                        (PREFIX-PID-trace.hfd) for heapfmt-replay,\n"
        "                        instead of dumps\n"
        "      --mark-interval=MS  a trace's memory marks every MS ms,\n"
        "                        10-60000 (default 100)\n"
        "  -v, --verbose         one line on stderr per dump written\n"
        "  -h, --help            show this help and exit\n"
        "  -V, --version         show the version and exit\n"
        "\n"
        "Exit status: COMMAND's own; 2 for a usage error; 126 if COMMAND\n"
        "cannot be run, 127 if it is not found; 1 if the tracker is missing.\n"
        "With -p, --dump, --detach: 0, or 1 for an error (PID untouched).\n"
        "The manual: man heapfmt-malloc.\n",
        cli_progname(), cli_progname(), cli_progname(), HM_MAX_DEPTH);
}

enum { OPT_DEPTH = 256, OPT_NO_EXIT, OPT_NO_RUBY, OPT_MARK, OPT_PREFIX,
       OPT_DUMP, OPT_DETACH };

/* -p, --dump, --detach: what to do to which process. */
enum { RUN_COMMAND, RUN_ATTACH, RUN_DUMP, RUN_DETACH };
static struct {
    int what;
    pid_t pid;
    unsigned timeout_ms;
    int verbose;
} act = {RUN_COMMAND, 0, 10000, 0};

static const struct option long_options[] = {
    {"mode", required_argument, NULL, 'm'},
    {"sample", required_argument, NULL, 's'},
    {"depth", required_argument, NULL, OPT_DEPTH},
    {"dir", required_argument, NULL, 'd'},
    {"prefix", required_argument, NULL, OPT_PREFIX},
    {"pid", required_argument, NULL, 'p'},
    {"dump", required_argument, NULL, OPT_DUMP},
    {"detach", required_argument, NULL, OPT_DETACH},
    {"timeout", required_argument, NULL, 't'},
    {"signal", required_argument, NULL, 'S'},
    {"interval", required_argument, NULL, 'i'},
    {"no-exit-dump", no_argument, NULL, OPT_NO_EXIT},
    {"no-ruby", no_argument, NULL, OPT_NO_RUBY},
    {"level", required_argument, NULL, 'l'},
    {"record", no_argument, NULL, 'r'},
    {"mark-interval", required_argument, NULL, OPT_MARK},
    {"verbose", no_argument, NULL, 'v'},
    CLI_STANDARD_LONG_OPTIONS,
};

static int set(const char *var, const char *value)
{
    if (setenv(var, value, 1) != 0) {
        cli_error(NULL, "%s: %s", var, strerror(errno));
        return -1;
    }
    return 0;
}

static int set_u64(const char *opt, const char *var, const char *arg,
                   uint64_t min, uint64_t max)
{
    uint64_t v;
    if (cli_option_u64(opt, arg, min, max, &v) != 0)
        return -1;
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    return set(var, buf);
}

/* The tracker beside this program: BINDIR/../lib/libheapfmt-malloc.so, or
 * HEAPFMT_MALLOC_LIB when set. */
static int find_tracker(char *out, size_t len)
{
    if (cli_installed_path("HEAPFMT_MALLOC_LIB", "../lib/libheapfmt-malloc.so",
                           out, len) != 0)
        return -1;
    struct stat st;
    return stat(out, &st) == 0 ? 0 : -1;
}

/* Parses the options into the environment; returns CLI_GO_ON or an exit
 * code. */
static int parse(int argc, char **argv)
{
    int c;
    /* "+": options stop at the first non-option, COMMAND's own options
     * are COMMAND's. */
    while ((c = cli_getopt(argc, argv, "+:m:s:d:p:S:i:l:t:rvhV",
                           long_options)) != -1) {
        int bad = 0;
        switch (c) {
        case 'p':
        case OPT_DUMP:
        case OPT_DETACH: {
            int what = c == 'p' ? RUN_ATTACH : c == OPT_DUMP ? RUN_DUMP : RUN_DETACH;
            if (act.what != RUN_COMMAND && act.what != what)
                return cli_usage_error(
                    "-p, --dump and --detach go one at a time");
            if (cli_option_pid(c == 'p'          ? "--pid"
                               : c == OPT_DUMP ? "--dump"
                                               : "--detach",
                               optarg, &act.pid) != 0)
                return CLI_EXIT_USAGE;
            act.what = what;
            break;
        }
        case 't':
            if (cli_option_attach_timeout(optarg, &act.timeout_ms) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'm':
            if (strcmp(optarg, "exact") != 0 && strcmp(optarg, "sampled") != 0)
                return cli_usage_error("--mode: '%s' is not exact or sampled",
                                       optarg);
            bad = set("HEAPFMT_MALLOC_MODE", optarg);
            break;
        case 's':
            bad = set_u64("--sample", "HEAPFMT_MALLOC_SAMPLE", optarg, 1,
                          UINT64_C(1) << 40);
            break;
        case OPT_DEPTH:
            bad = set_u64("--depth", "HEAPFMT_MALLOC_DEPTH", optarg, 1, HM_MAX_DEPTH);
            break;
        case 'd': {
            struct stat st;
            if (stat(optarg, &st) != 0 || !S_ISDIR(st.st_mode))
                return cli_usage_error("--dir: '%s' is not a directory",
                                       optarg);
            char real[PATH_MAX];
            bad = set("HEAPFMT_MALLOC_DIR", realpath(optarg, real) ? real : optarg);
            break;
        }
        case OPT_PREFIX:
            if (optarg[0] == 0 || strchr(optarg, '/') != NULL ||
                strlen(optarg) >= 64)
                return cli_usage_error(
                    "--prefix: a file name of 1 to 63 bytes without '/'");
            bad = set("HEAPFMT_MALLOC_PREFIX", optarg);
            break;
        case 'S': {
            char why[160];
            if (hm_signal_explain(optarg, why, sizeof why) < 0)
                return cli_usage_error("--signal: %s", why);
            bad = set("HEAPFMT_MALLOC_SIGNAL", optarg);
            break;
        }
        case 'i':
            bad = set_u64("--interval", "HEAPFMT_MALLOC_INTERVAL", optarg, 0, 86400 * 365);
            break;
        case 'l':
            bad = set_u64("--level", "HEAPFMT_MALLOC_LEVEL", optarg, 0, 19);
            break;
        case 'r':
            bad = set("HEAPFMT_MALLOC_RECORD", "1");
            break;
        case OPT_MARK:
            bad = set_u64("--mark-interval", "HEAPFMT_MALLOC_MARK_MS", optarg, 10, 60000);
            break;
        case OPT_NO_EXIT:
            bad = set("HEAPFMT_MALLOC_AT_EXIT", "0");
            break;
        case OPT_NO_RUBY:
            bad = set("HEAPFMT_MALLOC_RUBY", "0");
            break;
        case 'v':
            bad = set("HEAPFMT_MALLOC_LOG", "1");
            act.verbose = 1;
            break;
        default: /* -h, -V, errors */
            return cli_standard_option(c, argv, usage);
        }
        if (bad)
            return CLI_EXIT_USAGE;
    }
    return CLI_GO_ON;
}

/* The settings the tracker reads, as NAME=VALUE lines, from this
 * process's environment (the options set it): what heapfmt_malloc_attach
 * takes (main sets the directory: this one unless --dir says otherwise). */
static char *settings(void)
{
    static const char *const vars[] = {
        "HEAPFMT_MALLOC_MODE",   "HEAPFMT_MALLOC_SAMPLE", "HEAPFMT_MALLOC_DEPTH",
        "HEAPFMT_MALLOC_DIR",    "HEAPFMT_MALLOC_PREFIX", "HEAPFMT_MALLOC_SIGNAL",
        "HEAPFMT_MALLOC_INTERVAL", "HEAPFMT_MALLOC_AT_EXIT", "HEAPFMT_MALLOC_RUBY",
        "HEAPFMT_MALLOC_LEVEL",  "HEAPFMT_MALLOC_LOG"};
    size_t len = 1;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]) != NULL)
            len += strlen(vars[i]) + strlen(getenv(vars[i])) + 2;
    char *s = malloc(len), *p = s;
    if (s == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && strchr(v, '\n') == NULL)
            p += sprintf(p, "%s=%s\n", vars[i], v);
    }
    *p = 0;
    return s;
}

/* -p, --dump, --detach. */
static int act_on_process(void)
{
    if (act.what == RUN_DUMP) {
        const char *sv = getenv("HEAPFMT_MALLOC_SIGNAL");
        int sig = sv ? hm_parse_signal(sv) : SIGRTMIN + HM_DEFAULT_SIGNAL_OFFSET;
        if (sig <= 0)
            return cli_usage_error("--dump needs a signal (-S)");
        return malloc_dump_request(act.pid, sig, act.verbose);
    }
    if (act.what == RUN_DETACH)
        return malloc_detach(act.pid, act.timeout_ms, act.verbose);
    char lib[PATH_MAX + 64], real[PATH_MAX];
    if (find_tracker(lib, sizeof lib) != 0 || realpath(lib, real) == NULL) {
        cli_error(lib, "the tracker library is missing (set HEAPFMT_MALLOC_LIB)");
        return CLI_EXIT_ERROR;
    }
    char *s = settings();
    if (s == NULL) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_ERROR;
    }
    int rc = malloc_attach(act.pid, real, s, act.timeout_ms, act.verbose);
    free(s);
    return rc;
}

int main(int argc, char **argv)
{
    cli_set_progname("heapfmt-malloc");
    /* The default directory is the one the launcher starts in, for the
     * program and every program it starts, whatever directories they
     * change to (-d replaces it). */
    char cwd[PATH_MAX];
    if (getenv("HEAPFMT_MALLOC_DIR") == NULL && getcwd(cwd, sizeof cwd) != NULL &&
        set("HEAPFMT_MALLOC_DIR", cwd) != 0)
        return CLI_EXIT_ERROR;
    int code = parse(argc, argv);
    if (code != CLI_GO_ON)
        return code;
    if (act.what != RUN_COMMAND) {
        if (optind < argc)
            return cli_usage_error("-p, --dump and --detach take no COMMAND");
        return act_on_process();
    }
    if (optind == argc)
        return cli_usage_error("missing COMMAND");
    char lib[PATH_MAX + 64];
    if (find_tracker(lib, sizeof lib) != 0) {
        cli_error(lib, "the tracker library is missing (set HEAPFMT_MALLOC_LIB)");
        return CLI_EXIT_ERROR;
    }
    /* The tracker first, so that its malloc is the one every library
     * binds to; an existing LD_PRELOAD follows it. */
    const char *old = getenv("LD_PRELOAD");
    size_t n = strlen(lib) + (old ? strlen(old) + 1 : 0) + 1;
    char *preload = malloc(n);
    if (preload == NULL) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_ERROR;
    }
    snprintf(preload, n, "%s%s%s", lib, old && old[0] ? ":" : "", old ? old : "");
    if (set("LD_PRELOAD", preload) != 0)
        return CLI_EXIT_ERROR;
    free(preload);
    execvp(argv[optind], argv + optind);
    int err = errno;
    cli_error(argv[optind], "%s", strerror(err));
    return err == ENOENT ? 127 : 126;
}
