/* bench_operators.h: `sluice bench --case operators`, the MPS operators on a regular lattice. */
#ifndef SLUICE_BENCH_OPERATORS_H
#define SLUICE_BENCH_OPERATORS_H

/* argv[1] is "bench" and the options include --case operators; returns the exit status. */
int bench_operators_main(int argc, char **argv);

#endif
