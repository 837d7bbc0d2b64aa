/* cli_progress.h -- a throttled progress line on stderr, for terminals.
 *
 * Long reads show one line, redrawn in place:
 *     histo: big.dump: 42% (1.1 GiB of 2.6 GiB), 31,415,926 objects
 * It appears only when stderr is a terminal, only once the work has run
 * for a moment (short runs never show it), is redrawn at most a few times
 * a second, and is erased when the work ends, so nothing of it stays on
 * the screen or ever reaches a pipe or a log file.
 *
 * Callers count work cheaply and call cli_progress_tick() now and then
 * (say every 64Ki records); only it looks at the clock. */
#ifndef CLI_PROGRESS_H
#define CLI_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>

#define CLI_PROGRESS_DELAY_NS 500000000ull    /* quiet for the first 0.5 s */
#define CLI_PROGRESS_INTERVAL_NS 200000000ull /* then at most 5 redraws/s */

typedef struct cli_progress {
    FILE *out;         /* NULL: disabled */
    const char *name;  /* the file, for the line's prefix */
    uint64_t total;    /* bytes expected, 0 when unknown */
    uint64_t start_ns; /* when cli_progress_begin was called */
    uint64_t next_ns;  /* earliest time of the next redraw */
    int shown;         /* a line is on the screen */
} cli_progress;

/* Starts tracking the reading of name (total bytes, 0 if unknown). The
 * line goes to stderr if stderr is a terminal; otherwise the indicator
 * stays disabled and every other call does nothing. */
void cli_progress_begin(cli_progress *p, const char *name, uint64_t total);

/* The same with an explicit stream and start time (for tests): out NULL
 * disables the indicator. */
void cli_progress_begin_at(cli_progress *p, FILE *out, const char *name,
                           uint64_t total, uint64_t now_ns);

/* Reports done bytes and objects; redraws the line when it is due. */
void cli_progress_tick(cli_progress *p, uint64_t done, uint64_t objects);

/* The same at time now_ns (monotonic nanoseconds), for tests. */
void cli_progress_tick_at(cli_progress *p, uint64_t done, uint64_t objects,
                          uint64_t now_ns);

/* Erases the line if one was drawn. Call it before printing anything else
 * on stderr or stdout at the end of the work. */
void cli_progress_end(cli_progress *p);

/* Formats the text of the line (without the program name) into buf. */
void cli_progress_format(char *buf, size_t cap, const char *name,
                         uint64_t total, uint64_t done, uint64_t objects);

/* Monotonic clock in nanoseconds. */
uint64_t cli_now_ns(void);

/* The clocks tools time their work with, for -v and the bench:
 * CLOCK_MONOTONIC (wall) or CLOCK_PROCESS_CPUTIME_ID (CPU), in
 * nanoseconds or seconds; 0 when the clock cannot be read. */
uint64_t cli_clock_ns(clockid_t clock);
double cli_seconds(clockid_t clock);

#endif /* CLI_PROGRESS_H */
