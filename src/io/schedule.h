/* schedule.h: outputs at a fixed interval (snapshots, probe rows, body rows) as the times k interval,
 * k = 0, 1, ...: which one follows a time, and whether one is due. The tolerances absorb the
 * rounding of t, a sum of steps, against k interval. */
#ifndef SLUICE_SCHEDULE_H
#define SLUICE_SCHEDULE_H

#include <math.h>

/* The index of the first output after time t. */
static inline long io_index_after(double t, double interval)
{
    return (long)floor(t / interval + 1e-9) + 1;
}

/* Whether output k is due at time t. */
static inline int io_output_due(double t, long k, double interval)
{
    return t >= k * interval * (1 - 1e-12);
}

#endif
