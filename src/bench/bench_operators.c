/* bench_operators.c: `sluice bench --case operators`: the MPS gradient, the MPS Laplacian and the
 * first-order LSMPS gradient on a regular cubic lattice, each interaction strategy timed per pass,
 * next to the arithmetic and memory-traffic floors of each pass.
 *
 * The lattice: n^3 fluid particles at spacing l0 (n = 61: 226,981), p = 1 + 2x - y + z/2 + 3x^2
 * (x in units of the lattice's width), re = 3.1 l0 for all three operators, neighbour cells
 * 1.1 re / ndiv wide. The spherical domain uses the quadratic weight (1 - r/re)^2, the cubic one
 * the tensor-product weight (mps_weight.h). The operators are the passes PASS_MPS_OP_* of
 * mps_passes.h: the same pair functions as the schemes' passes.
 *
 * Floors. Flops are counted from the code (mps_operators.h, lsmps.h, mps_weight.h) as usual: an
 * add, subtract or multiply 1, a fused multiply-add 2, a division or square root 1, comparisons
 * and absolute values 0, so the floors are lower bounds (a CUDA division or square root takes
 * several instructions). Per candidate (every particle of the forward-star runs: admission, r_ij,
 * |r_ij|^2, the domain test) and per neighbour (the weight and the pair function); the per-particle
 * finish (a 3x3 Cholesky for LSMPS) is left out. Arithmetic floor = particles x flop per particle /
 * peak (H200: 67 Tflop/s FP32, 34 Tflop/s FP64, non-tensor; CPU: threads x 3 GHz x 2 flop/cycle,
 * scalar code). Memory floor = particles x the bytes that must cross HBM once (x, y, z, p, the
 * class and the cell index read, the outputs written; the neighbours' data are reused through the
 * caches) / 4.8 TB/s; for * the CPU backend at a nominal 20 GB/s. */
#define _POSIX_C_SOURCE 200809L
#include "bench_operators.h"
#include "bench_floors.h"
#include "bench_machine.h"

#include "core/backend.h"
#include "schemes/mps/mps.h"
#include "schemes/registry.h"
#include "base/scene.h"
#include "core/sim.h"
#include "run/sim_create.h"


#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_operators[] =
    "usage: sluice bench --case operators [--backend cpu|cuda|auto] [--lattice N] [--ndiv 1,2,3]\n"
    "                    [--domain spherical,cubic] [--reps N] [--threads N]\n"
    "\n"
    "Times the MPS gradient, the MPS Laplacian and the first-order LSMPS gradient on a regular\n"
    "N^3 lattice (re = 3.1 l0, neighbour cells 1.1 re / ndiv wide): every valid CUDA strategy (CUDA\n"
    "events, the median of --reps runs after 2 warm-ups) or the CPU loop, and prints per pass the\n"
    "time, the candidates and neighbours per particle, and the arithmetic and memory floors. The\n"
    "precision is the build's (-DSLUICE_DOUBLE=ON for double).\n"
    "  --lattice N   particles per axis, 3..300 (default 61: 226,981 particles)\n"
    "  --ndiv LIST   cell subdivisions, each 1..3 (default 1,2,3)\n"
    "  --domain LIST spherical, cubic or both (default spherical,cubic)\n"
    "  --reps N      timed runs per strategy, 1..64 (default 10)\n";

#define RE_FACTOR 3.1   /* re / l0 */
#define CELL_FACTOR 1.1 /* cell width (before ndiv) / re */
#define L0 0.01         /* m */

enum { OP_GRADIENT, OP_LAPLACIAN, OP_LSMPS, OP_COUNT };
enum { DOM_SPHERICAL, DOM_CUBIC, DOM_COUNT };

static const char *const op_name[OP_COUNT] = {"mps-gradient", "mps-laplacian", "lsmps-gradient"};
static const char *const dom_name[DOM_COUNT] = {"spherical", "cubic"};

/* Flops per candidate and per neighbour (the weight and the pair), [op][domain] (bench_floors.h). */
static const double flop_candidate[OP_COUNT][DOM_COUNT] = {{FLOP_CANDIDATE_SPHERE, FLOP_CANDIDATE_CUBE},
                                                           {FLOP_CANDIDATE_SPHERE, FLOP_CANDIDATE_CUBE},
                                                           {FLOP_CANDIDATE_SPHERE, FLOP_CANDIDATE_CUBE}};
static const double flop_neighbour[OP_COUNT][DOM_COUNT] = {
    {FLOP_WEIGHT_QUADRATIC + FLOP_MPS_GRADIENT, FLOP_WEIGHT_CUBIC + FLOP_MPS_GRADIENT},
    {FLOP_WEIGHT_QUADRATIC + FLOP_MPS_LAPLACIAN, FLOP_WEIGHT_CUBIC + FLOP_MPS_LAPLACIAN},
    {FLOP_WEIGHT_QUADRATIC + FLOP_LSMPS_GRADIENT, FLOP_WEIGHT_CUBIC + FLOP_LSMPS_GRADIENT}};
/* Reals written per particle: the gradient 3, the Laplacian 1, LSMPS 3 and the fallback count. */
static const int reals_out[OP_COUNT] = {3, 1, 4};

typedef struct op_options {
    const char *backend;
    int lattice;
    int ndiv[3], nndiv;
    int domain[DOM_COUNT], ndomain;
    int reps;
} op_options;

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "sluice bench --case operators: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see sluice bench --case operators --help)\n");
    return SL_ERR_INPUT;
}

static int parse_int(const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi)
        return 0;
    *out = x;
    return 1;
}

static int parse_ndiv(const char *list, op_options *o)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", list);
    o->nndiv = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        long v;
        if (!parse_int(tok, 1, 3, &v) || o->nndiv == 3)
            return 0;
        o->ndiv[o->nndiv++] = (int)v;
    }
    return o->nndiv > 0;
}

static int parse_domains(const char *list, op_options *o)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", list);
    o->ndomain = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int d = strcmp(tok, "spherical") == 0 ? DOM_SPHERICAL : strcmp(tok, "cubic") == 0 ? DOM_CUBIC : -1;
        if (d < 0 || o->ndomain == DOM_COUNT)
            return 0;
        o->domain[o->ndomain++] = d;
    }
    return o->ndomain > 0;
}

/* Returns SL_OK, -1 after --help, or SL_ERR_INPUT. */
static int parse_options(int argc, char **argv, op_options *o)
{
    memset(o, 0, sizeof *o);
    o->backend = "auto";
    o->lattice = 61;
    o->reps = 10;
    o->ndiv[0] = 1, o->ndiv[1] = 2, o->ndiv[2] = 3, o->nndiv = 3;
    o->domain[0] = DOM_SPHERICAL, o->domain[1] = DOM_CUBIC, o->ndomain = 2;
    for (int k = 2; k < argc; ++k) {
        const char *a = argv[k];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_operators, stdout);
            return -1;
        }
        if (k + 1 >= argc)
            return usage_error("option '%s' needs a value (or is unknown)", a);
        const char *v = argv[++k];
        long x;
        if (strcmp(a, "--case") == 0) {
            if (strcmp(v, "operators") != 0)
                return usage_error("--case '%s' is not 'operators'", v);
        } else if (strcmp(a, "--backend") == 0) {
            o->backend = v;
        } else if (strcmp(a, "--lattice") == 0) {
            if (!parse_int(v, 3, 300, &x))
                return usage_error("--lattice '%s' is not a whole number in 3..300", v);
            o->lattice = (int)x;
        } else if (strcmp(a, "--ndiv") == 0) {
            if (!parse_ndiv(v, o))
                return usage_error("--ndiv '%s' is not a list of up to 3 of 1, 2, 3", v);
        } else if (strcmp(a, "--domain") == 0) {
            if (!parse_domains(v, o))
                return usage_error("--domain '%s' is not a list of spherical, cubic", v);
        } else if (strcmp(a, "--reps") == 0) {
            if (!parse_int(v, 1, 64, &x))
                return usage_error("--reps '%s' is not a whole number in 1..64", v);
            o->reps = (int)x;
        } else if (strcmp(a, "--threads") == 0) {
            if (!parse_int(v, 1, 4096, &x))
                return usage_error("--threads '%s' is not a whole number in 1..4096", v);
            omp_set_num_threads((int)x);
        } else {
            return usage_error("unknown option '%s' (accepted: --backend, --lattice, --ndiv, --domain, --reps, "
                               "--threads)", a);
        }
    }
    return SL_OK;
}

/* The lattice as a semi-implicit MPS simulation; the grid's cells are r_max / ndiv wide with
 * r_max = max(re_density, re_laplacian), so the scene asks for re_laplacian = 1.1 re and the
 * Laplacian's kernel is then set back to re (the operators read the kernels from the parameters). */
static int make_lattice(const op_options *o, int domain, int ndiv, const backend *be, scene *sc, sim *s, sl_err *err)
{
    char text[1024];
    double w = o->lattice * L0;
    snprintf(text, sizeof text,
             "simulation = { method = \"mps\"; dimension = 3; end_time = 1.0; };\n"
             "fluid = { gravity = [0.0, 0.0, -9.81]; };\n"
             "numerics = { spacing = %g; ndiv = %d; };\n"
             "mps = { operators = \"mps\"; %s re_density = %g; re_laplacian = %g; lsmps_scale = 1.0; };\n"
             "geometry = ( { type = \"fluid\"; min = [0.0, 0.0, 0.0]; max = [%.9g, %.9g, %.9g]; } );\n",
             L0, ndiv, domain == DOM_CUBIC ? "domain = \"cubic\";" : "weight = \"quadratic\";", RE_FACTOR,
             RE_FACTOR * CELL_FACTOR, w, w, w);
    int rc = scene_load_string(sc, text, "bench case operators", err);
    if (rc)
        return rc;
    if ((rc = sim_create(s, sc, be, err))) {
        scene_free(sc);
        return rc;
    }
    mps_params *M = &s->P.mps;
    M->re_lap = M->re_n;
    M->n0_lap = M->n0_n;
    M->lambda0_lap = M->lambda0_n;
    sim_sync_host(s);
    real **f = s->p.f;
    for (size_t i = 0; i < s->p.n; ++i) {
        double x = f[PF_X][i] / w, y = f[PF_Y][i] / w, z = f[PF_Z][i] / w;
        f[PF_P][i] = (real)(1.0 + 2.0 * x - y + 0.5 * z + 3.0 * x * x);
    }
    if ((rc = sim_sync_device(s, err))) {
        sim_free(s);
        scene_free(sc);
    }
    return rc;
}

static const pass *op_pass(int op)
{
    return op == OP_GRADIENT ? &mps_op_gradient_pass : op == OP_LAPLACIAN ? &mps_op_laplacian_pass
                                                                           : &mps_op_lsmps_gradient_pass;
}

/* The fields an operator writes (save_outputs copies them from the host arrays, n each). */
static int op_outputs(const sim *s, int op, int fields[4])
{
    const int *slot = s->args.slot;
    if (op == OP_LAPLACIAN) {
        fields[0] = slot[MS_AX];
        return 1;
    }
    fields[0] = slot[MS_GX];
    fields[1] = slot[MS_GY];
    fields[2] = slot[MS_GZ];
    return 3;
}

static void save_outputs(sim *s, int op, real *out)
{
    int fields[4];
    int k = op_outputs(s, op, fields);
    size_t n = s->g.n_inside;
    sim_sync_host(s);
    for (int q = 0; q < k; ++q)
        memcpy(out + (size_t)q * n, s->p.f[fields[q]], n * sizeof(real));
}

/* The largest error of an operator's output against the exact derivative of p over the particles
 * farther than re from the lattice's faces (where the lattice is a full neighbourhood: there the
 * MPS and LSMPS operators are exact for this quadratic p, up to rounding), relative to the largest
 * exact value; -1 when no particle is that far inside. */
static double exact_error(const sim *s, int op, const real *out, int lattice)
{
    size_t n = s->g.n_inside;
    double w = lattice * L0, margin = (RE_FACTOR + 0.5) * L0;
    double scale = 0, worst = 0;
    for (size_t i = 0; i < n; ++i) {
        double x[3] = {s->p.f[PF_X][i], s->p.f[PF_Y][i], s->p.f[PF_Z][i]};
        int inside = 1;
        for (int a = 0; a < 3; ++a)
            inside &= x[a] > margin && x[a] < w - margin;
        if (!inside)
            continue;
        double X = x[0] / w;
        double exact[3] = {(2.0 + 6.0 * X) / w, -1.0 / w, 0.5 / w};
        int k = 3;
        if (op == OP_LAPLACIAN) {
            exact[0] = 6.0 / (w * w);
            k = 1;
        }
        for (int q = 0; q < k; ++q) {
            scale = fmax(scale, fabs(exact[q]));
            double d = fabs((double)out[(size_t)q * n + i] - exact[q]);
            worst = d > worst || d != d ? d : worst;
        }
    }
    return scale > 0 ? worst / scale : -1.0;
}

/* Largest difference of out from ref, relative to ref's largest magnitude. */
static double rel_difference(const sim *s, int op, const real *ref, const real *out)
{
    int fields[4];
    size_t m = (size_t)op_outputs(s, op, fields) * s->g.n_inside;
    double scale = 0, worst = 0;
    for (size_t i = 0; i < m; ++i) {
        scale = fmax(scale, fabs((double)ref[i]));
        double d = fabs((double)out[i] - (double)ref[i]);
        worst = d > worst || d != d ? d : worst;
    }
    return scale > 0 ? worst / scale : worst;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The CPU loop: the backend's OpenMP pass, median of reps after a warm-up. */
static double time_cpu(sim *s, int op, int reps)
{
    const pass *ps = op_pass(op);
    size_t n = s->g.n_inside;
    double t[64];
    s->be->run_pass(s, ps, n);
    for (int k = 0; k < reps; ++k) {
        double t0 = profile_now();
        s->be->run_pass(s, ps, n);
        t[k] = 1e3 * (profile_now() - t0);
    }
    qsort(t, (size_t)reps, sizeof t[0], compare_double);
    return reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
}

static void print_row(int op, int domain, int ndiv, const char *strategy, double ms, size_t n, double cand, double nbr,
                      const bench_machine *fl, double err, const char *check)
{
    double flop = cand * flop_candidate[op][domain] + nbr * flop_neighbour[op][domain];
    double bytes = (double)(4 + reals_out[op]) * sizeof(real) + 1 + 4;
    double flop_ms = 1e3 * (double)n * flop / fl->peak_flops;
    double mem_ms = 1e3 * (double)n * bytes / fl->bandwidth;
    double bound = flop_ms > mem_ms ? flop_ms : mem_ms;
    char e[32] = "-";
    if (err >= 0)
        snprintf(e, sizeof e, "%.1e", err);
    printf("%-15s %-9s %4d  %-11s %10.4f %9.3f %8.1f %7.1f %9.0f %10.4f %6.0f %9.4f %6.1f%%  %8s  %s\n",
           op_name[op], dom_name[domain], ndiv, strategy, ms, 1e6 * ms / (double)n, cand, nbr, flop, flop_ms, bytes,
           mem_ms, ms > 0 ? 100.0 * bound / ms : 0.0, e, check);
}

static int bench_lattice(const op_options *o, const backend *be, int domain, int ndiv, const bench_machine *fl, sl_err *err)
{
    scene sc;
    sim s;
    int rc = make_lattice(o, domain, ndiv, be, &sc, &s, err);
    if (rc)
        return rc;
    size_t n = s.g.n_inside;
    bench_work work; /* at re_n = re: the operators' radius */
    bench_count_work(&s, &work);
    double cand = work.candidates, nbr = work.neighbours[0];
    real *ref = malloc(3 * n * sizeof(real)), *out = malloc(3 * n * sizeof(real));
    if (!ref || !out) {
        free(ref);
        free(out);
        sim_free(&s);
        scene_free(&sc);
        return sl_fail(err, SL_ERR_RUNTIME, "out of memory");
    }
    for (int op = 0; op < OP_COUNT && rc == SL_OK; ++op) {
        const backend_bench_hooks *h = be->bench;
        if (h) {
            int first = 1;
            for (int k = 0; k < h->nstrategies; ++k) {
                int id = op_pass(op)->id;
                if (!h->strategy_valid(&s, id, k)) {
                    printf("%-15s %-9s %4d  %-11s (not valid: %s)\n", op_name[op], dom_name[domain], ndiv,
                           h->strategy_label(k), h->strategy_invalid_reason(k));
                    continue;
                }
                double ms;
                if ((rc = h->time_pass(&s, id, k, 2, o->reps, &ms, err)))
                    break;
                char check[64] = "(reference)";
                save_outputs(&s, op, out);
                if (first) {
                    memcpy(ref, out, 3 * n * sizeof(real));
                    first = 0;
                } else {
                    snprintf(check, sizeof check, "%.1e", rel_difference(&s, op, ref, out));
                }
                print_row(op, domain, ndiv, h->strategy_label(k), ms, n, cand, nbr, fl,
                          exact_error(&s, op, out, o->lattice), check);
            }
            continue;
        }
        double ms = time_cpu(&s, op, o->reps);
        save_outputs(&s, op, out);
        print_row(op, domain, ndiv, "openmp", ms, n, cand, nbr, fl, exact_error(&s, op, out, o->lattice), "-");
    }
    fflush(stdout);
    free(ref);
    free(out);
    sim_free(&s);
    scene_free(&sc);
    return rc;
}

int bench_operators_main(int argc, char **argv)
{
    op_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    sl_err err;
    const backend *be;
    if ((rc = backend_select(o.backend, &be, &err))) {
        fprintf(stderr, "sluice: %s\n", err.msg);
        return rc;
    }
    bench_machine fl = bench_machine_here(be == &backend_cpu, omp_get_max_threads());
    long n = (long)o.lattice * o.lattice * o.lattice;
    printf("MPS operators on a %d^3 lattice (%ld particles), l0 = %g m, re = %.1f l0, cells %.1f re / ndiv; %s; %s "
           "backend",
           o.lattice, n, L0, RE_FACTOR, CELL_FACTOR, REAL_NAME, be->name);
    if (be == &backend_cpu)
        printf(" (%d threads)", omp_get_max_threads());
    printf("\nfloors: arithmetic at %.3g flop/s (%s), memory at %.3g B/s (%s); median of %d runs\n",
           fl.peak_flops, fl.peak_name, fl.bandwidth, fl.memory_name, o.reps);
    printf("columns: median ms per pass and ns per particle; candidates, neighbours and flops per particle; the\n"
           "arithmetic floor (ms); bytes per particle and the memory floor (ms); the larger floor as a share of the\n"
           "time; the largest error against the exact derivative away from the faces; the largest difference\n"
           "to the first strategy's output (both relative to the largest value)\n");
    printf("%-15s %-9s %4s  %-11s %10s %9s %8s %7s %9s %10s %6s %9s %7s  %8s  %s\n", "operator", "domain", "ndiv",
           "strategy", "ms/pass", "ns/part", "cand/p", "nbr/p", "flop/p", "flop-floor", "B/p", "mem-floor",
           "of-floor", "error", "vs-first");
    for (int d = 0; d < o.ndomain; ++d)
        for (int k = 0; k < o.nndiv; ++k)
            if ((rc = bench_lattice(&o, be, o.domain[d], o.ndiv[k], &fl, &err))) {
                fprintf(stderr, "sluice: %s\n", err.msg);
                return rc;
            }
    return SL_OK;
}
