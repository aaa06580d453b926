/* gpu_reduce.cu: min, max, sum and dot of real device arrays with the deterministic two-pass tree. */
#include "gpu_reduce.h"

#include "core/backend.h"
#include "gpu_reduce_block.cuh"

namespace {

struct fold_value {
    const real *a;
    template <class Op>
    __device__ __forceinline__ void operator()(size_t i, double (&v)[1], Op op) const
    {
        v[0] = op(v[0], (double)a[i]);
    }
};

struct fold_product {
    const real *a, *b;
    template <class Op>
    __device__ __forceinline__ void operator()(size_t i, double (&v)[1], Op op) const
    {
        v[0] = op(v[0], gpu_red::term((double)a[i], (double)b[i]));
    }
};

} // namespace

extern "C" int gpu_reduce_real(int op, const real *a, const real *b, size_t n, double *result,
                               gpu_scratch *s, sl_err *err)
{
    switch (op) {
    case REDUCE_MIN:
        return gpu_red::run<1, gpu_red::min_op>(fold_value{a}, n, result, s, err);
    case REDUCE_MAX:
        return gpu_red::run<1, gpu_red::max_op>(fold_value{a}, n, result, s, err);
    case REDUCE_SUM:
        return gpu_red::run<1, gpu_red::sum_op>(fold_value{a}, n, result, s, err);
    case REDUCE_DOT:
        return gpu_red::run<1, gpu_red::sum_op>(fold_product{a, b}, n, result, s, err);
    default:
        return gpu_fail_input(err, "reduction: unknown operation %d", op);
    }
}
