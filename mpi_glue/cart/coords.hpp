// mpi_glue/cart: coordinates in a multi-level Cartesian grid, and the halo
// edges a mapping of grid positions to nodes cuts (paper section 5.2).
//
// Grids are row-major like MPI_Cart_coords / MPI_Cart_rank: the last dim
// varies fastest. A multi-level grid is given by its per-level factors
// levels[l][i] = n_i^(l) (MultilevelDims::levels). A process is named by its
// index at each level: level_index[0] its node, level_index[1] its package
// within the node, ..., each in [0, N^(l)) with N^(l) = prod_i n_i^(l). Its
// level-l coordinates are level_index[l] in the row-major n^(l) grid, and its
// final coordinate in dim i is the mixed-radix number, coarsest level first:
//   c_i = sum_l c_i^(l) * prod_{k>l} n_i^(k),
// so each node (and each package within it) holds a box of the final grid.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/status.hpp"

namespace osmp::cart {

// Row-major rank <-> coordinates. Dims must be >= 1 and multiply to at most
// INT_MAX; rank and coords out of range are errors (no periodic wrap).
Result<std::vector<int>> rank_to_coords(std::span<const int> dims, int rank);
Result<int> coords_to_rank(std::span<const int> dims, std::span<const int> coords);

struct Place {
  std::vector<std::vector<int>> level_coords;  // [l][i] = c_i^(l)
  std::vector<int> coords;                     // final c_i
  int rank = 0;                                // row-major rank of coords in prod_l n^(l)
};

// A process's coordinates from its per-level indices.
Result<Place> place_of(const std::vector<std::vector<int>>& levels, std::span<const int> level_index);

// The inverse: the per-level indices of the process at row-major `rank` of
// the final grid.
Result<std::vector<int>> level_index_of(const std::vector<std::vector<int>>& levels, int rank);

// owner[r] for every row-major rank r of the final grid: which unit of
// `level` (0: nodes) holds it, numbering units as the mixed-radix number of
// the indices of levels 0..level. For a reordered communicator (MPI_Cart_
// create_weighted) with level 0: the node of each grid position.
Result<std::vector<int>> level_owner(const std::vector<std::vector<int>>& levels, int level);

// owner[r] = r / block for r < nprocs: MPI_Cart_create without reordering
// when ranks fill nodes of `block` processes in order.
Result<std::vector<int>> block_owner(int nprocs, int block);

// Halo edges between different owners in a dims grid: each position and dim
// counts its edge to coordinate + 1 (wrapping where periods[i] != 0; empty
// periods: none periodic). A periodic dim of size 2 thus has two edges per
// pair, one per direction of the halo exchange, as MPI_Cart_shift sees it.
struct CutEdges {
  std::vector<std::int64_t> per_dim;
  std::int64_t total = 0;
};
Result<CutEdges> count_cut_edges(std::span<const int> dims, std::span<const int> periods, std::span<const int> owner);

}  // namespace osmp::cart
