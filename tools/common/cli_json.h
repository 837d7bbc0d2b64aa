/* cli_json.h -- writing the report's data blob, a JSON document, value by
 * value: the commas between values are this file's business, not the
 * sections'. Strings are written by cli_escape.h (any bytes give valid
 * JSON). */
#ifndef CLI_JSON_H
#define CLI_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

typedef struct json {
    FILE *f;
    int depth;
    int after_key;                       /* the next value follows a key */
    unsigned char has[JSON_MAX_DEPTH];   /* the container has a value */
} json;

void json_init(json *j, FILE *f);

/* Containers: open with '{' or '[', close with the matching one. */
void json_open(json *j, char bracket);
void json_close(json *j, char bracket);

/* A key of the open object; the next call writes its value. */
void json_key(json *j, const char *key);

void json_str(json *j, const char *s, size_t len);
void json_cstr(json *j, const char *s);
void json_u64(json *j, uint64_t v);
/* A signed number as sign and magnitude (no overflow). */
void json_signed(json *j, int negative, uint64_t magnitude);
void json_bool(json *j, int v);
void json_null(json *j);

#endif /* CLI_JSON_H */
