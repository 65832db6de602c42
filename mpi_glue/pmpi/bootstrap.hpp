// A team bootstrap over an MPI communicator, through PMPI_ calls only (the
// interposer must not see its own traffic).
#pragma once

#include <mpi.h>

#include "team/bootstrap.hpp"

namespace osmp::pmpi {

class MpiBootstrap final : public Bootstrap {
 public:
  explicit MpiBootstrap(MPI_Comm comm);  // collective: agrees on a job id
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::uint64_t job_id() const override { return job_; }
  Status allgather(const void* in, std::size_t len, void* out) override;
  Status broadcast(void* buf, std::size_t len, int root) override;

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::uint64_t job_ = 0;
};

}  // namespace osmp::pmpi
