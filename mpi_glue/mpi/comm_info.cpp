// MPI_Comm_get_info through the profiling interface: a communicator made by
// a hardware split also reports its level (hw_info_keys()), as the hsplit
// paper caches it with MPI_Comm_set_info. Open MPI 4.1 and MPICH 4.0 drop
// info keys they do not know, so the keys are added on the way out instead.
//
// The next MPI_Comm_get_info is looked up with dlsym(RTLD_NEXT): with
// libosmp_pmpi preloaded, its own wrapper then reaches this one, and this one
// reaches the MPI's, whichever comes first.
#include <dlfcn.h>

#include "mpi_glue/mpi/context.hpp"

namespace {

using GetInfo = int (*)(MPI_Comm, MPI_Info*);

GetInfo next_get_info() {
  static const GetInfo next = [] {
    void* f = dlsym(RTLD_NEXT, "MPI_Comm_get_info");
    return f ? reinterpret_cast<GetInfo>(f) : &PMPI_Comm_get_info;
  }();
  return next;
}

}  // namespace

extern "C" int MPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  int rc = next_get_info()(comm, info_used);
  if (rc != MPI_SUCCESS || comm == MPI_COMM_NULL) return rc;
  if (const osmp::mpi::CommRecord* rec = osmp::mpi::record_of(comm))
    for (const auto& [key, value] : osmp::mpi::hw_info_keys(*rec)) MPI_Info_set(*info_used, key.c_str(), value.c_str());
  return rc;
}
