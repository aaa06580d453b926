/* profile.h: time spent per phase of a step (cell build, sort, each pass, CG), for `sluice bench`.
 * Off unless enabled: a backend that times a phase may have to wait for the device to do so. */
#ifndef SLUICE_PROFILE_H
#define SLUICE_PROFILE_H

enum { PROFILE_MAX_PHASES = 48 };

typedef struct profile_phase {
    const char *name;   /* a static string: "build.sort", "wcsph.forces", ... */
    const char *detail; /* static string or NULL: the strategy that ran, for instance */
    double seconds;
    long calls;
} profile_phase;

typedef struct profile {
    int enabled;
    int nphases;
    profile_phase phase[PROFILE_MAX_PHASES];
} profile;

/* Adds one call of `seconds` to the phase `name` (created on first use; ignored when full). */
void profile_add(profile *p, const char *name, const char *detail, double seconds);

/* Forgets the times (keeps enabled). */
void profile_reset(profile *p);

/* Monotonic wall clock in seconds. */
double profile_now(void);

#endif
