/* backend.c: choosing a backend by name, from the backend tables alone (each says whether it can
 * run here), so that this layer names no GPU code. */
#include "backend.h"

#include <string.h>

const char *backend_compiled(void)
{
#ifdef SLUICE_HAVE_CUDA
    return "cpu, cuda";
#else
    return "cpu";
#endif
}

int backend_select(const char *name, const backend **out, sl_err *err)
{
    int is_auto = !name || strcmp(name, "auto") == 0;
    if (is_auto || strcmp(name, "cuda") == 0) {
#ifdef SLUICE_HAVE_CUDA
        if (backend_cuda.available()) {
            *out = &backend_cuda;
            return SL_OK;
        }
        if (!is_auto)
            return sl_fail(err, SL_ERR_INPUT, "--backend cuda: no CUDA device is available (accepted: cpu, auto)");
#else
        if (!is_auto)
            return sl_fail(err, SL_ERR_INPUT, "--backend cuda: this build has no CUDA backend (accepted: %s, auto)",
                           backend_compiled());
#endif
        *out = &backend_cpu; /* auto without a usable device */
        return SL_OK;
    }
    if (strcmp(name, "cpu") == 0) {
        *out = &backend_cpu;
        return SL_OK;
    }
    return sl_fail(err, SL_ERR_INPUT, "--backend '%s' is unknown (accepted: cpu, cuda, auto)", name);
}
