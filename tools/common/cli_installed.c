/* cli_installed.c -- the files a tool finds beside its own executable. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_installed.h"

int cli_installed_path(const char *env, const char *rel, char *out,
                       size_t len)
{
    const char *value = env != NULL ? getenv(env) : NULL;
    int n;
    if (len > 0)
        out[0] = '\0';
    if (value != NULL && value[0] != '\0') {
        n = snprintf(out, len, "%s", value);
    } else {
        char self[PATH_MAX];
        ssize_t got = readlink("/proc/self/exe", self, sizeof self - 1);
        if (got <= 0)
            return -1;
        self[got] = '\0';
        char *slash = strrchr(self, '/');
        if (slash == NULL) {
            errno = ENOENT;
            return -1;
        }
        *slash = '\0';
        n = snprintf(out, len, "%s/%s", self, rel);
    }
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}
