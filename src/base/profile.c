/* profile.c: accumulating phase times. */
#define _POSIX_C_SOURCE 200809L
#include "profile.h"

#include <string.h>
#include <time.h>

void profile_add(profile *p, const char *name, const char *detail, double seconds)
{
    for (int k = 0; k < p->nphases; ++k)
        if (strcmp(p->phase[k].name, name) == 0) {
            p->phase[k].seconds += seconds;
            p->phase[k].calls++;
            if (detail)
                p->phase[k].detail = detail;
            return;
        }
    if (p->nphases == PROFILE_MAX_PHASES)
        return;
    profile_phase *ph = &p->phase[p->nphases++];
    ph->name = name;
    ph->detail = detail;
    ph->seconds = seconds;
    ph->calls = 1;
}

void profile_reset(profile *p)
{
    p->nphases = 0;
}

double profile_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
