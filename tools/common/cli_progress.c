/* cli_progress.c -- a throttled progress line on stderr, for terminals. */
#include <time.h>
#include <unistd.h>

#include "cli_msg.h"
#include "cli_num.h"
#include "cli_progress.h"

uint64_t cli_clock_ns(clockid_t clock)
{
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t cli_now_ns(void)
{
    return cli_clock_ns(CLOCK_MONOTONIC);
}

double cli_seconds(clockid_t clock)
{
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0)
        return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cli_progress_begin_at(cli_progress *p, FILE *out, const char *name,
                           uint64_t total, uint64_t now_ns)
{
    p->out = out;
    p->name = name;
    p->total = total;
    p->start_ns = now_ns;
    p->next_ns = now_ns + CLI_PROGRESS_DELAY_NS;
    p->shown = 0;
}

void cli_progress_begin(cli_progress *p, const char *name, uint64_t total)
{
    FILE *out = isatty(STDERR_FILENO) ? stderr : NULL;
    cli_progress_begin_at(p, out, name, total, out ? cli_now_ns() : 0);
}

void cli_progress_format(char *buf, size_t cap, const char *name,
                         uint64_t total, uint64_t done, uint64_t objects)
{
    if (total > 0) {
        unsigned pct = done >= total ? 100u
                                     : (unsigned)((double)done * 100.0 /
                                                  (double)total);
        snprintf(buf, cap, "%s: %u%% (%s of %s), %s objects", name, pct,
                 cli_fmt_bytes(done).s, cli_fmt_bytes(total).s,
                 cli_fmt_count(objects).s);
    } else {
        snprintf(buf, cap, "%s: %s read, %s objects", name,
                 cli_fmt_bytes(done).s, cli_fmt_count(objects).s);
    }
}

void cli_progress_tick_at(cli_progress *p, uint64_t done, uint64_t objects,
                          uint64_t now_ns)
{
    if (p->out == NULL || now_ns < p->next_ns)
        return;
    char line[512];
    cli_progress_format(line, sizeof line, p->name, p->total, done, objects);
    /* Clear what a longer earlier line left, then park the cursor at the
     * start of the line so that a warning overwrites it cleanly. */
    fprintf(p->out, "%s: %s\033[K\r", cli_progname(), line);
    fflush(p->out);
    p->shown = 1;
    p->next_ns = now_ns + CLI_PROGRESS_INTERVAL_NS;
}

void cli_progress_tick(cli_progress *p, uint64_t done, uint64_t objects)
{
    if (p->out != NULL)
        cli_progress_tick_at(p, done, objects, cli_now_ns());
}

void cli_progress_end(cli_progress *p)
{
    if (p->out != NULL && p->shown) {
        fputs("\r\033[K", p->out);
        fflush(p->out);
    }
    p->shown = 0;
    p->out = NULL;
}
