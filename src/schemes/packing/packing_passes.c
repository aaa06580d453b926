/* packing_passes.c: the CPU loop and pass object of every packing pass (packing_passes.h). */
#include "packing_passes.h"

PACKING_PASSES(PASS_DEFINE)
