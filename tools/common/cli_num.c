/* cli_num.c -- strict number parsing and human-friendly number formatting. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli_msg.h"
#include "cli_num.h"

int cli_parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (s == NULL || *s == '\0') {
        errno = EINVAL;
        return -1;
    }
    for (const char *p = s; *p != '\0'; p++) {
        if (*p < '0' || *p > '9') {
            errno = EINVAL;
            return -1;
        }
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) {
            errno = ERANGE;
            return -1;
        }
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int cli_option_u64(const char *opt, const char *arg, uint64_t min,
                   uint64_t max, uint64_t *out)
{
    uint64_t v;
    if (cli_parse_u64(arg, &v) != 0 || v < min || v > max) {
        cli_usage_error("invalid %s value '%s': expected a whole number "
                        "from %" PRIu64 " to %" PRIu64,
                        opt, arg, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_option_pid(const char *opt, const char *arg, pid_t *pid)
{
    uint64_t v;
    if (cli_option_u64(opt, arg, 1, INT32_MAX, &v) != 0)
        return -1;
    *pid = (pid_t)v;
    return 0;
}

int cli_option_size(const char *opt, const char *arg, uint64_t *out)
{
    static const struct {
        const char *suffix;
        unsigned shift;
    } units[] = {{"", 0},    {"B", 0},    {"K", 10},  {"KiB", 10},
                 {"M", 20},  {"MiB", 20}, {"G", 30},  {"GiB", 30},
                 {"T", 40},  {"TiB", 40}, {"k", 10}};
    size_t digits = strspn(arg, "0123456789");
    char num[32];
    uint64_t v;
    if (digits > 0 && digits < sizeof num) {
        memcpy(num, arg, digits);
        num[digits] = '\0';
        if (cli_parse_u64(num, &v) == 0) {
            for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
                if (strcmp(arg + digits, units[i].suffix) != 0)
                    continue;
                if (units[i].shift > 0 && v > (UINT64_MAX >> units[i].shift))
                    break;
                *out = v << units[i].shift;
                return 0;
            }
        }
    }
    cli_usage_error("invalid %s value '%s': expected a size such as 4096, "
                    "64K or 10M",
                    opt, arg);
    return -1;
}

cli_num cli_fmt_plain(uint64_t v)
{
    cli_num n;
    snprintf(n.s, sizeof n.s, "%" PRIu64, v);
    return n;
}

cli_num cli_fmt_count(uint64_t v)
{
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%" PRIu64, v);
    cli_num n;
    char *o = n.s;
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            *o++ = ',';
        *o++ = digits[i];
    }
    *o = '\0';
    return n;
}

cli_num cli_fmt_bytes(uint64_t v)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB",
                                        "EiB"};
    cli_num n;
    if (v < 1024) {
        snprintf(n.s, sizeof n.s, "%" PRIu64 " B", v);
        return n;
    }
    double x = (double)v / 1024.0;
    size_t u = 0;
    /* Move up while the rounded value would print as 1024.0 or more. */
    while (x >= 1023.95 && u + 1 < sizeof units / sizeof units[0]) {
        x /= 1024.0;
        u++;
    }
    snprintf(n.s, sizeof n.s, "%.1f %s", x, units[u]);
    return n;
}

cli_num cli_fmt_duration_us(uint64_t us)
{
    static const struct {
        const char *unit;
        double us;
    } units[] = {{"d", 86400e6}, {"h", 3600e6}, {"min", 60e6}, {"s", 1e6},
                 {"ms", 1e3}};
    cli_num n;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        double x = (double)us / units[i].us;
        if (x < 1.0)
            continue;
        /* three significant digits */
        const char *f = x >= 100.0 ? "%.0f%s" : x >= 10.0 ? "%.1f%s" : "%.2f%s";
        snprintf(n.s, sizeof n.s, f, x, units[i].unit);
        return n;
    }
    snprintf(n.s, sizeof n.s, "%" PRIu64 "us", us);
    return n;
}
