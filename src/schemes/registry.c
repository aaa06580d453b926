/* scheme_registry.c: the schemes a scene can name in simulation.method. */
#include "core/scheme.h"

#include <string.h>

extern const scheme scheme_wcsph;
extern const scheme scheme_mps;
extern const scheme scheme_emps;

static const scheme *const schemes[] = {&scheme_wcsph, &scheme_mps, &scheme_emps};

const scheme *scheme_find(const char *name)
{
    for (size_t k = 0; k < sizeof schemes / sizeof schemes[0]; ++k)
        if (name && strcmp(schemes[k]->name, name) == 0)
            return schemes[k];
    return NULL;
}

const char *scheme_names(void)
{
    return "wcsph|mps|emps";
}
