/* fuzz_util.h: what the fuzz tests share: a deterministic PRNG (splitmix64: the same seed gives
 * the same mutants on every machine) and a fatal error for the harness itself (not a finding). */
#ifndef SLUICE_FUZZ_UTIL_H
#define SLUICE_FUZZ_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rng_state;

static inline uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The program's name in the harness's own errors (set by each fuzz test). */
static const char *fuzz_name = "fuzz";

static inline void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", fuzz_name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

/* malloc that ends the harness when memory runs out (n = 0 allowed). */
static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

#endif
