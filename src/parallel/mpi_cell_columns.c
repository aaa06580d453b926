/* mpi_cell_columns.c: a cell level's columns packed or unpacked by the backend (backend.mg.columns),
 * its failure an error that names the rank: what both paths of a level's halo share (mpi_cells.c
 * through the host, mpi_cells_direct.c GPU to GPU). */
#include "mpi_domain.h"

int domain_cell_columns(sim *s, real *v, const mg_span *sp, int n, void *buf, int to_buf, int on_device, sl_err *err)
{
    if (n <= 0 || !s->be->mg->columns(s, v, sp, n, buf, to_buf, on_device))
        return SL_OK;
    return sim_backend_error(s, err) ? SL_ERR_RUNTIME
                                     : sl_fail(err, SL_ERR_RUNTIME, "MPI rank %d: a cell level's halo failed",
                                               s->domain->rank);
}
