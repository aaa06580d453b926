/* bench.h: the `sluice bench` command. */
#ifndef SLUICE_BENCH_H
#define SLUICE_BENCH_H

/* argv[1] is "bench". Returns the exit status. */
int bench_main(int argc, char **argv);

#endif
