/* attach_plugin.c -- a module that attach_prog (plugin mode) loads with
 * dlopen after heapfmt-malloc -p has attached: its allocations are the
 * tracker's only if the modules loaded later are patched too.
 * plugin_leak keeps 500 blocks of 48 bytes; plugin_end frees them. */
#include <stdlib.h>
#include <string.h>

static void *volatile kept[500];

__attribute__((noinline)) void plugin_leak(int i)
{
    kept[i] = malloc(48);
    if (kept[i] != NULL)
        memset(kept[i], i, 48);
}

void plugin_run(void)
{
    for (int i = 0; i < 500; i++)
        plugin_leak(i);
}

void plugin_end(void)
{
    for (int i = 0; i < 500; i++)
        free(kept[i]);
}
