/* wordseek.h -- whether a line holds a word, searched many lines at once.
 *
 * The first pass asks of every line whether it holds "CLASS", "MODULE" or
 * "\u", and most lines hold none: a memchr per word and line cost more
 * than the line's own '\n' search. A seeker searches all the decoded
 * bytes ahead of the line instead, and remembers where the word comes
 * next (or how far it does not) for the lines after. Positions are
 * stream offsets, which stay valid while the reader moves its buffer. */
#ifndef WORDSEEK_H
#define WORDSEEK_H

#include <stddef.h>
#include <stdint.h>

typedef struct wordseek {
    const char *word;
    size_t len;
    size_t pivot;    /* the byte of the word searched for (ws_pivot) */
    int found;       /* the last search found the word at `at` */
    uint64_t from;   /* the last search started here */
    uint64_t at;     /* found: where; else: no occurrence starts in
                        [from, at) */
} wordseek;

/* A seeker of word (at least one byte), with nothing searched yet. */
void ws_init(wordseek *s, const char *word);

/* Makes the search look for the word's byte i (< its length) and then
 * compare the rest, instead of its first byte: the caller knows which
 * byte is rarest in its text. ("CLASS" and "MODULE" by their 'L': the
 * 'M' of every IMEMO line and the 'C' of OBJECT and STRUCT lines each
 * stopped a memchr, 3% of the import on a code-heavy heap.) */
void ws_pivot(wordseek *s, size_t i);

/* Searches the n bytes at p, at stream offset off, for the word. */
void ws_search(wordseek *s, const char *p, size_t n, uint64_t off);

/* Whether the line at p, n bytes at stream offset off, holds the word.
 * The bytes from p up to ahead are readable and are the stream's bytes
 * from off on (the line's end may be a NUL instead of its '\n'). Lines
 * must be asked about in stream order. Inline: most lines need no search,
 * and a call cost more than the test. */
static inline int ws_in_line(wordseek *s, const char *p, size_t n,
                             uint64_t off, const char *ahead)
{
    uint64_t last = off + n; /* an occurrence in the line ends by here */
    if (s->from > off || (s->found && s->at < off) ||
        (!s->found && s->at + s->len <= last))
        ws_search(s, p, (size_t)(ahead - p), off); /* stale, or not far */
    /* not found: nothing starts in [off, at), and at + len > last */
    return s->found && s->at + s->len <= last;
}

/* Where the first occurrence of any of the count words of s, that lies
 * wholly in the n bytes at p (stream offset off), starts: an offset from
 * p, or n when there is none. The same rules as ws_in_line: p is
 * readable up to p + n, and calls come in stream order. A reader that
 * only wants the lines holding a word skips every line before the one
 * this finds. */
size_t ws_first(wordseek *s, size_t count, const char *p, size_t n,
                uint64_t off);

#endif /* WORDSEEK_H */
