/* radix.c -- in-place radix sort of objects by id (American flag sort). */
#include "radix.h"

/* Below this many objects, insertion sort beats another radix pass. */
#define SMALL 48

static void insertion_sort(dobj *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        dobj x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1].id > x.id; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

static inline unsigned digit(uint64_t id, unsigned shift)
{
    return (unsigned)(id >> shift) & 0xffu;
}

/* Sorts v[0..n) whose ids agree on every byte above shift. */
static void flag_sort(dobj *v, size_t n, unsigned shift)
{
    for (;;) {
        if (n <= SMALL) {
            insertion_sort(v, n);
            return;
        }
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[digit(v[i].id, shift)]++;
        if (count[digit(v[0].id, shift)] == n) {
            /* One bucket: nothing to move at this byte. */
            if (shift == 0)
                return;
            shift -= 8;
            continue;
        }
        size_t head[256], tail[256], at = 0;
        for (unsigned b = 0; b < 256; b++) {
            head[b] = at;
            at += count[b];
            tail[b] = at;
        }
        /* Cycle each misplaced object to the head of its bucket. */
        for (unsigned b = 0; b < 256; b++) {
            while (head[b] < tail[b]) {
                dobj x = v[head[b]];
                unsigned d = digit(x.id, shift);
                while (d != b) {
                    dobj y = v[head[d]];
                    v[head[d]++] = x;
                    x = y;
                    d = digit(x.id, shift);
                }
                v[head[b]++] = x;
            }
        }
        if (shift == 0)
            return;
        at = 0;
        for (unsigned b = 0; b < 256; b++) {
            if (count[b] > 1)
                flag_sort(v + at, count[b], shift - 8);
            at += count[b];
        }
        return;
    }
}

void radix_sort(dobj *v, size_t n)
{
    if (n < 2)
        return;
    uint64_t differ = 0;
    for (size_t i = 1; i < n; i++)
        differ |= v[i].id ^ v[0].id;
    if (differ == 0)
        return;
    unsigned top = 63;
    while (!(differ >> top))
        top--;
    flag_sort(v, n, top / 8 * 8);
}
