/* scene_syntax.c: checks a scene text against libconfig 1.5's grammar before libconfig parses it.
 *
 * libconfig 1.5 leaks the text of a string token when a syntax error happens at it, and some of its
 * errors read only "syntax error". So the text is tokenized and parsed here first, by the same
 * grammar, and only text that parses goes to libconfig (which then reports the errors of its
 * parser actions: duplicate names, arrays of mixed types):
 *
 *   file    = setting* ;              setting = NAME ('=' | ':') value [';' | ','] ;
 *   value   = scalar | '[' [scalar {',' scalar}] ']' | '(' [value {',' value}] ')' | '{' setting* '}' ;
 *   scalar  = BOOL | INTEGER | FLOAT | STRING {STRING} ;
 *
 * The walk also rejects @include and records the integer literals libconfig would wrap.
 */
#include "scene_syntax.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYNTAX_DEPTH_MAX 64 /* nested groups, lists and arrays */


/* ---- integer literals libconfig 1.5 would wrap --------------------------------------------- */

static long long low32(unsigned long long u)
{
    unsigned long long w = u & 0xFFFFFFFFull;
    return w > 0x7FFFFFFFull ? (long long)w - 0x100000000LL : (long long)w;
}

static int record_overflow(scene_int_overflows *ovf, const char *tok, size_t len, int line, long long stored)
{
    if (ovf->count == ovf->cap) {
        int cap = ovf->cap ? 2 * ovf->cap : 8;
        scene_int_overflow *p = realloc(ovf->items, (size_t)cap * sizeof *p);
        if (!p)
            return SL_ERR_RUNTIME;
        ovf->items = p;
        ovf->cap = cap;
    }
    scene_int_overflow *r = &ovf->items[ovf->count++];
    r->line = line;
    r->stored = stored;
    r->claimed = 0;
    if (len < sizeof r->tok)
        snprintf(r->tok, sizeof r->tok, "%.*s", (int)len, tok);
    else
        snprintf(r->tok, sizeof r->tok, "%.*s...", (int)(sizeof r->tok - 4), tok);
    return SL_OK;
}

/* A number token [s, s+len): records it when it is an int literal (no L suffix) beyond 32 bits. */
static int check_int_token(scene_int_overflows *ovf, const char *s, size_t len, int line)
{
    const char *p = s, *end = s + len;
    int neg = 0;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if (p >= end || end[-1] == 'L')
        return SL_OK; /* an int64 literal (or junk for the parser to refuse) */
    int hex = end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    unsigned long long mag = 0;
    int sat = 0;
    if (hex) {
        if (neg)
            return SL_OK;
        for (p += 2; p < end; ++p) {
            if (!isxdigit((unsigned char)*p))
                return SL_OK;
            unsigned d = (unsigned)(isdigit((unsigned char)*p) ? *p - '0' : tolower((unsigned char)*p) - 'a' + 10);
            if (mag > (ULLONG_MAX - d) / 16)
                sat = 1;
            else
                mag = mag * 16 + d;
        }
        if (sat)
            mag = ULLONG_MAX; /* strtoul saturates */
        if (mag <= (unsigned long long)INT_MAX)
            return SL_OK;
        return record_overflow(ovf, s, len, line, low32(mag));
    }
    for (; p < end; ++p) {
        if (!isdigit((unsigned char)*p))
            return SL_OK; /* a real number */
        unsigned d = (unsigned)(*p - '0');
        if (mag > (ULLONG_MAX - d) / 10)
            sat = 1;
        else
            mag = mag * 10 + d;
    }
    long long v; /* as strtol would give it: saturated to 64 bits */
    if (neg)
        v = (sat || mag > (unsigned long long)LLONG_MAX + 1) ? LLONG_MIN
            : mag == (unsigned long long)LLONG_MAX + 1     ? LLONG_MIN
                                                           : -(long long)mag;
    else
        v = (sat || mag > (unsigned long long)LLONG_MAX) ? LLONG_MAX : (long long)mag;
    if (v >= INT_MIN && v <= INT_MAX)
        return SL_OK;
    return record_overflow(ovf, s, len, line, low32((unsigned long long)v));
}

/* ---- the lexer --------------------------------------------------------------------------- */

enum tok_kind { T_EOF, T_NAME, T_STRING, T_BOOL, T_NUMBER, T_PUNCT };

typedef struct token {
    enum tok_kind kind;
    const char *s;
    size_t len;
    int line;
} token;

typedef struct lexer {
    const char *p;
    int line;
    int depth;
    token t;                  /* the current token */
    scene_int_overflows *ovf; /* where wrapped integer literals go */
    int *err_line;            /* where a syntax error goes */
    char *msg;
    size_t msg_size;
} lexer;

/* A syntax error at `line`: its message for the caller; returns SL_ERR_INPUT. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int syntax_error(lexer *lx, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lx->msg, lx->msg_size, fmt, ap);
    va_end(ap);
    *lx->err_line = line;
    return SL_ERR_INPUT;
}

/* strncasecmp() is POSIX, not C11. */
static int strncasecmp_ascii(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        int d = tolower((unsigned char)a[i]) - tolower((unsigned char)b[i]);
        if (d || !a[i])
            return d;
    }
    return 0;
}

static int is_name_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '-' || ch == '_' || ch == '*';
}

static const char *skip_digits(const char *q)
{
    while (isdigit((unsigned char)*q))
        ++q;
    return q;
}

/* [eE][-+]?[0-9]+ at q: its end, or q when there is none. */
static const char *skip_exponent(const char *q)
{
    if (*q != 'e' && *q != 'E')
        return q;
    const char *r = q + 1;
    if (*r == '+' || *r == '-')
        ++r;
    return isdigit((unsigned char)*r) ? skip_digits(r) : q;
}

/* The longest number literal at p, as libconfig's scanner matches them: integers [-+]?[0-9]+ with
 * an optional L or LL, hex 0x... with an optional L or LL, reals with a '.' or an exponent.
 * *real: a real; *digits: it has a digit before any exponent. 0 when there is none. */
static size_t match_number(const char *p, int *real, int *digits)
{
    const char *s = (*p == '+' || *p == '-') ? p + 1 : p;
    size_t best = 0;
    *real = 0;
    *digits = 0;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
        const char *q = p + 2;
        while (isxdigit((unsigned char)*q))
            ++q;
        if (*q == 'L')
            q += q[1] == 'L' ? 2 : 1;
        best = (size_t)(q - p);
        *digits = 1;
    }
    const char *q = skip_digits(s);
    if (q > s) {
        if (*q == 'L')
            q += q[1] == 'L' ? 2 : 1;
        if ((size_t)(q - p) > best) {
            best = (size_t)(q - p);
            *digits = 1;
        }
    }
    q = skip_digits(s); /* [0-9]* '.' [0-9]* exponent? */
    if (*q == '.') {
        const char *int_end = q;
        const char *f = skip_digits(q + 1);
        int has = int_end > s || f > q + 1;
        f = skip_exponent(f);
        if ((size_t)(f - p) > best) {
            best = (size_t)(f - p);
            *real = 1;
            *digits = has;
        }
    }
    q = skip_digits(s); /* [0-9]+ ('.' [0-9]*)? exponent */
    if (q > s) {
        if (*q == '.')
            q = skip_digits(q + 1);
        const char *e = skip_exponent(q);
        if (e > q && (size_t)(e - p) > best) {
            best = (size_t)(e - p);
            *real = 1;
            *digits = 1;
        }
    }
    return best;
}

static void token_text(const token *t, char *buf, size_t n)
{
    switch (t->kind) {
    case T_EOF:
        snprintf(buf, n, "end of file");
        break;
    case T_NAME:
        snprintf(buf, n, "name '%.*s%s'", t->len > 40 ? 40 : (int)t->len, t->s, t->len > 40 ? "..." : "");
        break;
    case T_STRING:
        snprintf(buf, n, "string %.*s%s", t->len > 40 ? 40 : (int)t->len, t->s, t->len > 40 ? "...\"" : "");
        break;
    case T_BOOL:
        snprintf(buf, n, "boolean %.*s", (int)t->len, t->s);
        break;
    case T_NUMBER:
        snprintf(buf, n, "number %.*s%s", t->len > 40 ? 40 : (int)t->len, t->s, t->len > 40 ? "..." : "");
        break;
    case T_PUNCT:
        snprintf(buf, n, "'%c'", t->s[0]);
        break;
    }
}

static int lex_next(lexer *lx)
{
    const char *p = lx->p;
    for (;;) { /* white space and comments */
        if (*p == '\n') {
            ++lx->line;
            ++p;
        } else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f') {
            ++p;
        } else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
            while (*p && *p != '\n')
                ++p;
        } else if (p[0] == '/' && p[1] == '*') {
            int start = lx->line;
            for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); ++p)
                if (*p == '\n')
                    ++lx->line;
            if (!*p)
                return syntax_error(lx, start, "syntax error: the comment opened here by /* is never closed by */");
            p += 2;
        } else {
            break;
        }
    }
    token *t = &lx->t;
    t->s = p;
    t->line = lx->line;
    char ch = *p;
    int real, digits;
    size_t n;
    if (!ch) {
        t->kind = T_EOF;
        t->len = 0;
    } else if (ch == '"') {
        const char *q = p + 1;
        for (; *q && *q != '"'; ++q) {
            if (*q == '\\' && q[1])
                ++q;
            if (*q == '\n')
                ++lx->line;
        }
        if (!*q)
            return syntax_error(lx, t->line, "syntax error: the string opened here by '\"' is never closed");
        t->kind = T_STRING;
        t->len = (size_t)(q + 1 - p);
    } else if (ch == '@') {
        if (strncmp(p, "@include", 8) == 0)
            return syntax_error(lx, t->line,
                                "@include is not supported (accepted: a self-contained scene file; its text is "
                                "stored with every snapshot)");
        return syntax_error(lx, t->line, "syntax error: unexpected character '@'");
    } else if (isalpha((unsigned char)ch) || ch == '*') {
        const char *q = p + 1;
        while (is_name_char(*q))
            ++q;
        t->len = (size_t)(q - p);
        t->kind = ((t->len == 4 && strncasecmp_ascii(p, "true", 4) == 0) ||
                   (t->len == 5 && strncasecmp_ascii(p, "false", 5) == 0))
                      ? T_BOOL
                      : T_NAME;
    } else if ((n = match_number(p, &real, &digits)) > 0) {
        if (!digits)
            return syntax_error(lx, t->line,
                                "syntax error: '%.*s' is not a number (accepted: digits around the '.')", (int)n, p);
        t->kind = T_NUMBER;
        t->len = n;
        if (!real)
            SL_TRY(check_int_token(lx->ovf, p, n, t->line));
    } else if (strchr("=:;,{}()[]", ch)) {
        t->kind = T_PUNCT;
        t->len = 1;
    } else if ((unsigned char)ch < 0x20 || (unsigned char)ch >= 0x7f) {
        return syntax_error(lx, t->line, "syntax error: unexpected byte 0x%02x", (unsigned)(unsigned char)ch);
    } else {
        return syntax_error(lx, t->line, "syntax error: unexpected character '%c'", ch);
    }
    lx->p = p + t->len;
    return SL_OK;
}

/* ---- the parser: the grammar at the top of the file ---------------------------------------- */

static int is_punct(const token *t, char ch)
{
    return t->kind == T_PUNCT && t->s[0] == ch;
}

static int unexpected(lexer *lx, const char *expected)
{
    char what[96];
    token_text(&lx->t, what, sizeof what);
    return syntax_error(lx, lx->t.line, "syntax error: unexpected %s (expected %s)", what, expected);
}

/* The end of an aggregate opened on line `open` that lacks its closer. */
static int unclosed(lexer *lx, const char *what, char closer, int open)
{
    if (lx->t.kind == T_EOF)
        return syntax_error(lx, lx->t.line,
                            "syntax error: unexpected end of file (expected '%c' to close the %s opened on line %d)",
                            closer, what, open);
    char buf[96];
    snprintf(buf, sizeof buf, "',' or '%c' to close the %s opened on line %d", closer, what, open);
    return unexpected(lx, buf);
}

static int parse_value(lexer *lx);

/* Settings up to `closer` ('}') or the end of the file (closer 0). */
static int parse_settings(lexer *lx, char closer, int open)
{
    for (;;) {
        const token *t = &lx->t;
        if (closer ? is_punct(t, closer) : t->kind == T_EOF)
            return SL_OK;
        if (t->kind != T_NAME) {
            if (closer && t->kind == T_EOF)
                return unclosed(lx, "group", closer, open);
            return unexpected(lx, closer ? "a setting name or '}'" : "a setting name");
        }
        SL_TRY(lex_next(lx));
        if (!is_punct(t, '=') && !is_punct(t, ':'))
            return unexpected(lx, "'=' after the setting name");
        SL_TRY(lex_next(lx));
        SL_TRY(parse_value(lx));
        if (is_punct(t, ';') || is_punct(t, ','))
            SL_TRY(lex_next(lx));
    }
}

static int is_scalar(const token *t)
{
    return t->kind == T_BOOL || t->kind == T_NUMBER || t->kind == T_STRING;
}

static int parse_scalar(lexer *lx)
{
    int string = lx->t.kind == T_STRING;
    SL_TRY(lex_next(lx));
    while (string && lx->t.kind == T_STRING) /* "a" "b" is "ab" */
        SL_TRY(lex_next(lx));
    return SL_OK;
}

static int parse_value(lexer *lx)
{
    const token *t = &lx->t;
    if (is_scalar(t))
        return parse_scalar(lx);
    if (!is_punct(t, '[') && !is_punct(t, '(') && !is_punct(t, '{')) {
        if (t->kind == T_EOF)
            return syntax_error(lx, t->line, "syntax error: unexpected end of file (expected a value)");
        return unexpected(lx, "a value");
    }
    char open_ch = t->s[0];
    int open = t->line;
    if (++lx->depth > SYNTAX_DEPTH_MAX)
        return syntax_error(lx, t->line, "syntax error: more than %d nested groups, lists and arrays",
                            SYNTAX_DEPTH_MAX);
    SL_TRY(lex_next(lx));
    if (open_ch == '{') {
        SL_TRY(parse_settings(lx, '}', open));
    } else {
        char closer = open_ch == '[' ? ']' : ')';
        const char *what = open_ch == '[' ? "array" : "list";
        if (!is_punct(t, closer)) {
            for (;;) {
                if (open_ch == '[') {
                    if (!is_scalar(t)) {
                        if (t->kind == T_EOF)
                            return unclosed(lx, what, closer, open);
                        return unexpected(lx, "a number, string or boolean (an array holds only those; a list "
                                              "( ... ) holds anything)");
                    }
                    SL_TRY(parse_scalar(lx));
                } else {
                    if (t->kind == T_EOF)
                        return unclosed(lx, what, closer, open);
                    SL_TRY(parse_value(lx));
                }
                if (is_punct(t, closer))
                    break;
                if (!is_punct(t, ','))
                    return unclosed(lx, what, closer, open);
                SL_TRY(lex_next(lx));
            }
        }
    }
    SL_TRY(lex_next(lx)); /* the closer */
    --lx->depth;
    return SL_OK;
}

/* ---- the check --------------------------------------------------------------------------- */

int scene_syntax_check(const char *text, scene_int_overflows *ovf, int *line, char *msg, size_t msg_size)
{
    lexer lx = {.p = text, .line = 1, .ovf = ovf, .err_line = line, .msg = msg, .msg_size = msg_size};
    SL_TRY(lex_next(&lx));
    return parse_settings(&lx, 0, 0);
}
