/* colormap.c: colour map samples (matplotlib's viridis, magma and plasma, CC0, taken every 1/8) and
 * field labels. The shaders interpolate the same samples (render.c, overlay.c). */
#include "colormap.h"

#include "base/scene.h"
#include "palette.h"

static const float maps[VIZ_NCMAPS][VIZ_CMAP_SAMPLES * 3] = {
    /* viridis */
    {0.267004f, 0.004874f, 0.329415f, 0.282623f, 0.140926f, 0.457517f, 0.229739f, 0.322361f, 0.545706f,
     0.172719f, 0.448791f, 0.557885f, 0.127568f, 0.566949f, 0.550556f, 0.134692f, 0.658636f, 0.517649f,
     0.266941f, 0.748751f, 0.440573f, 0.477504f, 0.821444f, 0.318195f, 0.993248f, 0.906157f, 0.143936f},
    /* magma */
    {0.001462f, 0.000466f, 0.013866f, 0.078815f, 0.054184f, 0.211667f, 0.232077f, 0.059889f, 0.437695f,
     0.390384f, 0.100379f, 0.501864f, 0.550287f, 0.161158f, 0.505719f, 0.716387f, 0.214982f, 0.475290f,
     0.868793f, 0.287728f, 0.409303f, 0.967671f, 0.439703f, 0.359810f, 0.987053f, 0.991438f, 0.749504f},
    /* plasma */
    {0.050383f, 0.029803f, 0.527975f, 0.254627f, 0.013882f, 0.615419f, 0.417642f, 0.000564f, 0.658390f,
     0.562738f, 0.051545f, 0.641509f, 0.692840f, 0.165141f, 0.564522f, 0.798216f, 0.280197f, 0.469538f,
     0.881443f, 0.392529f, 0.383229f, 0.949217f, 0.517763f, 0.295662f, 0.940015f, 0.975158f, 0.131326f},
};

const float viz_wall_color[3] = {0.55f, 0.56f, 0.60f};

/* tab10 (Vega's category10): 1f77b4 ff7f0e 2ca02c d62728 9467bd 8c564b e377c2 [7f7f7f] bcbd22 17becf,
 * the grey, too near the walls' 0.55, replaced by 222222 */
static const float body_palette[VIZ_BODY_COLORS * 3] = {
    0.122f, 0.467f, 0.706f, 1.000f, 0.498f, 0.055f, 0.173f, 0.627f, 0.173f, 0.839f, 0.153f, 0.157f,
    0.580f, 0.404f, 0.741f, 0.549f, 0.337f, 0.294f, 0.890f, 0.467f, 0.761f, 0.133f, 0.133f, 0.133f,
    0.737f, 0.741f, 0.133f, 0.090f, 0.745f, 0.812f,
};

void viz_body_color(int b, float rgb[3])
{
    int k = (b % VIZ_BODY_COLORS + VIZ_BODY_COLORS) % VIZ_BODY_COLORS;
    for (int c = 0; c < 3; ++c)
        rgb[c] = body_palette[3 * k + c];
}

const float *viz_body_palette(void)
{
    return body_palette;
}

const float *viz_colormap_samples(int k)
{
    return maps[(unsigned)k < VIZ_NCMAPS ? k : 0];
}

void viz_colormap_eval(int k, float t, float rgb[3])
{
    const float *m = viz_colormap_samples(k);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    float x = t * (VIZ_CMAP_SAMPLES - 1);
    int i = (int)x;
    if (i > VIZ_CMAP_SAMPLES - 2)
        i = VIZ_CMAP_SAMPLES - 2;
    float f = x - (float)i;
    for (int c = 0; c < 3; ++c)
        rgb[c] = m[3 * i + c] * (1 - f) + m[3 * (i + 1) + c] * f;
}

const char *viz_field_label(int field)
{
    switch (field) {
    case VIZ_FIELD_VELOCITY: return "velocity |v|";
    case VIZ_FIELD_PRESSURE: return "pressure";
    case VIZ_FIELD_DENSITY: return "density";
    case VIZ_FIELD_TYPE: return "type";
    default: return "?";
    }
}

const char *viz_field_units(int field)
{
    switch (field) {
    case VIZ_FIELD_VELOCITY: return "m/s";
    case VIZ_FIELD_PRESSURE: return "Pa";
    case VIZ_FIELD_DENSITY: return "kg/m^3";
    default: return "";
    }
}
