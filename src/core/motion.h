/* motion.h: the rigid bodies that carry moving wall particles: each body's law, and its transform at
 * the time the walls were last placed, on the host and where the passes read it. */
#ifndef SLUICE_MOTION_H
#define SLUICE_MOTION_H

#include "backend.h"
#include "base/scene.h"
#include "base/status.h"
#include "physics/rigid_motion.h"

struct sim;

typedef struct motion {
    int nbodies;
    const scene_motion **law; /* per body: its prescribed law (a scene item's `motion`) */
    int *item;                /* per body: the geometry item it came from */
    rigid_xform *xf;          /* per body: the transform at the last motion_eval */
    double (*centre)[3];      /* per body: the centre of its particles' reference box */
    double *radius;           /* per body: its farthest particle from that centre */
    backend_buffer dev;       /* xf where the passes read it (backend.upload) */
} motion;

/* s->motion for the scene's moving items (tanks and obstacles with a motion law); stays NULL when
 * nothing moves. */
int motion_create(struct sim *s, sl_err *err);

/* Every body's transform at time t into m->xf. */
void motion_eval_host(struct sim *s, double t);

/* motion_eval_host, then the transforms copied where the passes read them, s->args.motion.xf. */
int motion_eval(struct sim *s, double t, sl_err *err);

/* The fastest a body's particle moves at s->t (m/s; 0 without bodies): the speed of its centre
 * plus |w| times its radius. */
double motion_max_speed(const struct sim *s);

void motion_free(struct sim *s);

#endif
