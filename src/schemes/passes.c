/* passes.c: the CPU loop and the pass object of every scheme pass, generated from the schemes' pass
 * lists (registry.h); the CPU backend runs a loop over chunks of particles from its OpenMP threads. */
#include "registry.h"

SCHEME_PASSES(PASS_DEFINE)
