/* cli_msg.c -- program name and "prog: file: message" diagnostics. */
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli_exit.h"
#include "cli_file.h"
#include "cli_msg.h"
#include "heapfmt.h"

/* Process-wide state of a tool, set once in main: its name (and
 * warn_seen below). */
static const char *progname = "heapfmt";

void cli_set_progname(const char *name)
{
    if (name != NULL && *name != '\0') {
        const char *slash = strrchr(name, '/');
        progname = slash != NULL && slash[1] != '\0' ? slash + 1 : name;
    }
}

const char *cli_progname(void)
{
    return progname;
}

static void vreport(const char *file, const char *what, const char *fmt,
                    va_list ap)
{
    fflush(stdout); /* keep the order of interleaved output sensible */
    fprintf(stderr, "%s: ", progname);
    if (file != NULL)
        fprintf(stderr, "%s: ", file);
    if (what != NULL)
        fprintf(stderr, "%s: ", what);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(file, NULL, fmt, ap);
    va_end(ap);
}

/* cli_warn_once: the warnings printed so far, by hash (the first
 * WARN_SEEN_MAX; later ones are always printed). Set once in main, like
 * progname. */
#define WARN_SEEN_MAX 256
static struct {
    int on;
    size_t n;
    uint64_t hash[WARN_SEEN_MAX];
} warn_seen;

void cli_warn_once(void)
{
    warn_seen.on = 1;
}

/* Whether this warning was printed before; remembers it if not. */
static int warned_before(const char *file, const char *fmt, va_list ap)
{
    char text[1024];
    vsnprintf(text, sizeof text, fmt, ap);
    uint64_t h = 14695981039346656037u; /* FNV-1a over file, 0, text */
    const char *parts[2] = {file != NULL ? file : "", text};
    for (size_t p = 0; p < 2; p++)
        for (const char *c = parts[p];; c++) {
            h = (h ^ (unsigned char)*c) * 1099511628211u;
            if (*c == '\0')
                break;
        }
    for (size_t i = 0; i < warn_seen.n; i++)
        if (warn_seen.hash[i] == h)
            return 1;
    if (warn_seen.n < WARN_SEEN_MAX)
        warn_seen.hash[warn_seen.n++] = h;
    return 0;
}

/* A warning or a note, printed once under cli_warn_once. */
static void vwarn(const char *file, const char *kind, const char *fmt,
                  va_list ap)
{
    if (warn_seen.on) {
        va_list copy;
        va_copy(copy, ap);
        int again = warned_before(file, fmt, copy);
        va_end(copy);
        if (again)
            return;
    }
    vreport(file, kind, fmt, ap);
}

void cli_warn(const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vwarn(file, "warning", fmt, ap);
    va_end(ap);
}

void cli_verror(const char *file, const char *fmt, va_list ap)
{
    vreport(file, NULL, fmt, ap);
}

void cli_vwarn(const char *file, const char *fmt, va_list ap)
{
    vwarn(file, "warning", fmt, ap);
}

void cli_vnote(const char *file, const char *fmt, va_list ap)
{
    vwarn(file, "note", fmt, ap);
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(NULL, NULL, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help' for more information.\n", progname);
    return CLI_EXIT_USAGE;
}

int cli_option_file(const char *opt, const char *arg, const char **file)
{
    if (*arg == '\0') {
        cli_usage_error("%s: empty file name", opt);
        return -1;
    }
    *file = arg;
    return 0;
}

void cli_getopt_error(int c, char *const argv[])
{
    /* With opterr = 0, optopt holds the short option at fault, or 0 for a
     * long option, whose text is the argument just consumed. */
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    if (c == ':') {
        if (optopt != 0 && strncmp(arg, "--", 2) != 0)
            cli_usage_error("option requires an argument -- '%c'", optopt);
        else
            cli_usage_error("option '%s' requires an argument", arg);
    } else if (optopt != 0 && strncmp(arg, "--", 2) != 0) {
        cli_usage_error("invalid option -- '%c'", optopt);
    } else if (optopt != 0 && strchr(arg, '=') != NULL) {
        /* a known long option that takes no argument, given one */
        cli_usage_error("option '%.*s' doesn't allow an argument",
                        (int)(strchr(arg, '=') - arg), arg);
    } else {
        cli_usage_error("unrecognized option '%s'", arg);
    }
}

void cli_print_version(void)
{
    printf("%s %s (libheapfmt %s, format %d.%d)\n", progname,
           HEAPFMT_LIB_VERSION_STRING, heapfmt_version(), HEAPFMT_FORMAT_MAJOR,
           HEAPFMT_FORMAT_MINOR);
}

int cli_getopt(int argc, char *const argv[], const char *shortopts,
               const struct option *longopts)
{
    opterr = 0;
    return getopt_long(argc, argv, shortopts, longopts, NULL);
}

int cli_standard_option(int c, char *const argv[], void (*usage)(void))
{
    if (c == 'h' || c == 'V') {
        if (c == 'h')
            usage();
        else
            cli_print_version();
        return cli_finish_stdout(CLI_EXIT_OK);
    }
    cli_getopt_error(c, argv);
    return CLI_EXIT_USAGE;
}
