#include "mpi_glue/pmpi/bootstrap.hpp"

#include <unistd.h>

#include <atomic>
#include <climits>

#include "core/strings.hpp"

namespace osmp::pmpi {

MpiBootstrap::MpiBootstrap(MPI_Comm comm) : comm_(comm) {
  PMPI_Comm_rank(comm, &rank_);
  PMPI_Comm_size(comm, &size_);
  // Unique on this machine: rank 0's pid and its count of teams so far.
  static std::atomic<std::uint32_t> teams{0};
  std::uint64_t id = 0;
  if (rank_ == 0) id = (static_cast<std::uint64_t>(::getpid()) << 24) | (0x800000u | (teams++ & 0x7fffffu));
  PMPI_Bcast(&id, 1, MPI_UINT64_T, 0, comm);
  job_ = id;
}

Status MpiBootstrap::allgather(const void* in, std::size_t len, void* out) {
  if (len == 0) {
    int rc = PMPI_Barrier(comm_);
    return rc == MPI_SUCCESS ? Status() : Status(Errc::system, cat("MPI_Barrier failed (", rc, ")"));
  }
  if (len > INT_MAX) return Status(Errc::invalid_argument, cat("allgather of ", len, " bytes"));
  int rc = PMPI_Allgather(in, static_cast<int>(len), MPI_BYTE, out, static_cast<int>(len), MPI_BYTE, comm_);
  return rc == MPI_SUCCESS ? Status() : Status(Errc::system, cat("MPI_Allgather failed (", rc, ")"));
}

Status MpiBootstrap::broadcast(void* buf, std::size_t len, int root) {
  if (len > INT_MAX) return Status(Errc::invalid_argument, cat("broadcast of ", len, " bytes"));
  int rc = PMPI_Bcast(buf, static_cast<int>(len), MPI_BYTE, root, comm_);
  return rc == MPI_SUCCESS ? Status() : Status(Errc::system, cat("MPI_Bcast failed (", rc, ")"));
}

}  // namespace osmp::pmpi
