/* registry.c: the wall models. A new model is its file and one line in SLUICE_BOUNDARY_MODELS
 * (its passes, if any, go to BOUNDARY_PASSES in boundary_passes.h). */
#include "boundary.h"
#include "moving.h"

#include "core/sim.h"

#include <string.h>

/* B(NAME): the model object boundary_NAME. */
#define SLUICE_BOUNDARY_MODELS(B) B(dynamic) B(mdbc) B(mps_layers) B(mps_extrapolated)

#define MODEL_EXTERN(NAME) extern const boundary_model boundary_##NAME;
SLUICE_BOUNDARY_MODELS(MODEL_EXTERN)
#undef MODEL_EXTERN

#define MODEL_ENTRY(NAME) &boundary_##NAME,
static const boundary_model *const models[] = {SLUICE_BOUNDARY_MODELS(MODEL_ENTRY)};
#undef MODEL_ENTRY

const boundary_model *boundary_find(const char *name)
{
    for (size_t k = 0; k < sizeof models / sizeof models[0]; ++k)
        if (name && strcmp(models[k]->name, name) == 0)
            return models[k];
    return NULL;
}

int boundary_setup(sim *s, const char *name, sl_err *err)
{
    if (!(s->bnd = boundary_find(name)))
        return sl_fail(err, SL_ERR_RUNTIME, "scheme '%s' asks for the wall model '%s', which is not registered",
                       s->sch ? s->sch->name : "?", name);
    moving_walls_prepare(s);
    int rc = s->bnd->init ? s->bnd->init(s, err) : SL_OK;
    return rc ? rc : moving_walls_setup(s, err); /* every scheme's walls may move */
}
