/* registry.c: the schemes a scene can name in simulation.method, from SLUICE_SCHEMES (registry.h). */
#include "registry.h"

#include "core/scheme.h"

#include <string.h>

#define SCHEME_EXTERN(NAME) extern const scheme scheme_##NAME;
SLUICE_SCHEMES(SCHEME_EXTERN)
#undef SCHEME_EXTERN

#define SCHEME_ENTRY(NAME) &scheme_##NAME,
static const scheme *const schemes[] = {SLUICE_SCHEMES(SCHEME_ENTRY)};
#undef SCHEME_ENTRY

/* "|wcsph|mps|emps": the names accepted in scene files, after the first '|' */
#define SCHEME_NAME(NAME) "|" #NAME
static const char scheme_name_list[] = SLUICE_SCHEMES(SCHEME_NAME);
#undef SCHEME_NAME

const scheme *scheme_find(const char *name)
{
    for (size_t k = 0; k < sizeof schemes / sizeof schemes[0]; ++k)
        if (name && strcmp(schemes[k]->name, name) == 0)
            return schemes[k];
    return NULL;
}

const char *scheme_names(void)
{
    return scheme_name_list + 1;
}
