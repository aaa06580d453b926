/* main.c: entry point of the `sluice` executable. */
#include "cli.h"

int main(int argc, char **argv)
{
    return cli_main(argc, argv);
}
