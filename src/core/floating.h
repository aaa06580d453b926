/* floating.h: floating bodies: rigid bodies the fluid moves (issue 24). Each is a body of the moving
 * walls' list (core/motion.h: the first `n` of it), whose transform comes from its state here instead
 * of a law; the scheme calls floating_forces (boundary/floating.c) after each force evaluation and floating_predict /
 * floating_correct beside its own integrator (physics/rigid_body.h). */
#ifndef SLUICE_FLOATING_H
#define SLUICE_FLOATING_H

#include "base/scene.h"
#include "base/status.h"
#include "physics/rigid_body.h"

struct sim;

typedef struct floating {
    int n;                    /* bodies: motion bodies [0, n) */
    rigid_body_props *props;
    rigid_body_state *state;  /* now (after floating_predict: at t + dt/2) */
    rigid_body_state *state0; /* at the start of the step */
    double (*force)[3];       /* the fluid's and the contacts' force at the last floating_forces */
    double (*torque)[3];      /* about the centre of mass, likewise (the MPS schemes: the step's sum
                               * of their terms' reactions, after floating_euler_correct) */
    double (*force_pre)[3];   /* the MPS schemes: the part the predictor took (the viscous term) */
    double (*torque_pre)[3];
    double *sums;             /* 6 per body: the backend's body_sums */
} floating;

/* How many of the scene's items float (before s->floating exists: a scheme's fields). */
int floating_count(const scene *sc);

/* The scene's floating items (in item order) into a new s->floating: mass, centre, inertia from the
 * filled lattice of each item's shape where the file gives none; the initial state. SL_OK with
 * s->floating NULL when there are none. Called by motion_create. */
int floating_create(struct sim *s, sl_err *err);

/* The mass properties of item `item` from its filled lattice (points at spacing dp, each a cell of
 * the body's density), before the file's mass, centre and inertia replace them; for tests. */
int floating_mass_properties(const struct sim *s, int item, rigid_body_props *out, sl_err *err);


/* The symplectic predictor (to t + dt/2) and corrector (to t + dt) of every body. */
void floating_predict(struct sim *s, double dt);
void floating_correct(struct sim *s, double dt);

/* The MPS schemes' semi-implicit Euler step of every body (physics/rigid_body.h), in the halves of
 * their fluid's: the predictor from the state at t^n with the force and torque now in s->floating
 * (the viscous term's reaction), which it keeps in force_pre; the corrector with those now there
 * (the collisions', the pressure's and the contacts'), after which force and torque hold the step's
 * whole fluid and contact force (bodies.csv). */
void floating_euler_predict(struct sim *s, double dt);
void floating_euler_correct(struct sim *s, double dt);

/* Body b's placement (b < n). */
void floating_xform(const struct sim *s, int b, rigid_xform *T);

void floating_free(struct sim *s);

#endif
