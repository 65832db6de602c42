// The levels a weighted Cartesian grid is laid out over, and each process's
// rank in the grid (MPIX_Cart_create_weighted and _comms). Internal to
// mpi_glue/mpi; collective over the communicators given.
#pragma once

#include <mpi.h>

#include <span>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "mpi_glue/cart/dims.hpp"

namespace osmp::mpi {

// A process's place in the levels: per level, how many units its parent has
// (sizes) and which one it is in (index); the last entry is the processes
// below the last level.
struct Levels {
  std::vector<int> sizes, index;
};

// From a hierarchy of communicators (cartesian-weighted paper, Figure 5):
// comms[0] holds every process, comms[l + 1] is the part of comms[l] this
// process is in. Checked (not MPI_COMM_NULL, a subset that partitions its
// parent) and agreed over comms[0]; `name` names the array in messages.
Result<Levels> levels_from_comms(std::span<const MPI_Comm> comms, const char* name);

// comm split at each named level in turn (directed hardware splits); a level
// some process cannot be split by is left out for every process.
Result<Levels> hardware_levels(MPI_Comm comm, const std::vector<std::string>& names);

// This process's rank in the grid and the grid's dims: the multi-level
// factorization when every level is symmetric, else compact blocks over the
// single-level weighted dims. Collective over comm.
Result<int> grid_rank(MPI_Comm comm, const Levels& lv, int ndims, std::span<const double> w,
                      const cart::CostModel& model, std::vector<int>& dims);

}  // namespace osmp::mpi
