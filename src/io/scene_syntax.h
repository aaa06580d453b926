/* scene_syntax.h: checks the libconfig syntax of a scene text before libconfig parses it, and finds the
 * integer literals that libconfig 1.5 would silently wrap to 32 bits. */
#ifndef SLUICE_SCENE_SYNTAX_H
#define SLUICE_SCENE_SYNTAX_H

#include "base/status.h"

#include <stddef.h>

/* An integer literal (no L suffix) that does not fit in an int: libconfig 1.5 keeps only its low 32
 * bits, without an error, so the caller has to report it. */
typedef struct scene_int_overflow {
    int line;
    long long stored; /* the value libconfig stores: the low 32 bits, sign-extended */
    int claimed;      /* left 0 here: the caller marks the literals it matched to a setting */
    char tok[40];     /* the literal as written; a longer one is cut and ends in "..." */
} scene_int_overflow;

/* A growing array, in the order of the text. Start it zeroed; free(items) when done, whatever the
 * result of the check. */
typedef struct scene_int_overflows {
    scene_int_overflow *items;
    int count, cap;
} scene_int_overflows;

/* Tokenizes and parses `text` by libconfig 1.5's grammar (without @include) and appends to `ovf` its
 * integer literals that libconfig would wrap. Returns SL_OK; SL_ERR_INPUT for a syntax error, with its
 * line in *line and its message, without file name or line, in msg (of msg_size bytes; a quoted token
 * is copied as written, so the caller turns control characters into something printable); or
 * SL_ERR_RUNTIME when memory runs out (*line and msg untouched). */
int scene_syntax_check(const char *text, scene_int_overflows *ovf, int *line, char *msg, size_t msg_size);

#endif
