/* hm_statm.h -- the resident memory of the calling process, from
 * /proc/self/statm, read with one open/read/close and no allocation: for
 * code that runs under an allocator it must not disturb (the tracker,
 * heapfmt-replay's child). */
#ifndef HM_STATM_H
#define HM_STATM_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* Resident bytes in *resident, of which file-backed (shared) in *shared.
 * Returns 0, or -1 when statm cannot be read. */
static inline int hm_statm(uint64_t *resident, uint64_t *shared) {
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[128];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    unsigned long size, res, shr;
    if (sscanf(buf, "%lu %lu %lu", &size, &res, &shr) != 3 || shr > res)
        return -1;
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    *resident = (uint64_t)res * page;
    *shared = (uint64_t)shr * page;
    return 0;
}

/* Resident anonymous bytes (resident less file-backed); 0 when unknown. */
static inline uint64_t hm_anon_resident(void) {
    uint64_t r, s;
    return hm_statm(&r, &s) == 0 ? r - s : 0;
}

#endif /* HM_STATM_H */
