// libosmp_pmpi: the MPI_ entry points, for LD_PRELOAD (or linking before the
// MPI library); each hands its call to logic.cpp, which uses PMPI_ itself.
#include <dlfcn.h>
#include <mpi.h>

#include "mpi_glue/pmpi/errors.hpp"
#include "mpi_glue/pmpi/logic.h"

namespace {
// Being the MPI_ functions, the interposer hands its errors to the
// communicator's handler itself (errors.hpp).
[[maybe_unused]] const bool kRaises = (osmp::pmpi::set_raise(true), true);
}  // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) { return osmp_pmpi_barrier(comm); }
int MPI_Bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm comm) {
  return osmp_pmpi_bcast(buf, count, t, root, comm);
}
int MPI_Allreduce(const void* s, void* r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  return osmp_pmpi_allreduce(s, r, count, t, op, comm);
}
int MPI_Reduce(const void* s, void* r, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm) {
  return osmp_pmpi_reduce(s, r, count, t, op, root, comm);
}
int MPI_Gather(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, int root, MPI_Comm comm) {
  return osmp_pmpi_gather(s, sc, st, r, rc, rt, root, comm);
}
int MPI_Allgather(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, MPI_Comm comm) {
  return osmp_pmpi_allgather(s, sc, st, r, rc, rt, comm);
}
int MPI_Scatter(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, int root, MPI_Comm comm) {
  return osmp_pmpi_scatter(s, sc, st, r, rc, rt, root, comm);
}
int MPI_Reduce_scatter_block(const void* s, void* r, int rc, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  return osmp_pmpi_reduce_scatter_block(s, r, rc, t, op, comm);
}
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  int rc = PMPI_Comm_set_info(comm, info);
  return rc == MPI_SUCCESS ? osmp_pmpi_set_info(comm, info) : rc;
}
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  int rc = PMPI_Comm_dup_with_info(comm, info, newcomm);
  if (rc == MPI_SUCCESS) osmp_pmpi_created_with(*newcomm, info);
  return rc;
}
int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm* newcomm) {
  int rc = PMPI_Comm_split_type(comm, type, key, info, newcomm);
  if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL) osmp_pmpi_created_with(*newcomm, info);
  return rc;
}
// The next MPI_Comm_get_info, not PMPI's: libosmp_mpi wraps it too (the
// hardware level of its communicators), and both must run.
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info* info) {
  using GetInfo = int (*)(MPI_Comm, MPI_Info*);
  static const GetInfo next = [] {
    void* f = dlsym(RTLD_NEXT, "MPI_Comm_get_info");
    return f ? reinterpret_cast<GetInfo>(f) : &PMPI_Comm_get_info;
  }();
  int rc = next(comm, info);
  if (rc == MPI_SUCCESS) osmp_pmpi_get_info(comm, *info);
  return rc;
}
int MPI_Finalize(void) {
  osmp_pmpi_finalize();
  return PMPI_Finalize();
}

}  // extern "C"
