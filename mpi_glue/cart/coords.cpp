#include "mpi_glue/cart/coords.hpp"

#include <climits>

namespace osmp::cart {

namespace {

using i64 = std::int64_t;

// Product of a grid's dims, each >= 1, at most INT_MAX.
Result<i64> grid_size(std::span<const int> dims, const char* name) {
  if (dims.empty()) return Status(Errc::invalid_argument, cat(name, " is empty"));
  i64 total = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 1) return Status(Errc::invalid_argument, cat(name, "[", i, "] = ", dims[i], " is less than 1"));
    total *= dims[i];
    if (total > INT_MAX) return Status(Errc::invalid_argument, cat(name, " multiply to more than ", INT_MAX));
  }
  return total;
}

// The level sizes N^(l); every level has the same number of dims, and all
// levels together at most INT_MAX processes.
Result<std::vector<int>> level_sizes(const std::vector<std::vector<int>>& levels) {
  if (levels.empty()) return Status(Errc::invalid_argument, "levels is empty");
  std::vector<int> sizes;
  i64 total = 1;
  for (std::size_t l = 0; l < levels.size(); ++l) {
    if (levels[l].size() != levels[0].size()) {
      return Status(Errc::invalid_argument,
                    cat("levels[", l, "] has ", levels[l].size(), " dims but levels[0] has ", levels[0].size()));
    }
    OSMP_ASSIGN_OR_RETURN(const i64 size, grid_size(levels[l], cat("levels[", l, "]").c_str()));
    total *= size;
    if (total > INT_MAX)
      return Status(Errc::invalid_argument, cat("the levels hold more than ", INT_MAX, " processes"));
    sizes.push_back(static_cast<int>(size));
  }
  return sizes;
}

// Final dims d_i = prod_l n_i^(l) of valid levels.
std::vector<int> final_dims(const std::vector<std::vector<int>>& levels) {
  std::vector<int> dims(levels[0].size(), 1);
  for (const auto& row : levels)
    for (std::size_t i = 0; i < row.size(); ++i) dims[i] *= row[i];
  return dims;
}

std::vector<int> coords_unchecked(std::span<const int> dims, i64 rank) {
  std::vector<int> c(dims.size());
  for (std::size_t i = dims.size(); i-- > 0;) {
    c[i] = static_cast<int>(rank % dims[i]);
    rank /= dims[i];
  }
  return c;
}

i64 rank_unchecked(std::span<const int> dims, std::span<const int> coords) {
  i64 r = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) r = r * dims[i] + coords[i];
  return r;
}

}  // namespace

Result<std::vector<int>> rank_to_coords(std::span<const int> dims, int rank) {
  OSMP_ASSIGN_OR_RETURN(const i64 total, grid_size(dims, "dims"));
  if (rank < 0 || rank >= total)
    return Status(Errc::invalid_argument, cat("rank ", rank, " is outside [0, ", total, ")"));
  return coords_unchecked(dims, rank);
}

Result<int> coords_to_rank(std::span<const int> dims, std::span<const int> coords) {
  OSMP_RETURN_IF_ERROR(grid_size(dims, "dims").status());
  if (coords.size() != dims.size()) {
    return Status(Errc::invalid_argument,
                  cat("coords has ", coords.size(), " entries but the grid ", dims.size(), " dims"));
  }
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (coords[i] < 0 || coords[i] >= dims[i]) {
      return Status(Errc::invalid_argument, cat("coords[", i, "] = ", coords[i], " is outside [0, ", dims[i], ")"));
    }
  }
  return static_cast<int>(rank_unchecked(dims, coords));
}

Result<Place> place_of(const std::vector<std::vector<int>>& levels, std::span<const int> level_index) {
  OSMP_ASSIGN_OR_RETURN(const std::vector<int> sizes, level_sizes(levels));
  if (level_index.size() != levels.size()) {
    return Status(Errc::invalid_argument,
                  cat("level_index has ", level_index.size(), " entries but there are ", levels.size(), " levels"));
  }
  Place p;
  p.coords.assign(levels[0].size(), 0);
  for (std::size_t l = 0; l < levels.size(); ++l) {
    if (level_index[l] < 0 || level_index[l] >= sizes[l]) {
      return Status(Errc::invalid_argument,
                    cat("level_index[", l, "] = ", level_index[l], " is outside [0, ", sizes[l], ")"));
    }
    p.level_coords.push_back(coords_unchecked(levels[l], level_index[l]));
    // Horner over the levels: c_i = c_i * n_i^(l) + c_i^(l).
    for (std::size_t i = 0; i < p.coords.size(); ++i) p.coords[i] = p.coords[i] * levels[l][i] + p.level_coords[l][i];
  }
  p.rank = static_cast<int>(rank_unchecked(final_dims(levels), p.coords));
  return p;
}

Result<std::vector<int>> level_index_of(const std::vector<std::vector<int>>& levels, int rank) {
  OSMP_RETURN_IF_ERROR(level_sizes(levels).status());
  OSMP_ASSIGN_OR_RETURN(std::vector<int> c, rank_to_coords(final_dims(levels), rank));
  std::vector<int> index(levels.size());
  std::vector<int> level_coords(c.size());
  for (std::size_t l = levels.size(); l-- > 0;) {  // finest level = lowest digit
    for (std::size_t i = 0; i < c.size(); ++i) {
      level_coords[i] = c[i] % levels[l][i];
      c[i] /= levels[l][i];
    }
    index[l] = static_cast<int>(rank_unchecked(levels[l], level_coords));
  }
  return index;
}

Result<std::vector<int>> level_owner(const std::vector<std::vector<int>>& levels, int level) {
  OSMP_ASSIGN_OR_RETURN(const std::vector<int> sizes, level_sizes(levels));
  if (level < 0 || level >= static_cast<int>(levels.size())) {
    return Status(Errc::invalid_argument, cat("level ", level, " is outside [0, ", levels.size(), ")"));
  }
  i64 total = 1;
  for (int s : sizes) total *= s;
  std::vector<int> owner(static_cast<std::size_t>(total));
  for (i64 r = 0; r < total; ++r) {
    OSMP_ASSIGN_OR_RETURN(const std::vector<int> index, level_index_of(levels, static_cast<int>(r)));
    i64 unit = 0;
    for (int l = 0; l <= level; ++l) unit = unit * sizes[l] + index[l];
    owner[r] = static_cast<int>(unit);
  }
  return owner;
}

Result<std::vector<int>> block_owner(int nprocs, int block) {
  if (nprocs < 1) return Status(Errc::invalid_argument, cat("nprocs = ", nprocs, " is less than 1"));
  if (block < 1) return Status(Errc::invalid_argument, cat("block = ", block, " is less than 1"));
  std::vector<int> owner(nprocs);
  for (int r = 0; r < nprocs; ++r) owner[r] = r / block;
  return owner;
}

Result<CutEdges> count_cut_edges(std::span<const int> dims, std::span<const int> periods, std::span<const int> owner) {
  OSMP_ASSIGN_OR_RETURN(const i64 total, grid_size(dims, "dims"));
  if (!periods.empty() && periods.size() != dims.size()) {
    return Status(Errc::invalid_argument, cat("periods has ", periods.size(), " entries but dims has ", dims.size()));
  }
  if (static_cast<i64>(owner.size()) != total) {
    return Status(Errc::invalid_argument,
                  cat("owner has ", owner.size(), " entries but the grid ", total, " positions"));
  }
  CutEdges cut;
  cut.per_dim.assign(dims.size(), 0);
  i64 stride = total;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    stride /= dims[i];  // row-major stride of dim i
    const bool periodic = !periods.empty() && periods[i] != 0;
    for (i64 r = 0; r < total; ++r) {
      const i64 c = (r / stride) % dims[i];
      i64 next = r + stride;
      if (c + 1 == dims[i]) {
        if (!periodic) continue;
        next = r - c * stride;  // wraps to coordinate 0
      }
      if (owner[r] != owner[next]) ++cut.per_dim[i];
    }
    cut.total += cut.per_dim[i];
  }
  return cut;
}

}  // namespace osmp::cart
