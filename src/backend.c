/* backend.c: choosing a backend by name. */
#include "backend.h"

#include <string.h>

const char *backend_compiled(void)
{
    return "cpu";
}

int backend_select(const char *name, const backend **out, sl_err *err)
{
    if (!name || strcmp(name, "auto") == 0 || strcmp(name, "cpu") == 0) {
        /* auto: the CUDA backend is not part of this build yet, so auto is the CPU. */
        *out = &backend_cpu;
        return SL_OK;
    }
    if (strcmp(name, "cuda") == 0)
        return sl_fail(err, SL_ERR_INPUT,
                       "--backend cuda: this build has no CUDA backend yet (accepted: %s, auto)",
                       backend_compiled());
    return sl_fail(err, SL_ERR_INPUT, "--backend '%s' is unknown (accepted: cpu, cuda, auto)", name);
}
