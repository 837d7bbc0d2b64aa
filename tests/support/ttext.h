/*
 * ttext.h -- output tests as case tables: capture what a printer writes to
 * a FILE *, split it into lines, and check it against a list of
 * expectations, each naming its case when it fails.
 */
#ifndef TTEXT_H
#define TTEXT_H

#include <stddef.h>
#include <stdio.h>

/* A FILE * writing to memory. */
typedef struct tcap {
    char *text;
    size_t len;
    FILE *f;
} tcap;

FILE *tcap_open(tcap *c);
/* Closes the stream; returns the text (malloc'd, NUL-terminated). */
char *tcap_close(tcap *c);

/* Splits text into lines in place (every line must end with a newline);
 * returns the count, at most max. */
size_t tlines(char *text, char **v, size_t max);
/* The number of fields of a line cut at sep. */
size_t tfields(const char *line, char sep);
/* The terminal column of p in line: UTF-8 continuation bytes take none. */
size_t tcolumn(const char *line, const char *p);

/* What a line (or the whole text) must be. */
enum texpect_how {
    TX_EQ = 1,   /* the line (line TX_WHOLE: the whole text) is text */
    TX_PREFIX,   /* the line starts with text */
    TX_HAS,      /* the line holds text (line TX_WHOLE: the whole text) */
    TX_RULE,     /* the line is dashes and spaces only */
    TX_ALIGNED,  /* text in the line starts at the column where `under`
                  * starts in the first line (the header) */
    TX_FIELDS    /* every line has `count` fields cut at `sep` */
};
#define TX_WHOLE (-1)

typedef struct texpect {
    int how;          /* 0 ends a list */
    int line;         /* 0-based, or TX_WHOLE with TX_EQ, HAS, PREFIX */
    const char *text;
    const char *under; /* TX_ALIGNED: the header's word */
    size_t count;      /* TX_FIELDS */
    char sep;          /* TX_FIELDS */
} texpect;

#define TX_LINE(i, s) {TX_EQ, (i), (s), NULL, 0, 0}
#define TX_TEXT(s) {TX_EQ, TX_WHOLE, (s), NULL, 0, 0}
#define TX_STARTS(i, s) {TX_PREFIX, (i), (s), NULL, 0, 0}
#define TX_CONTAINS(i, s) {TX_HAS, (i), (s), NULL, 0, 0}
#define TX_DASHES(i) {TX_RULE, (i), NULL, NULL, 0, 0}
#define TX_UNDER(i, s, head) {TX_ALIGNED, (i), (s), (head), 0, 0}
#define TX_NFIELDS(n, c) {TX_FIELDS, 0, NULL, NULL, (n), (c)}

/* Checks text: nlines lines (when nlines is not TX_ANY) and every
 * expectation of want (ended by a zero entry). Failures name the case. */
#define TX_ANY ((size_t)-1)
void texpect_check(const char *name, const char *text, size_t nlines,
                   const texpect *want);

/* The case a loop over a case table is in. A test declared with
 * `.fini = tcase_fini` names it when an assertion fails anywhere below,
 * helpers included: tcase_enter(name) before each case, tcase_leave()
 * after the loop. */
void tcase_enter(const char *name);
void tcase_leave(void);
void tcase_fini(void);

#endif
