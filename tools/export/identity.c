/* identity.c -- the identity of a dump: options first, then META. */
#include <string.h>

#include "cli_num.h"
#include "identity.h"

static void take_text(const heapfmt_reader *r, const char *key,
                      const char **s, size_t *len)
{
    const heapfmt_rmeta *m = r != NULL ? heapfmt_reader_meta_get(r, key)
                                       : NULL;
    if (m == NULL || m->type != HEAPFMT_META_TEXT)
        return;
    *s = m->text;
    *len = m->text_len;
}

/* An unsigned META value; a signed one when it is not negative. */
static void take_uint(const heapfmt_reader *r, const char *key,
                      uint64_t *v)
{
    const heapfmt_rmeta *m = r != NULL ? heapfmt_reader_meta_get(r, key)
                                       : NULL;
    if (m == NULL)
        return;
    if (m->type == HEAPFMT_META_UINT)
        *v = m->uint_value;
    else if (m->type == HEAPFMT_META_INT && m->int_value >= 0)
        *v = (uint64_t)m->int_value;
}

void ident_resolve(ident *id, const heapfmt_reader *r)
{
    if (!(id->given & IDENT_HOST)) {
        id->host = "";
        id->host_len = 0;
        take_text(r, "host", &id->host, &id->host_len);
    }
    if (!(id->given & IDENT_RELEASE)) {
        id->release = "";
        id->release_len = 0;
        take_text(r, "release", &id->release, &id->release_len);
    }
    if (!(id->given & IDENT_PID)) {
        id->pid = 0;
        take_uint(r, "pid", &id->pid);
    }
    if (!(id->given & IDENT_TIME)) {
        id->time = 0;
        take_uint(r, "time", &id->time);
    }
}

/* n decimal digits at s; -1 when one is not a digit. */
static long digits(const char *s, int n)
{
    long v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* Days from 1970-01-01 to a date of the proleptic Gregorian calendar
 * (years from 1970 on): whole years, then the months of this one. */
static uint64_t days_since_epoch(long y, long m, long d)
{
    static const int before[12] = {0,   31,  59,  90,  120, 151,
                                   181, 212, 243, 273, 304, 334};
    uint64_t days = 0;
    for (long k = 1970; k < y; k++)
        days += (k % 4 == 0 && (k % 100 != 0 || k % 400 == 0)) ? 366 : 365;
    days += (uint64_t)before[m - 1] + (uint64_t)(d - 1);
    if (m > 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
        days++;
    return days;
}

int ident_parse_time(const char *s, uint64_t *out)
{
    if (cli_parse_u64(s, out) == 0)
        return 0;
    /* YYYY-MM-DDTHH:MM:SS, 19 characters, and an optional Z */
    size_t n = strlen(s);
    if (n != 19 && !(n == 20 && s[19] == 'Z'))
        return -1;
    if (s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') ||
        s[13] != ':' || s[16] != ':')
        return -1;
    long y = digits(s, 4), mo = digits(s + 5, 2), d = digits(s + 8, 2);
    long h = digits(s + 11, 2), mi = digits(s + 14, 2), se = digits(s + 17, 2);
    static const int mdays[12] = {31, 29, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
        h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 60)
        return -1;
    if (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
        return -1;
    *out = days_since_epoch(y, mo, d) * 86400u + (uint64_t)h * 3600u +
           (uint64_t)mi * 60u + (uint64_t)se;
    return 0;
}
