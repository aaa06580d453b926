/* gputrace.c: the device's own timeline of a CUDA run, for performance work (docs/performance.md):
 * every kernel, copy and memset with its start and end on the GPU's clock, written as CSV
 * (kind,start_ns,end_ns,graph,name) to $GPUTRACE_OUT when the program exits. A CUPTI injection
 * library, so sluice itself is not changed:
 *
 *   cc -shared -fPIC -O2 tools/gputrace/gputrace.c -I$CUDA/include -L$CUDA/lib64 -lcupti -o gputrace.so
 *   CUDA_INJECTION64_PATH=$PWD/gputrace.so GPUTRACE_OUT=trace.csv build/sluice bench ...
 *   tools/gputrace/summary trace.csv      (busy time, the gaps between kernels, the kernels by name)
 *
 * Where nsys is not installed (the device image has ncu, whose replay serialises every kernel and
 * so cannot show the gaps a step's queue leaves). */
#include <cupti.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BUFFER_BYTES = 8 << 20 };

static FILE *out;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, BUFFER_BYTES);
    *size = *buffer ? BUFFER_BYTES : 0;
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    CUpti_Activity *record = NULL;
    while (out && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: {
            const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)record;
            fprintf(out, "K,%llu,%llu,%u,%s\n", (unsigned long long)k->start, (unsigned long long)k->end, k->graphId,
                    k->name ? k->name : "?");
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)record;
            fprintf(out, "C,%llu,%llu,%u,copy kind %u %llu bytes\n", (unsigned long long)m->start,
                    (unsigned long long)m->end, m->graphId, m->copyKind, (unsigned long long)m->bytes);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)record;
            fprintf(out, "S,%llu,%llu,%u,memset %llu bytes\n", (unsigned long long)m->start,
                    (unsigned long long)m->end, m->graphId, (unsigned long long)m->bytes);
            break;
        }
        default:
            break;
        }
    }
    free(buffer);
}

static void finish(void)
{
    cuptiActivityFlushAll(1);
    if (out)
        fclose(out);
    out = NULL;
}

int InitializeInjection(void)
{
    const char *path = getenv("GPUTRACE_OUT");
    out = fopen(path && *path ? path : "gputrace.csv", "w");
    if (!out) {
        perror("gputrace: cannot write the trace");
        return 0;
    }
    if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET) != CUPTI_SUCCESS) {
        fprintf(stderr, "gputrace: CUPTI refused the activity records\n");
        return 0;
    }
    atexit(finish);
    return 1;
}
