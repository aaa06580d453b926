/* test_gpu_primitives.cu: the GPU primitives (scan, sort, gather, reduce, CG updates) against sequential host references.
 *
 * Exits 77 (ctest: skipped) without a CUDA device, 1 on any failure (every failure is printed),
 * 0 otherwise. `test_gpu_primitives --bench [n]` prints the primitives' benchmark table instead.
 * SLUICE_GPU_TEST_SMALL=1 (tools/gpu-check sanitize): the largest size is 300007 instead of 10^7
 * (the scans also take 1100003, which still needs the blocked scan's third level) and the sparse
 * sort 2^17+1 keys instead of 2^22+1: racecheck did not finish the full sizes in 120 s. */
#include "core/backend.h"
#include "core/cg_decide.h"
#include "gpu/gpu_bench.h"
#include "gpu/gpu_cg.h"
#include "gpu/gpu_gather.h"
#include "gpu/gpu_reduce.h"
#include "gpu/gpu_scan.h"
#include "gpu/gpu_sort.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <deque>
#include <vector>

namespace {

int failures = 0;
sl_err err;
gpu_scratch scratch = GPU_SCRATCH_INIT;

/* Records a failure and goes on, so one run shows every broken case. */
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
            ++failures;                                                    \
        }                                                                  \
    } while (0)

/* A primitive or CUDA call that must succeed: nothing after it makes sense otherwise. */
#define MUST(call)                                                                         \
    do {                                                                                   \
        if ((call) != SL_OK) {                                                             \
            fprintf(stderr, "FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call, err.msg);   \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)
#define CUDA_MUST(call)                                                                    \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                    cudaGetErrorString(e_));                                               \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* A device array of n elements (at least one allocated, so n = 0 still has a valid pointer). */
template <typename T>
struct dev {
    T *p = nullptr;
    size_t n = 0;
    explicit dev(size_t count) : n(count)
    {
        CUDA_MUST(cudaMalloc(&p, (count ? count : 1) * sizeof(T)));
        /* garbage, so that an entry a primitive forgets to write cannot match by luck */
        CUDA_MUST(cudaMemset(p, 0xa5, (count ? count : 1) * sizeof(T)));
    }
    dev(const std::vector<T> &h) : dev(h.size()) { put(h); }
    ~dev() { cudaFree(p); }
    dev(const dev &) = delete;
    dev &operator=(const dev &) = delete;
    void put(const std::vector<T> &h)
    {
        if (n)
            CUDA_MUST(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    }
    std::vector<T> get() const
    {
        std::vector<T> h(n);
        if (n)
            CUDA_MUST(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }
    void poison() { CUDA_MUST(cudaMemset(p, 0xa5, (n ? n : 1) * sizeof(T))); }
};

/* splitmix64: reproducible inputs without depending on the C library's rand(). */
struct rng {
    uint64_t s;
    explicit rng(uint64_t seed) : s(seed) {}
    uint64_t next()
    {
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    uint32_t below(uint32_t m) { return (uint32_t)(next() % m); }
    double uniform() { return (double)(next() >> 11) * (1.0 / 9007199254740992.0); } /* [0, 1) */
};

std::vector<size_t> SIZES = {0, 1, 2, 1000, 1023, 1024, 1025, 65537, 10000000};

/* Slots of a sort's order that break "a permutation of 0..n-1 whose keys are the sorted keys". */
size_t bad_slots(const std::vector<int32_t> &order, const std::vector<int32_t> &key,
                 const std::vector<int32_t> &sorted)
{
    size_t n = order.size(), bad = 0;
    std::vector<char> seen(n, 0);
    for (size_t s = 0; s < n; ++s) {
        int32_t i = order[s];
        if (i < 0 || (size_t)i >= n || seen[i] || key[i] != sorted[s])
            ++bad;
        else
            seen[i] = 1;
    }
    return bad;
}

/* Index of the first difference, or -1. */
template <typename T>
long long first_diff(const std::vector<T> &a, const std::vector<T> &b)
{
    if (a.size() != b.size())
        return 0;
    for (size_t i = 0; i < a.size(); ++i)
        if (memcmp(&a[i], &b[i], sizeof(T)) != 0)
            return (long long)i;
    return -1;
}

// ---- scans --------------------------------------------------------------------------------

const char *scan_name(gpu_scan_kind k)
{
    return k == GPU_SCAN_BLOCKED ? "blocked" : "cub";
}

void test_scans()
{
    rng r(1);
    std::vector<size_t> sizes = SIZES;
    if (sizes.back() < 1100003) /* small: more than 1024^2 elements, three levels of tile sums */
        sizes.push_back(1100003);
    for (gpu_scan_kind kind : {GPU_SCAN_BLOCKED, GPU_SCAN_CUB}) {
        for (size_t n : sizes) {
            /* values in [-20, 100]: sums up to 10^9 stay inside int32 at n = 10^7; negative
             * values check that nothing assumes counts */
            std::vector<int32_t> in(n), ref(n);
            for (auto &v : in)
                v = (int32_t)r.below(121) - 20;
            int64_t acc = 0;
            for (size_t i = 0; i < n; ++i) {
                ref[i] = (int32_t)acc;
                acc += in[i];
            }
            dev<int32_t> d_in(in), d_out(n);
            MUST(gpu_exclusive_scan_i32(d_in.p, d_out.p, n, kind, &scratch, &err));
            long long k = first_diff(d_out.get(), ref);
            CHECK(k < 0, "scan %s n=%zu out of place: first wrong index %lld", scan_name(kind), n, k);
            CHECK(first_diff(d_in.get(), in) < 0, "scan %s n=%zu changed its input", scan_name(kind), n);
            MUST(gpu_exclusive_scan_i32(d_in.p, d_in.p, n, kind, &scratch, &err));
            k = first_diff(d_in.get(), ref);
            CHECK(k < 0, "scan %s n=%zu in place: first wrong index %lld", scan_name(kind), n, k);
        }
        printf("scan %s: done\n", scan_name(kind));
    }
    /* limits are refused before any device work */
    CHECK(gpu_exclusive_scan_i32(NULL, NULL, (size_t)INT32_MAX + 1, GPU_SCAN_CUB, &scratch, &err) ==
              SL_ERR_INPUT,
          "scan of 2^31 elements not refused");
}

// ---- sorts --------------------------------------------------------------------------------

struct key_case {
    const char *name;
    size_t nkeys;
    int skew_key; /* -1: uniform; otherwise 90% of the keys are this one */
};

key_case KEY_CASES[] = {
    {"1 key", 1, -1},
    {"7 keys", 7, -1},
    {"1e5 keys", 100000, -1},
    {"1000 keys, 90% key 3", 1000, 3},
    {"1000 keys, 90% the last (sink)", 1000, 999},
    {"2^22+1 keys (sparse)", (1u << 22) + 1, -1},
};

struct host_sorted {
    std::vector<int32_t> order, keys, start;
};

/* The CPU neighbour grid's stable counting sort (nbr_grid_build). */
host_sorted host_sort(const std::vector<int32_t> &key, size_t nkeys)
{
    host_sorted h;
    size_t n = key.size();
    h.start.assign(nkeys + 1, 0);
    for (int32_t k : key)
        h.start[k]++;
    int32_t sum = 0;
    for (size_t c = 0; c <= nkeys; ++c) {
        int32_t cnt = h.start[c];
        h.start[c] = sum;
        sum += cnt;
    }
    std::vector<int32_t> cursor(h.start.begin(), h.start.end() - 1);
    h.order.resize(n);
    h.keys.resize(n);
    for (size_t i = 0; i < n; ++i) {
        int32_t slot = cursor[key[i]]++;
        h.order[slot] = (int32_t)i;
        h.keys[slot] = key[i];
    }
    return h;
}

struct sort_variant {
    const char *name;
    gpu_sort_kind kind;
    gpu_scan_kind scan;
};

const sort_variant SORTS[] = {
    {"counting+blocked", GPU_SORT_COUNTING, GPU_SCAN_BLOCKED},
    {"counting+cub", GPU_SORT_COUNTING, GPU_SCAN_CUB},
    {"radix", GPU_SORT_RADIX, GPU_SCAN_CUB},
};

void test_sorts()
{
    rng r(2);
    for (const key_case &kc : KEY_CASES) {
        for (size_t n : SIZES) {
            std::vector<int32_t> key(n);
            for (auto &k : key)
                k = kc.skew_key >= 0 && r.below(10) < 9 ? kc.skew_key : (int32_t)r.below((uint32_t)kc.nkeys);
            host_sorted ref = host_sort(key, kc.nkeys);
            dev<int32_t> d_key(key), d_order(n), d_sorted(n), d_start(kc.nkeys + 1);
            for (const sort_variant &v : SORTS) {
                d_order.poison();
                d_sorted.poison();
                d_start.poison();
                MUST(gpu_sort_keys(d_key.p, n, kc.nkeys, v.kind, v.scan, d_order.p, d_sorted.p, d_start.p,
                                   &scratch, &err));
                std::vector<int32_t> order = d_order.get(), sorted = d_sorted.get(), start = d_start.get();
                long long k = first_diff(start, ref.start);
                CHECK(k < 0, "sort %s, %s, n=%zu: start[%lld] = %d, expected %d", v.name, kc.name, n, k,
                      k >= 0 ? start[k] : 0, k >= 0 ? ref.start[k] : 0);
                k = first_diff(sorted, ref.keys);
                CHECK(k < 0, "sort %s, %s, n=%zu: key_sorted wrong (not sorted or not the keys) at %lld",
                      v.name, kc.name, n, k);
                size_t bad = bad_slots(order, key, sorted);
                CHECK(bad == 0, "sort %s, %s, n=%zu: order is not a permutation matching key_sorted "
                                "(%zu bad slots)", v.name, kc.name, n, bad);
                CHECK(first_diff(d_key.get(), key) < 0, "sort %s, %s, n=%zu changed the keys", v.name,
                      kc.name, n);
                /* without key_sorted (the backend's call): the same start[], and for the radix
                 * sort the same order */
                d_order.poison();
                d_start.poison();
                MUST(gpu_sort_keys(d_key.p, n, kc.nkeys, v.kind, v.scan, d_order.p, NULL, d_start.p, &scratch,
                                   &err));
                CHECK(first_diff(d_start.get(), start) < 0, "sort %s, %s, n=%zu, no key_sorted: start differs",
                      v.name, kc.name, n);
                std::vector<int32_t> order2 = d_order.get();
                size_t bad2 = bad_slots(order2, key, sorted);
                CHECK(bad2 == 0 && (v.kind != GPU_SORT_RADIX || first_diff(order2, order) < 0),
                      "sort %s, %s, n=%zu, no key_sorted: order wrong (%zu bad slots)", v.name, kc.name, n, bad2);
                if (v.kind == GPU_SORT_RADIX) {
                    k = first_diff(order, ref.order);
                    CHECK(k < 0, "sort radix, %s, n=%zu: order differs from the stable host order at %lld",
                          kc.name, n, k);
                    d_order.poison();
                    d_sorted.poison();
                    d_start.poison();
                    MUST(gpu_sort_keys(d_key.p, n, kc.nkeys, v.kind, v.scan, d_order.p, d_sorted.p,
                                       d_start.p, &scratch, &err));
                    CHECK(first_diff(d_order.get(), order) < 0 && first_diff(d_sorted.get(), sorted) < 0 &&
                              first_diff(d_start.get(), start) < 0,
                          "sort radix, %s, n=%zu: a second run differs", kc.name, n);
                }
            }
        }
        printf("sorts, %s: done\n", kc.name);
    }
    CHECK(gpu_sort_keys(NULL, 10, 0, GPU_SORT_RADIX, GPU_SCAN_CUB, NULL, NULL, NULL, &scratch, &err) ==
              SL_ERR_INPUT,
          "sort into 0 keys not refused");
    CHECK(gpu_sort_keys(NULL, (size_t)INT32_MAX + 1, 10, GPU_SORT_COUNTING, GPU_SCAN_CUB, NULL, NULL, NULL,
                        &scratch, &err) == SL_ERR_INPUT,
          "sort of 2^31 particles not refused");
}

// ---- gathers ------------------------------------------------------------------------------

void test_gathers()
{
    rng r(3);
    for (size_t n : SIZES) {
        /* a random permutation (Fisher-Yates), as a sort of unsorted particles gives */
        std::vector<int32_t> order(n);
        for (size_t i = 0; i < n; ++i)
            order[i] = (int32_t)i;
        for (size_t i = n; i > 1; --i)
            std::swap(order[i - 1], order[r.next() % i]);
        std::vector<std::vector<real>> fr(GPU_GATHER_MAX_FIELDS, std::vector<real>(n)), gr = fr;
        std::vector<int32_t> fi(n), gi(n);
        std::vector<uint8_t> fu(n), fv(n), gu(n), gv(n);
        for (size_t i = 0; i < n; ++i) {
            for (auto &f : fr)
                f[i] = (real)(r.uniform() * 2 - 1);
            fi[i] = (int32_t)r.next();
            fu[i] = (uint8_t)r.next();
            fv[i] = (uint8_t)r.next();
        }
        for (size_t k = 0; k < n; ++k) {
            for (size_t f = 0; f < fr.size(); ++f)
                gr[f][k] = fr[f][order[k]];
            gi[k] = fi[order[k]];
            gu[k] = fu[order[k]];
            gv[k] = fv[order[k]];
        }
        dev<int32_t> d_order(order), d_fi(fi), d_gi(n);
        dev<uint8_t> d_fu(fu), d_fv(fv), d_gu(n), d_gv(n);
        /* every width, each array of a call checked (a wrong index or stride shows in one of them) */
        for (int count = 1; count <= GPU_GATHER_MAX_FIELDS; ++count) {
            std::deque<dev<real>> d_src, d_dst; /* dev is neither copied nor moved */
            for (int f = 0; f < count; ++f) {
                d_src.emplace_back(fr[f]);
                d_dst.emplace_back(n);
            }
            const real *src[GPU_GATHER_MAX_FIELDS];
            real *dst[GPU_GATHER_MAX_FIELDS];
            for (int f = 0; f < count; ++f) {
                src[f] = d_src[f].p;
                dst[f] = d_dst[f].p;
            }
            MUST(gpu_gather_reals(src, dst, count, d_order.p, n, &err));
            for (int f = 0; f < count; ++f)
                CHECK(first_diff(d_dst[f].get(), gr[f]) < 0, "gather of %d reals, array %d, n=%zu wrong", count, f, n);
        }
        dev<real> d_one(fr[0]), d_one_out(n);
        MUST(gpu_gather_real(d_one.p, d_one_out.p, d_order.p, n, &err));
        CHECK(first_diff(d_one_out.get(), gr[0]) < 0, "gather real n=%zu wrong", n);
        MUST(gpu_gather_ids(d_fi.p, d_fu.p, d_fv.p, d_gi.p, d_gu.p, d_gv.p, d_order.p, n, &err));
        CHECK(first_diff(d_gi.get(), gi) < 0, "gather ids: ids n=%zu wrong", n);
        CHECK(first_diff(d_gu.get(), gu) < 0, "gather ids: types n=%zu wrong", n);
        CHECK(first_diff(d_gv.get(), gv) < 0, "gather ids: tags n=%zu wrong", n);
    }
    const real *none_src[1] = {NULL};
    real *none_dst[1] = {NULL};
    CHECK(gpu_gather_reals(none_src, none_dst, 0, NULL, 1, &err) == SL_ERR_RUNTIME, "gather of 0 arrays accepted");
    CHECK(gpu_gather_reals(none_src, none_dst, GPU_GATHER_MAX_FIELDS + 1, NULL, 1, &err) == SL_ERR_RUNTIME,
          "gather of too many arrays accepted");
    printf("gathers: done\n");
}

// ---- reductions ---------------------------------------------------------------------------

/* Reference sum of the terms in long double, in blocks of 1024 (sequential inside, then over the
 * block sums): its own error is below (1024 + n / 1024) 2^-64 sum|t|, negligible next to the
 * GPU's. Also returns sum |t| for the bound. */
long double ref_sum(const std::vector<double> &t, long double *abs_sum)
{
    long double total = 0, abs_total = 0;
    for (size_t b = 0; b < t.size(); b += 1024) {
        long double part = 0, abs_part = 0;
        for (size_t i = b; i < t.size() && i < b + 1024; ++i) {
            part += t[i];
            abs_part += fabsl((long double)t[i]);
        }
        total += part;
        abs_total += abs_part;
    }
    *abs_sum = abs_total;
    return total;
}

/* Tolerance of a GPU sum of n terms (gpu_reduce.h): each term goes through at most
 * ceil(n / 2^18) additions in its thread, 23 after (the trees and the last block's fold of the
 * partials) and 1 rounding of its product, so the
 * error is at most (ceil(n / 2^18) + 24) u sum|t| with u = 2^-53, to first order; the
 * reference adds (1024 + n / 1024) 2^-64 sum|t|. Twice the sum of both covers the second-order
 * terms. At n = 10^7 this is 1.4e-14 of sum|t|: a wrong reduction (a lost or doubled element)
 * is off by about |t| ~ 1e-7 sum|t| and fails. */
double sum_tolerance(size_t n, long double abs_sum)
{
    double u = ldexp(1.0, -53), ul = ldexp(1.0, -64);
    double depth = (double)((n + (1u << 18) - 1) >> 18) + 24;
    return 2 * (depth * u + (1024 + (double)n / 1024) * ul) * (double)abs_sum + 1e-300;
}

void check_sum(const char *what, size_t n, double got, const std::vector<double> &terms)
{
    long double abs_sum;
    long double ref = ref_sum(terms, &abs_sum);
    double tol = sum_tolerance(n, abs_sum);
    CHECK(fabsl((long double)got - ref) <= tol, "%s n=%zu: %.17g, reference %.17Lg, |diff| %.3Lg > tolerance %.3g",
          what, n, got, ref, fabsl((long double)got - ref), tol);
}

/* The CG's scalars (backend.h: enum cg_slot), the first given, the rest 0 (the state CG_GOING) */
std::vector<double> slots(std::initializer_list<double> first)
{
    std::vector<double> v(first);
    v.resize(CG_SLOTS, 0.0);
    return v;
}

bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

void test_reductions()
{
    rng r(4);
    for (size_t n : SIZES) {
        std::vector<real> a(n), b(n);
        for (size_t i = 0; i < n; ++i) {
            /* offset so the sum does not cancel to nothing; b of both signs for the dot */
            a[i] = (real)(r.uniform() + 0.25);
            b[i] = (real)(r.uniform() * 2 - 1);
        }
        dev<real> d_a(a), d_b(b);
        std::vector<double> ta(n), tab(n);
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < n; ++i) {
            ta[i] = (double)a[i];
            tab[i] = (double)a[i] * (double)b[i];
            lo = ta[i] < lo ? ta[i] : lo;
            hi = ta[i] > hi ? ta[i] : hi;
        }
        double got[4], again;
        const int ops[4] = {REDUCE_MIN, REDUCE_MAX, REDUCE_SUM, REDUCE_DOT};
        for (int k = 0; k < 4; ++k) {
            MUST(gpu_reduce_real(ops[k], d_a.p, d_b.p, n, &got[k], &scratch, &err));
            MUST(gpu_reduce_real(ops[k], d_a.p, d_b.p, n, &again, &scratch, &err));
            CHECK(same_bits(got[k], again), "reduce op %d n=%zu: two runs differ (%.17g, %.17g)", ops[k], n,
                  got[k], again);
        }
        CHECK(same_bits(got[0], lo), "reduce MIN n=%zu: %.17g, expected %.17g", n, got[0], lo);
        CHECK(same_bits(got[1], hi), "reduce MAX n=%zu: %.17g, expected %.17g", n, got[1], hi);
        if (n == 0)
            CHECK(got[2] == 0 && got[3] == 0, "reduce SUM/DOT of nothing: %g %g", got[2], got[3]);
        check_sum("reduce SUM", n, got[2], ta);
        check_sum("reduce DOT", n, got[3], tab);

        /* one NaN anywhere (first, last, middle) makes MIN, MAX and SUM NaN */
        if (n > 0) {
            for (size_t at : {(size_t)0, n - 1, n / 2}) {
                std::vector<real> an = a;
                an[at] = (real)NAN;
                dev<real> d_an(an);
                for (int k = 0; k < 3; ++k) {
                    double v = 0;
                    MUST(gpu_reduce_real(ops[k], d_an.p, d_b.p, n, &v, &scratch, &err));
                    CHECK(isnan(v), "reduce op %d n=%zu: NaN at %zu not propagated (got %g)", ops[k], n, at, v);
                }
            }
        }
    }
    CHECK(gpu_reduce_real(99, NULL, NULL, 10, NULL, &scratch, &err) == SL_ERR_INPUT,
          "unknown reduce op not refused");
    printf("reductions: done\n");
}

// ---- CG updates ---------------------------------------------------------------------------

/* The CPU backend's formulas (core/backend_cpu.c: cpu_cg_init, cpu_cg_update), evaluated on the
 * host: the device results must match them bit for bit. */
void test_cg()
{
    rng r(5);
    const double alpha = 0.3712345678901, beta = 0.6187654321;
    for (size_t n : SIZES) {
        std::vector<real> x(n), b(n), q(n), diag(n), rr(n), z(n), d(n);
        for (size_t i = 0; i < n; ++i) {
            x[i] = (real)(r.uniform() * 2 - 1);
            b[i] = (real)(r.uniform() * 2 - 1);
            q[i] = (real)(r.uniform() * 2 - 1);
            diag[i] = r.below(10) == 0 ? (real)0 : (real)(r.uniform() + 0.5); /* 10% not unknowns */
            rr[i] = (real)(r.uniform() * 2 - 1);
            z[i] = (real)(r.uniform() * 2 - 1);
            d[i] = (real)(r.uniform() * 2 - 1);
        }
        dev<real> dx(x), db(b), dq(q), ddiag(diag), dr(rr), dz(z), dd(d);

        /* init */
        std::vector<real> hx = x, hr(n), hz(n), hd(n);
        std::vector<double> tbb(n), trz(n), trr(n);
        for (size_t i = 0; i < n; ++i) {
            int unknown = diag[i] != 0;
            if (!unknown)
                hx[i] = 0;
            hr[i] = unknown ? b[i] - q[i] : 0;
            hz[i] = unknown ? hr[i] / diag[i] : 0;
            hd[i] = hz[i];
            tbb[i] = (double)b[i] * (double)b[i];
            trz[i] = (double)hr[i] * (double)hz[i];
            trr[i] = (double)hr[i] * (double)hr[i];
        }
        double dots[3];
        MUST(gpu_cg_init(dx.p, db.p, dq.p, ddiag.p, dr.p, dz.p, dd.p, n, dots, &scratch, &err));
        CHECK(first_diff(dx.get(), hx) < 0 && first_diff(dr.get(), hr) < 0 && first_diff(dz.get(), hz) < 0 &&
                  first_diff(dd.get(), hd) < 0,
              "cg init n=%zu: fields differ from the CPU formulas", n);
        check_sum("cg init b.b", n, dots[0], tbb);
        check_sum("cg init r.z", n, dots[1], trz);
        check_sum("cg init r.r", n, dots[2], trr);

        /* update, from fresh random fields so that every branch is exercised; twice from the
         * same inputs for determinism */
        dx.put(x);
        dr.put(rr);
        dd.put(d);
        std::vector<real> ux = x, ur = rr, uz(n);
        std::vector<double> urz(n), urr(n);
        for (size_t i = 0; i < n; ++i) {
            ux[i] += (real)(alpha * d[i]);
            ur[i] -= (real)(alpha * q[i]);
            uz[i] = diag[i] != 0 ? ur[i] / diag[i] : 0;
            urz[i] = (double)ur[i] * (double)uz[i];
            urr[i] = (double)ur[i] * (double)ur[i];
        }
        /* the scalars on the device (backend.h: enum cg_slot): alpha = S[1] / S[0] = alpha / 1
         * exactly, the dots into S[3], S[4] */
        dev<double> S(slots({1.0, alpha, 0.0, 0.0, 0.0}));
        MUST(gpu_cg_update(S.p, 1, 0, 3, dx.p, dr.p, dz.p, dd.p, dq.p, ddiag.p, n, &scratch, &err));
        std::vector<double> got = S.get();
        CHECK(first_diff(dx.get(), ux) < 0 && first_diff(dr.get(), ur) < 0 && first_diff(dz.get(), uz) < 0,
              "cg update n=%zu: fields differ from the CPU formulas", n);
        check_sum("cg update r.z", n, got[3], urz);
        check_sum("cg update r.r", n, got[4], urr);
        dx.put(x);
        dr.put(rr);
        MUST(gpu_cg_update(S.p, 1, 0, 3, dx.p, dr.p, dz.p, dd.p, dq.p, ddiag.p, n, &scratch, &err));
        std::vector<double> again = S.get();
        CHECK(same_bits(got[3], again[3]) && same_bits(got[4], again[4]), "cg update n=%zu: two runs differ", n);
        /* d.q <= 0 (or NaN): no progress possible, nothing written, the dots 0 */
        for (double bad : {0.0, -1.0, (double)NAN}) {
            dx.put(x);
            dr.put(rr);
            dz.put(z);
            S.put(slots({bad, alpha, 0.0, 7.0, 7.0}));
            MUST(gpu_cg_update(S.p, 1, 0, 3, dx.p, dr.p, dz.p, dd.p, dq.p, ddiag.p, n, &scratch, &err));
            std::vector<double> none = S.get();
            CHECK(first_diff(dx.get(), x) < 0 && first_diff(dr.get(), rr) < 0 && first_diff(dz.get(), z) < 0 &&
                      none[3] == 0 && none[4] == 0,
                  "cg update n=%zu, d.q = %g: fields or dots changed", n, bad);
        }
        /* a dot into a slot: REDUCE_DOT's sum, bit for bit */
        double ref = 0;
        MUST(gpu_reduce_real(REDUCE_DOT, dr.p, dz.p, n, &ref, &scratch, &err));
        MUST(gpu_cg_dot(dr.p, dz.p, n, S.p, 2, &scratch, &err));
        CHECK(same_bits(S.get()[2], ref), "cg dot n=%zu: %.17g, REDUCE_DOT %.17g", n, S.get()[2], ref);

        /* direction: beta = S[1] / S[0] = beta / 1, and 0 where den < 0 */
        dz.put(z);
        dd.put(d);
        std::vector<real> nd(n);
        for (size_t i = 0; i < n; ++i)
            nd[i] = z[i] + (real)(beta * d[i]);
        S.put(slots({1.0, beta, 0.0, 0.0, 0.0}));
        MUST(gpu_cg_direction(S.p, 1, 0, dz.p, dd.p, n, &err));
        CHECK(first_diff(dd.get(), nd) < 0, "cg direction n=%zu: d differs from the CPU formula", n);
        MUST(gpu_cg_direction(S.p, 1, -1, dz.p, dd.p, n, &err));
        CHECK(first_diff(dd.get(), z) < 0, "cg direction n=%zu, beta 0: d is not z", n);
        /* a solve that stopped (S[CG_STATE] not CG_GOING: iterations the driver queued past its
         * stop): the update and the direction write no field */
        dx.put(x);
        dr.put(rr);
        dz.put(z);
        dd.put(d);
        std::vector<double> stopped = slots({1.0, alpha, 0.0, 0.0, 0.0});
        stopped[CG_STATE] = CG_CONVERGED;
        S.put(stopped);
        MUST(gpu_cg_update(S.p, 1, 0, 3, dx.p, dr.p, dz.p, dd.p, dq.p, ddiag.p, n, &scratch, &err));
        MUST(gpu_cg_direction(S.p, 1, 0, dz.p, dd.p, n, &err));
        CHECK(first_diff(dx.get(), x) < 0 && first_diff(dr.get(), rr) < 0 && first_diff(dz.get(), z) < 0 &&
                  first_diff(dd.get(), d) < 0,
              "cg update and direction n=%zu after the stop: a field changed", n);
    }
    printf("cg updates: done\n");
}

/* The device's verdict (gpu_cg_decide) against cg_decide_step on the host, from the same scalars:
 * the same state, count and r.r, bit for bit, for each way a solve goes on or stops. */
void cg_decide_matches_the_host()
{
    const double bnorm = 3.0, tol = 1e-6;
    const int max_iterations = 5;
    struct verdict_case {
        const char *name;
        double dq, rr, done, state;
    } cases[] = {
        {"goes on", 2.0, 1.0, 0, CG_GOING},
        {"converges", 2.0, 9e-12 * 0.99, 0, CG_GOING},
        {"at the tolerance exactly", 2.0, (tol * bnorm) * (tol * bnorm), 0, CG_GOING},
        {"reaches the limit", 2.0, 1.0, 4, CG_GOING},
        {"no progress", 0.0, 1.0, 2, CG_GOING},
        {"NaN", (double)NAN, 1.0, 2, CG_GOING},
        {"already stopped", 2.0, 1e-30, 3, CG_CONVERGED},
    };
    for (const verdict_case &c : cases) {
        std::vector<double> h = slots({c.dq, 0.0, 0.0, 0.5, c.rr});
        h[CG_STATE] = c.state;
        h[CG_DONE] = c.done;
        h[CG_LAST_RR] = 42.0;
        dev<double> S(h);
        MUST(gpu_cg_decide(S.p, CG_DQ, CG_RZ_ODD, bnorm, tol, max_iterations, &err));
        cg_decide_step(h.data(), CG_DQ, CG_RZ_ODD, bnorm, tol, max_iterations);
        std::vector<double> got = S.get();
        CHECK(same_bits(got[CG_STATE], h[CG_STATE]) && same_bits(got[CG_DONE], h[CG_DONE]) &&
                  same_bits(got[CG_LAST_RR], h[CG_LAST_RR]),
              "cg decide, %s: device state %g, %g done, r.r %g; host %g, %g, %g", c.name, got[CG_STATE], got[CG_DONE],
              got[CG_LAST_RR], h[CG_STATE], h[CG_DONE], h[CG_LAST_RR]);
    }
    printf("cg decide: done\n");
}

} // namespace

int main(int argc, char **argv)
{
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        printf("no CUDA device: skipped (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return 77;
    }
    if (argc >= 2 && strcmp(argv[1], "--bench") == 0) {
        size_t n = argc >= 3 ? (size_t)strtoull(argv[2], NULL, 10) : 10000000;
        MUST(gpu_primitives_bench(stdout, n, &err));
        return 0;
    }
    cudaDeviceProp prop;
    CUDA_MUST(cudaGetDeviceProperties(&prop, 0));
    printf("device 0: %s (sm_%d%d), real = %s\n", prop.name, prop.major, prop.minor, REAL_NAME);
    const char *small = getenv("SLUICE_GPU_TEST_SMALL");
    if (small && *small && strcmp(small, "0") != 0) {
        SIZES.back() = 300007;
        for (key_case &kc : KEY_CASES)
            if (kc.nkeys == (1u << 22) + 1) {
                kc.nkeys = (1u << 17) + 1;
                kc.name = "2^17+1 keys (sparse)";
            }
        printf("SLUICE_GPU_TEST_SMALL: sizes up to %zu (scans 1100003)\n", SIZES.back());
    }

    test_scans();
    test_sorts();
    test_gathers();
    test_reductions();
    test_cg();
    cg_decide_matches_the_host();
    gpu_scratch_free(&scratch);
    CUDA_MUST(cudaDeviceSynchronize());

    if (failures) {
        printf("%d check(s) failed\n", failures);
        return 1;
    }
    printf("all GPU primitive checks passed\n");
    return 0;
}
