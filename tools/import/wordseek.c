/* wordseek.c -- whether a line holds a word, searched many lines at once. */
#include <string.h>

#include "wordseek.h"

void ws_init(wordseek *s, const char *word)
{
    memset(s, 0, sizeof *s);
    s->word = word;
    s->len = strlen(word);
}

void ws_pivot(wordseek *s, size_t i)
{
    s->pivot = i < s->len ? i : 0;
}

void ws_search(wordseek *s, const char *p, size_t n, uint64_t off)
{
    const char *end = p + n;
    size_t after = s->len - s->pivot; /* bytes from the pivot on */
    s->from = off;
    s->found = 0;
    const char *q = p + (n >= s->len ? s->pivot : 0); /* a pivot's place */
    while (n >= s->len && (size_t)(end - q) >= after) {
        q = memchr(q, s->word[s->pivot], (size_t)(end - q) - after + 1);
        if (!q)
            break;
        if (memcmp(q - s->pivot, s->word, s->len) == 0) {
            s->found = 1;
            s->at = off + (uint64_t)(q - s->pivot - p);
            return;
        }
        q++;
    }
    /* no occurrence starts where it would fit before the end */
    s->at = off + (n >= s->len ? n - s->len + 1 : 0);
}

size_t ws_first(wordseek *s, size_t count, const char *p, size_t n,
                uint64_t off)
{
    size_t first = n;
    for (size_t i = 0; i < count; i++)
        if (ws_in_line(&s[i], p, n, off, p + n) && s[i].at - off < first)
            first = (size_t)(s[i].at - off);
    return first;
}
