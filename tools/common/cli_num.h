/* cli_num.h -- strict number parsing and human-friendly number formatting.
 *
 * Formatting functions return a small struct holding the text, so that
 * they need neither static buffers nor caller-managed storage:
 *     printf("%s objects\n", cli_fmt_count(n).s);
 * The text lives until the end of the full expression that produced it. */
#ifndef CLI_NUM_H
#define CLI_NUM_H

#include <stdint.h>
#include <sys/types.h>

typedef struct cli_num {
    char s[32];
} cli_num;

/* Parses a decimal unsigned 64-bit integer: one or more ASCII digits and
 * nothing else (no sign, spaces, suffix or base prefix). Returns 0 and
 * stores the value, or -1 with errno EINVAL (not a number) or ERANGE
 * (too large); *out is then unchanged. */
int cli_parse_u64(const char *s, uint64_t *out);

/* Parses the argument of option opt (e.g. "--objects") and checks it lies
 * in [min, max]. On failure prints a usage error naming the option and the
 * accepted range, and returns -1; the caller exits with CLI_EXIT_USAGE. */
int cli_option_u64(const char *opt, const char *arg, uint64_t min,
                   uint64_t max, uint64_t *out);

/* A process id as the argument of option opt (heapfmt-core -p,
 * heapfmt-ruby -p, heapfmt-malloc -p, --dump and --detach): 1 to
 * INT32_MAX, checked as cli_option_u64 checks it. Returns 0, or -1 after
 * the usage error. */
int cli_option_pid(const char *opt, const char *arg, pid_t *pid);

/* A byte size as an option's argument: digits, then optionally K, M, G
 * or T (also KiB, MiB, GiB, TiB; powers of 1024) or B. Returns 0, or -1
 * after a usage error naming the option. */
int cli_option_size(const char *opt, const char *arg, uint64_t *out);

/* 1234567 -> "1,234,567" */
cli_num cli_fmt_count(uint64_t v);

/* 1234567 -> "1234567" */
cli_num cli_fmt_plain(uint64_t v);

/* Bytes in binary units with one decimal: "512 B", "1.5 KiB", "16.3 MiB",
 * "2.0 GiB". */
cli_num cli_fmt_bytes(uint64_t v);

/* A duration given in microseconds, in the largest unit that keeps it at
 * 1 or more, with three significant digits: "850us", "12.5ms", "3.20s",
 * "4.10min", "2.00h", "3.50d" (below 1 ms, whole microseconds). */
cli_num cli_fmt_duration_us(uint64_t us);

#endif /* CLI_NUM_H */
