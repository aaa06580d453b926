/* palette.h: floating bodies coloured apart in the viewer: a categorical palette cycled by body index,
 * and the vertex tag that carries a particle's body to the shader. Shared by the host fill (fill.c) and
 * the CUDA fill (src/gpu/viz_interop.cu), so both write the same vertices. */
#ifndef SLUICE_VIZ_PALETTE_H
#define SLUICE_VIZ_PALETTE_H

#include "base/real.h"

enum { VIZ_BODY_COLORS = 10 };

/* viz_vertex.type: 0, 1, 2 the particle type (enum particle_type); VIZ_TAG_BODY0 + b for a particle of
 * floating body b, whatever its type. Floats hold these integers exactly up to 2^24 bodies. */
#define VIZ_TAG_BODY0 3.0f

/* The tag of a particle of type `type` whose motion body is `body` (core/motion.h: -1 none; bodies
 * [0, nfloat) float, the others follow a prescribed law and stay walls). */
HD static inline float viz_vertex_tag(unsigned char type, real body, int nfloat)
{
    return body >= R(0.0) && body < (real)nfloat ? VIZ_TAG_BODY0 + (float)body : (float)type;
}

#endif
