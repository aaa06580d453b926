/* passes.c: the CPU loop and pass object of every wall-model pass (boundary_passes.h). */
#include "boundary_passes.h"

BOUNDARY_PASSES(PASS_DEFINE)
