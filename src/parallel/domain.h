/* domain.h: the particles split among MPI ranks, as the schemes, the engine and the command see it;
 * on one rank (no mpirun, or a build without MPI) every call does nothing.
 *
 * The domain is cut into slabs along its longest non-periodic axis, at cell boundaries of the
 * neighbour grid; each rank owns the particles whose cell column lies in its slab. Where a scheme
 * builds the cells for its neighbour passes it calls domain_build_cells: particles that left the slab
 * move to their owner (every DOMAIN_BALANCE_EVERY steps, or when the counts drift apart, the cuts
 * move first so that each rank holds about as many particles), then each rank appends read-only
 * copies ("ghosts") of its neighbours' particles within one interaction radius of its slab (and a
 * wall model's reach beyond it). The scheme's neighbour passes then run as on one rank;
 * domain_refresh_halo sends the ghosts' fields again where a pass wrote what a later one reads on
 * the neighbours, and domain_drop_halo removes the ghosts before anything reduces or writes
 * (domain_drop_spent_halo after the step's integration, whose passes the ghosts may go through). Ghosts carry their id as -1 - id, which no pass reads, so they are known exactly whatever
 * the sort did with them. A system solved across ranks (semi-implicit MPS's pressure) has the owned
 * particles as its unknowns: domain_zero_ghosts takes the ghosts' rows out, domain_refresh_field
 * refreshes the vector of each product, domain_sum adds the dot products, and
 * domain_add_ghosts_to_owners returns what a preconditioner's overlapping block wrote into the
 * ghosts' rows. Snapshots, checkpoints and the viewer see the
 * whole state on the root rank (domain_gather); the probes, sampled often, only send each rank's
 * sums and maxima over its own particles (domain_max, domain_sum_to_root). */
#ifndef SLUICE_DOMAIN_H
#define SLUICE_DOMAIN_H

#include "core/sim.h"
#include "base/status.h"

#include <stddef.h>

/* ---- the run as a whole (the command) -------------------------------------------------------- */

/* Starts MPI when the process was launched by mpirun (its environment says so) and gives this
 * process's rank and the number of ranks; 0 and 1 otherwise, or in a build without MPI. */
void domain_start(int *argc, char ***argv, int *rank, int *size);

/* The number of ranks the run was started on (1 without mpirun or MPI); valid after domain_start. */
int domain_world_size(void);

/* The MPI this build runs on (for `sluice info`), or why it has none. */
const char *domain_mpi_library(void);

/* This rank's number among the ranks of its host (which GPU it takes) and how many ranks share the
 * host (how many cores each takes); 0 and 1 on one rank. */
void domain_host_ranks(int *rank, int *count);

/* Gives s a domain over the ranks started by domain_start (nothing on one rank). reach: how far
 * beyond the interaction radius the wall model's passes read (boundary_model.reach), m, which
 * widens the ghost bands. Fails with a message naming the scene key when the scene asks for what
 * several ranks do not run yet. The particles are not split yet: domain_distribute does that once
 * the state is final (a restart). */
int domain_attach(sim *s, double reach, sl_err *err);

/* Every rank's status after a phase that each rank runs alone (loading the scene): the worst
 * status of any rank, and *first_failed the lowest rank that failed (-1: none), so that one rank
 * prints the message. On one rank: rc and 0 or -1. */
int domain_agree_status(int rc, int *first_failed);

/* Prints msg with this rank's number and stops every rank with status rc (MPI_Abort): a rank that
 * failed while the others wait in a collective must not leave them hanging. Returns on one rank. */
void domain_abort(int rc, const char *msg);

/* One line on how the ranks share the domain and the particles (after domain_distribute), "" on
 * one rank. Collective: every rank calls it. */
void domain_describe(const sim *s, char *buf, size_t len);

/* Frees s's domain (before sim_free). */
void domain_detach(sim *s);

/* Ends MPI (after the last collective call). */
void domain_finish(void);

/* ---- the time loop (the engine) ----------------------------------------------------------------- */

/* The rank that writes files and prints: 1 on one rank. */
int domain_is_root(const sim *s);

/* Every rank holds the whole state (after creation or a restart); keeps only this rank's slab. */
int domain_distribute(sim *s, sl_err *err);

/* The smallest of every rank's time step (a NaN counts as 0, which the engine reports as an
 * instability on every rank alike). */
double domain_min_time_step(const sim *s, double dt);

/* The wall time of the step just taken, its time-step agreement included (the engine's): what the
 * balance by work compares, less the wait for the other ranks. */
void domain_note_step(sim *s, double seconds);

/* Whether any rank was asked to stop (SIGINT/SIGTERM reach the ranks at different steps). */
int domain_any(const sim *s, int flag);

/* Particles on every rank together. */
size_t domain_total_particles(const sim *s);

/* Collects every rank's particles into the root's s->p (ids unchanged, ranks one after another)
 * for output and checkpoints; the other ranks keep theirs. The host arrays are made current first
 * (domain_settle, then sim_sync_host; on one rank only the latter), so a caller reads s->p after.
 * fields: bit k gathers real field k (DOMAIN_GATHER_ALL every one, a checkpoint's; a snapshot needs
 * only what it writes), the others are zero on the root; ids, kinds and tags always come.
 * domain_ungather gives the root its own back. */
#define DOMAIN_GATHER_ALL 0xffffffffu
#define DOMAIN_GATHER_CORE ((1u << PF_CORE) - 1u) /* positions, velocities, density, pressure */
int domain_gather(sim *s, uint32_t fields, sl_err *err);
void domain_ungather(sim *s);

/* ---- the schemes' steps ------------------------------------------------------------------------- */

/* The neighbour grid with the halo: migration (and balancing when due), the ghosts of the
 * neighbouring slabs appended to s->p, then the backend's build_cells. On one rank: build_cells. */
int domain_build_cells(sim *s, sl_err *err);

/* The cells and ghosts of the last domain_build_cells kept for positions that have moved since (by
 * less than half the grid's skin, sim_params.cell_skin): the ghosts' fields sent again along the plan
 * (domain_refresh_halo), and the saved build counted. On one rank: nothing. */
int domain_reuse_cells(sim *s, sl_err *err);

/* Sets field `field` of the ghosts to value: what keeps them out of a minimum over every particle
 * here (the time step's) while they stay for a later pass. */
int domain_set_ghosts(sim *s, int field, real value, sl_err *err);

/* The ghosts' fields sent again by their owners, in place (no sort): before a neighbour pass that
 * reads what an earlier pass of the same step changed (explicit MPS: the collision's positions, the
 * pressure). Valid between domain_build_cells and domain_drop_halo. */
int domain_refresh_halo(sim *s, sl_err *err);

/* Sets the fields fields[0 .. n) (negative: none) of the ghosts to 0: what only the owner holds, so
 * that a sum over every particle here counts each particle once over all ranks (the floating bodies'
 * sums), or the rows of a system whose unknowns are the owners' (a zero diagonal makes a ghost's row
 * no unknown here). */
int domain_zero_ghosts(sim *s, const int *fields, int n, sl_err *err);

/* Removes the ghosts after the neighbour passes, keeping the particles' order and the neighbour
 * grid consistent (what the passes wrote stays with this rank's particles). */
int domain_drop_halo(sim *s, sl_err *err);

/* The same once the step's rates are spent (its integration done): the ghosts are parked (a NaN x)
 * and the next cell build's sort drops them, so no array is compacted now. The ghosts may stay
 * through the integration passes (each particle integrates alone) provided they are out of the
 * time step's minimum (domain_set_ghosts). Until that build the particles hold the parked ghosts:
 * whatever reads or counts them between steps (output, probes, the viewer) calls domain_settle
 * first, or counts domain_owned. */
int domain_drop_spent_halo(sim *s, sl_err *err);

/* The parked ghosts compacted away now (their transient fields left undefined): before the
 * particles are read between steps. Nothing to do without parked ghosts, or on one rank. */
int domain_settle(sim *s, sl_err *err);

/* This rank's own particles: s->p.n less the parked ghosts. */
size_t domain_owned(const sim *s);

/* ---- a system solved across ranks (the semi-implicit MPS pressure, solver/pcg.h) --------------- */

/* Field `field` of the ghosts sent again by their owners, in place: the vector of a matrix product
 * (every iteration of a solve). One value a ghost along the halo's plan, in one exchange, where
 * domain_refresh_halo sends every field. Valid between domain_build_cells and domain_drop_halo. */
int domain_refresh_field(sim *s, int field, sl_err *err);

/* Its transpose: field `field` of the ghosts added to their owners' values (a particle that is a
 * ghost on two ranks gets both, in rank order), in place; the ghosts keep theirs
 * (domain_zero_ghosts clears them). What a preconditioner whose blocks overlap by the ghost band
 * wrote into the ghosts' rows (solver/pcg.h). Valid between domain_build_cells and
 * domain_drop_halo. */
int domain_add_ghosts_to_owners(sim *s, int field, sl_err *err);

/* v[0 .. count) summed over every rank, in rank order, so that every rank holds the same totals to
 * the last bit and takes the same decisions from them (a solve's iterations). */
int domain_sum(sim *s, double *v, int count, sl_err *err);

/* ---- the multigrid's cell levels cut as the particles are (solver/multigrid.h, mg_ranks) ------- */

/* The neighbour grid's cell columns along the slab axis (*axis) that rank q owns, margins included:
 * [cut[q], cut[q + 1]), the first rank's from 0, the last's to the grid's end (cut: world size + 1
 * entries, or NULL); *rank this rank's number. Returns the number of ranks. */
int domain_cell_cuts(const sim *s, int *axis, int *rank, int *cut);

/* The columns of v (a cell level g's array in the backend's memory, per_cell values a cell; columns
 * along g->own_axis, rank q owning [bound[q], bound[q + 1])) that this rank reads of the others'
 * made current: those within `left` columns below its first and `right` above its last (every rank
 * calls it with the same arguments). Through host memory (backend.mg.columns) and MPI. */
int domain_cell_halo(sim *s, const mg_grid *g, const int *bound, real *v, int per_cell, int left, int right,
                     sl_err *err);

/* The columns of v (as in domain_cell_halo) that the other ranks own copied here from them: the
 * whole level on every rank (every rank calls it with the same arguments). */
int domain_cell_gather(sim *s, const mg_grid *g, const int *bound, real *v, int per_cell, sl_err *err);

/* ---- what every rank samples of its own particles (the probes, io/probes.c) --------------------- */

/* v[0 .. count) replaced by their largest over every rank, on every rank (exact, so every rank
 * holds the same bits and derives the same sizes from them). No NaN: which one wins would be the
 * MPI's choice. */
int domain_max(sim *s, double *v, int count, sl_err *err);

/* v[0 .. count) summed over every rank into the root's v (the others' v unchanged): one reduction
 * towards the root, its cost that of count values whatever the number of ranks, where domain_sum
 * gathers every rank's values on every rank. The order of the additions is the MPI's (fixed for a
 * number of ranks); a different number of ranks sums in another order and agrees to round-off. */
int domain_sum_to_root(sim *s, double *v, int count, sl_err *err);

#endif
