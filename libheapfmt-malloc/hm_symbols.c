/* hm_symbols.c -- names and source lines for instruction addresses, at
 * dump time.
 *
 * The library and the offset in it come from the loader (dladdr1: the
 * object's path and load bias). The function and the source line come
 * from elfutils' libdwfl, which reads each object's symbol tables and
 * DWARF line tables (from the file itself, or from its separate debug
 * file found by build-id under /usr/lib/debug): reading .debug_line by
 * hand would be a DWARF decoder of our own, and libdwfl is what
 * eu-addr2line and perf use. Without debug information a frame keeps its
 * function name (from .symtab or .dynsym) and has no line.
 *
 * Runs on the dumping thread only: hm_busy is set, so libdwfl's
 * allocations go to the allocator untracked. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hm_symbols.h"

struct hm_symbolizer {
    Dwfl *dwfl;
    char exe[4096]; /* the main program's real path */
};

static char *debuginfo_path; /* libdwfl's default search path */

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

hm_symbolizer *hm_symbols_open(int files) {
    hm_symbolizer *s = hm_next.calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    ssize_t n = readlink("/proc/self/exe", s->exe, sizeof s->exe - 1);
    s->exe[n > 0 ? n : 0] = 0;
    if (!files)
        return s;
    /* The modules of this process as they are mapped now; a failure
     * leaves names to dladdr. */
    s->dwfl = dwfl_begin(&callbacks);
    if (s->dwfl != NULL &&
        (dwfl_linux_proc_report(s->dwfl, getpid()) != 0 ||
         dwfl_report_end(s->dwfl, NULL, NULL) != 0)) {
        dwfl_end(s->dwfl);
        s->dwfl = NULL;
    }
    return s;
}

void hm_symbols_close(hm_symbolizer *s) {
    if (s == NULL)
        return;
    if (s->dwfl != NULL)
        dwfl_end(s->dwfl);
    hm_next.free(s);
}

void hm_symbolize(hm_symbolizer *s, uintptr_t ip, hm_symbol *out) {
    memset(out, 0, sizeof *out);
    out->offset = ip;
    Dl_info di;
    struct link_map *lm = NULL;
    if (dladdr1((void *)ip, &di, (void **)&lm, RTLD_DL_LINKMAP) == 0)
        return;
    out->offset = ip - (lm ? lm->l_addr : (uintptr_t)di.dli_fbase);
    /* The main program's dli_fname is argv[0] as typed (maybe relative). */
    int main_program = lm == NULL || lm->l_name == NULL || lm->l_name[0] == 0;
    out->library = main_program && s && s->exe[0] ? s->exe
                   : di.dli_fname && di.dli_fname[0] ? di.dli_fname : NULL;
    out->function = di.dli_sname; /* exported: right, or a neighbour */
    Dwfl_Module *mod = s && s->dwfl ? dwfl_addrmodule(s->dwfl, ip - 1) : NULL;
    if (mod == NULL)
        return;
    /* A return address: the call is the instruction before it. */
    const char *name = dwfl_module_addrname(mod, ip - 1);
    if (name != NULL)
        out->function = name;
    else if (di.dli_sname != NULL && (uintptr_t)di.dli_saddr != ip)
        out->function = NULL; /* dladdr's is only the nearest export */
    Dwfl_Line *line = dwfl_module_getsrc(mod, ip - 1);
    int lineno = 0;
    const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (file != NULL && lineno > 0) {
        out->file = file;
        out->line = (unsigned)lineno;
    }
}
