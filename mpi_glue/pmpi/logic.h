/* The collectives of libosmp_pmpi and coll/osmp: MPI arguments in, osmp (or
 * the MPI's own collective, reached through PMPI_) out. interpose.cpp maps
 * MPI_X onto these; the Open MPI component calls them from its module. */
#ifndef OSMP_PMPI_LOGIC_H
#define OSMP_PMPI_LOGIC_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

int osmp_pmpi_barrier(MPI_Comm comm);
int osmp_pmpi_bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm comm);
int osmp_pmpi_allreduce(const void* s, void* r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm);
int osmp_pmpi_reduce(const void* s, void* r, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm);
int osmp_pmpi_gather(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, int root,
                     MPI_Comm comm);
int osmp_pmpi_allgather(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, MPI_Comm comm);
int osmp_pmpi_scatter(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, int root,
                      MPI_Comm comm);
int osmp_pmpi_reduce_scatter_block(const void* s, void* r, int rc, MPI_Datatype t, MPI_Op op, MPI_Comm comm);
/* Frees every team and prints the counters (OSMP_PMPI_STATS). */
void osmp_pmpi_finalize(void);
long long osmp_pmpi_calls(int on_osmp);
/* Only prints the counters (no MPI calls): for the component's close. */
void osmp_pmpi_report(void);
/* 1: reasons for declining (once each); 2: also every call's path. */
void osmp_pmpi_set_verbose(int level);

#ifdef __cplusplus
}
#endif

#endif
