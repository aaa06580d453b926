/* backend_cpu_mg.h: the CPU backend's multigrid primitives (backend_cpu.mg). */
#ifndef SLUICE_BACKEND_CPU_MG_H
#define SLUICE_BACKEND_CPU_MG_H

#include "backend.h"

extern const backend_mg_hooks cpu_mg_hooks;

#endif
