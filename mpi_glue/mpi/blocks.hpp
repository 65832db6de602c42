// Compact blocks of a Cartesian grid for processes on uneven hardware (the
// fallback of MPIX_Cart_create_weighted when a level is not symmetric).
// Pure; lives here because only the MPI side needs it.
#pragma once

#include <span>
#include <vector>

#include "core/status.hpp"

namespace osmp::mpi {

// keys[p]: process p's place in the hardware, coarsest first (node index,
// package index, ..., rank within the last level); all keys have the same
// length and differ. Returns grid_rank[p] (row-major in dims) so that
// processes sharing a key prefix hold a compact region: recursive bisection,
// splitting the processes into two halves along the coarsest key level that
// still differs (whole nodes, then whole packages, ...) and the cells along
// the dimension where a cut costs least (w_i / extent_i; empty weights = 1).
Result<std::vector<int>> compact_assignment(std::span<const int> dims, std::span<const double> weights,
                                            const std::vector<std::vector<int>>& keys);

}  // namespace osmp::mpi
