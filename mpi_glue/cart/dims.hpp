// mpi_glue/cart: weighted, hardware-aware Cartesian factorization as pure
// arithmetic (Niethammer & Rabenseifner, EuroMPI 2019, sections 3-6). No MPI
// here: mpi_glue/mpi wraps these for MPI_Dims_create_weighted and
// MPI_Cart_create_weighted and maps the Status codes to MPI error classes.
//
// The objective (paper eq. 4 and section 5.1). A factorization (d_i) of N
// into ndims factors is chosen by, in this order:
//   1. the smallest weighted sum  sum_i w_i * d_i  over ALL dims (preset ones
//      included; they add a constant, so the argmin is that of the free dims);
//   2. then the smallest spread   max_i d_i - min_i d_i  over all dims;
//   3. then the smallest largest factor  max_i d_i  over all dims
//      (2 and 3 see the preset entries too: the paper states them for the
//      whole factorization (n_i)_{i=0..d-1}; they only break exact ties);
//   4. then, to make the answer unique, the lexicographically greatest
//      factors when the dims are listed by increasing weight (equal weights in
//      index order). For equal weights this is MPI_Dims_create's
//      non-increasing order: 72 in 2-D gives 9 x 8.
// Weights, and weighted sums, within a relative 1e-12 of each other count as
// equal, so 3 * (1/12) ties with 4 * (1/16) although neither is exact in
// binary. Scaling every weight by the same factor changes nothing.
//
// The search is exhaustive, over the non-increasing factor tuples of the free
// product with the weights sorted ascending (by the rearrangement inequality
// the best tuple is among them), pruned by the continuous minimum of the sum
// (search.cpp). nnodes up to INT_MAX with 8 dims takes at most ~0.1 s.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/status.hpp"

namespace osmp::cart {

// The paper's section 6 refinements of the objective ("further improvements
// are possible"), off by default so that the paper's tables come out as
// printed. With `refined`, at each level l and dim i:
//   - n_i(l) = 1: the term is dropped (no communication along i at this level);
//   - n_i(l) = 2 and dim i not periodic: the term counts once (every unit has
//     one neighbour along i at this level, not two).
// Where the choice differs: 6 processes with w = (1, 2) give 3 x 2 under eq. (4)
// (3 + 4 = 7) and 6 x 1 refined (6 + 0: nothing to exchange along dim 1).
struct CostModel {
  bool refined = false;
  std::vector<bool> periodic;  // per dim; empty: every dim periodic
};

// Fills the zero entries of `dims` (ndims entries; non-zero entries are fixed,
// as in MPI_Dims_create) with the best factorization of nnodes under
// `weights` (ndims positive finite numbers, or empty for equal weights).
// On error `dims` is unchanged.
Status dims_create_weighted(int nnodes, int ndims, std::span<const double> weights, std::span<int> dims,
                            const CostModel& model = {});

// The checks dims_create_weighted makes, for callers that want to name the
// argument at fault: weights is empty or has ndims positive finite entries;
// nnodes is in [1, INT_MAX], every preset entry is >= 0 and divides nnodes,
// their product divides nnodes, and equals it when no entry is free.
Status check_weights(std::span<const double> weights, int ndims);
Status check_preset(std::int64_t nnodes, std::span<const int> dims);

// Paper eq. (6): the weights of a data mesh with extents g_i (G = prod g_i),
// halo widths h_i and extra cost factors c_i (empty: all 1):
//   w_i = c_i * h_i * G / g_i = c_i * h_i * prod_{j != i} g_j,
// the halo volume one cut perpendicular to dim i costs. Then sum_i w_i d_i is
// the halo volume (one way) of a periodic d_0 x ... grid: a 580 x 1800 mesh
// gives (1800, 580) and 12 processes come out 2 x 6 (paper Figure 3).
Result<std::vector<double>> weights_from_mesh(std::span<const std::int64_t> mesh, std::span<const double> halo = {},
                                              std::span<const double> cost = {});

// sum_i w_i * dims_i in the caller's units (empty weights: all 1).
double weighted_cost(std::span<const double> weights, std::span<const int> dims);

// Multi-level factorization (paper sections 3.3, 5.2 and 6).
struct MultilevelDims {
  std::vector<int> level_sizes;          // N^(l), top-down (nodes first)
  std::vector<std::vector<int>> levels;  // levels[l][i] = n_i^(l); prod_i = N^(l)
  std::vector<int> dims;                 // d_i = prod_l n_i^(l)
  std::vector<double> level_cost;        // sum_i w_i prod_{k<=l} n_i^(k) (eq. 4 / (2G/N))
  std::vector<double> level_objective;   // what level l minimised: level_cost, or refined
};

// Factors level by level from the top: level l minimises eq. (4), i.e. runs
// the single-level search with weights w_i * prod_{k<l} n_i^(k). Preset
// entries (0 = free) fix the FINAL d_i; each level then only takes factors
// that keep every preset reachable by the levels below (an extension: the
// paper falls back to one level when dims are preset). Level sizes must be
// >= 1 and multiply to at most INT_MAX.
Result<MultilevelDims> dims_create_multilevel(std::span<const int> level_sizes, int ndims,
                                              std::span<const double> weights, std::span<const int> preset = {},
                                              const CostModel& model = {});

// The value level l minimises for factors n (this level's) with w_i R_i
// (the weights times the factors of the levels above): eq. (4) or refined.
double level_objective(std::span<const double> scaled_weights, std::span<const int> n, const CostModel& model);

// The per-level factors that MPI_Cart_create's default (no reordering) gives
// a row-major `dims` grid when consecutive ranks fill the finest level first
// (paper Table 1, first column): each level's block of consecutive ranks must
// be a box of the grid, else an error names the level.
Result<std::vector<std::vector<int>>> implied_levels_row_major(std::span<const int> dims,
                                                               std::span<const int> level_sizes);

}  // namespace osmp::cart
