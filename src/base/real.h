/* real.h: the precision type and the host-device qualifiers shared by C and CUDA code. */
#ifndef SLUICE_REAL_H
#define SLUICE_REAL_H

#ifdef SLUICE_DOUBLE
typedef double real;
#define REAL_IS_DOUBLE 1
#define REAL_NAME "double"
#define R(x) (x)
#define real_sqrt sqrt
#define real_fabs fabs
#define real_pow pow
#else
typedef float real;
#define REAL_IS_DOUBLE 0
#define REAL_NAME "float"
#define R(x) (x##f)
#define real_sqrt sqrtf
#define real_fabs fabsf
#define real_pow powf
#endif

/* Physics functions are compiled for both the OpenMP loops and the CUDA kernels. */
#ifdef __CUDACC__
#define HD __host__ __device__
#define SL_RESTRICT __restrict__
#else
#define HD
#define SL_RESTRICT restrict
#endif
/* A loop of a constant count, unrolled in the kernels (the device pass only: the host pass of a .cu
 * file and the C compiler do not know the pragma). */
#ifdef __CUDA_ARCH__
#define SL_UNROLL _Pragma("unroll")
#else
#define SL_UNROLL
#endif

/* A struct member aligned to n bytes: on the first member, the struct's alignment, so that a GPU reads
 * a struct of four reals from shared memory with one 16-byte load instead of four. */
#ifdef __cplusplus
#define SL_ALIGNED(n) alignas(n)
#else
#define SL_ALIGNED(n) _Alignas(n)
#endif

#endif
