/* cli.h: the `sluice` command line (run, check, info). */
#ifndef SLUICE_CLI_H
#define SLUICE_CLI_H

/* Returns the process exit status: 0 success, 1 runtime failure, 2 bad usage or invalid scene,
 * 130/143 stopped by SIGINT/SIGTERM. */
int cli_main(int argc, char **argv);

#endif
