/* bodies.c: bodies.csv: one row per floating body and sample time: time, body, centre of mass,
 * orientation quaternion (w, x, y, z), velocity, angular velocity, and the fluid's and contacts'
 * force and torque (about the centre) at the last force evaluation of the step. */
#include "bodies.h"

#include "core/floating.h"
#include "core/sim.h"
#include "schedule.h"

#include <math.h>
#include <string.h>

int io_bodies_init(io_bodies *b, const scene *sc, const char *out_dir, int restart, sl_err *err)
{
    memset(b, 0, sizeof *b);
    snprintf(b->path, sizeof b->path, "%s/bodies.csv", out_dir);
    b->interval = sc->out_interval / 10.0;
    b->restart = restart;
    (void)err; /* opened at the first row: the engine makes the output folder */
    return SL_OK;
}

static int open_file(io_bodies *b, sl_err *err)
{
    b->f = fopen(b->path, b->restart ? "a" : "w");
    if (!b->f)
        return sl_fail(err, SL_ERR_RUNTIME, "cannot open '%s' for writing", b->path);
    if (!b->restart)
        fprintf(b->f, "time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,fx,fy,fz,tx,ty,tz\n");
    return SL_OK;
}

int io_bodies_after_step(void *ctx, sim *s, sl_err *err)
{
    io_bodies *b = ctx;
    const floating *fl = s->floating;
    if (!fl || !io_output_due(s->t, b->next_k, b->interval))
        return SL_OK;
    if (!b->f)
        SL_TRY(open_file(b, err));
    b->next_k = io_index_after(s->t, b->interval);
    for (int k = 0; k < fl->n; ++k) {
        const rigid_body_state *st = &fl->state[k];
        fprintf(b->f, "%.9g,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,"
                      "%.9g,%.9g,%.9g\n",
                s->t, k, st->x[0], st->x[1], st->x[2], st->q[0], st->q[1], st->q[2], st->q[3], st->v[0], st->v[1],
                st->v[2], st->w[0], st->w[1], st->w[2], fl->force[k][0], fl->force[k][1], fl->force[k][2],
                fl->torque[k][0], fl->torque[k][1], fl->torque[k][2]);
    }
    b->rows++;
    if (fflush(b->f))
        return sl_fail(err, SL_ERR_RUNTIME, "cannot write '%s'", b->path);
    return SL_OK;
}

void io_bodies_close(io_bodies *b)
{
    if (b->f)
        fclose(b->f);
    b->f = NULL;
}
