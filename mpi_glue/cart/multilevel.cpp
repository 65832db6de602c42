// dims_create_multilevel and the levels implied by a row-major grid.
#include <climits>
#include <optional>

#include "mpi_glue/cart/dims.hpp"
#include "mpi_glue/cart/search.hpp"

namespace osmp::cart {

namespace {

using i64 = std::int64_t;

Result<i64> product_of_levels(std::span<const int> level_sizes) {
  if (level_sizes.empty()) return Status(Errc::invalid_argument, "level_sizes is empty");
  i64 total = 1;
  for (std::size_t l = 0; l < level_sizes.size(); ++l) {
    if (level_sizes[l] < 1) {
      return Status(Errc::invalid_argument, cat("level_sizes[", l, "] = ", level_sizes[l], " is less than 1"));
    }
    total *= level_sizes[l];  // total <= INT_MAX before, so no overflow
    if (total > INT_MAX) {
      return Status(Errc::invalid_argument,
                    cat("the level sizes multiply to more than ", INT_MAX, " (at level_sizes[", l, "])"));
    }
  }
  return total;
}

std::vector<long double> user_weights(std::span<const double> weights, int ndims) {
  if (weights.empty()) return std::vector<long double>(ndims, 1.0L);
  return std::vector<long double>(weights.begin(), weights.end());
}

// The level's problem (eq. 4): weights w_i * prod_{k<l} n_i^(k), and a preset
// dim may take at most what it still lacks, preset_i / prod_{k<l} n_i^(k).
detail::LevelProblem level_problem(int size, i64 rest, const std::vector<long double>& base,
                                   const std::vector<i64>& reached, std::span<const int> preset,
                                   const CostModel& model) {
  detail::LevelProblem p;
  p.total = size;
  p.rest = rest;
  p.refined = model.refined;
  for (std::size_t i = 0; i < base.size(); ++i) p.open.push_back(!model.periodic.empty() && !model.periodic[i]);
  std::vector<long double> w(base.size());
  p.cap.assign(base.size(), 0);
  for (std::size_t i = 0; i < base.size(); ++i) {
    w[i] = base[i] * static_cast<long double>(reached[i]);
    if (!preset.empty() && preset[i] > 0) p.cap[i] = preset[i] / reached[i];
  }
  p.weight = detail::snap_weights(std::move(w));
  return p;
}

}  // namespace

Result<MultilevelDims> dims_create_multilevel(std::span<const int> level_sizes, int ndims,
                                              std::span<const double> weights, std::span<const int> preset,
                                              const CostModel& model) {
  OSMP_ASSIGN_OR_RETURN(const i64 total, product_of_levels(level_sizes));
  if (ndims < 1) return Status(Errc::invalid_argument, cat("ndims = ", ndims, " is less than 1"));
  OSMP_RETURN_IF_ERROR(check_weights(weights, ndims));
  if (!preset.empty() && preset.size() != static_cast<std::size_t>(ndims)) {
    return Status(Errc::invalid_argument, cat("preset dims has ", preset.size(), " entries but ndims = ", ndims));
  }
  OSMP_RETURN_IF_ERROR(check_preset(total, preset));
  if (!model.periodic.empty() && model.periodic.size() != static_cast<std::size_t>(ndims)) {
    return Status(Errc::invalid_argument, cat("periods has ", model.periodic.size(), " entries but ndims = ", ndims));
  }

  const std::vector<long double> user = user_weights(weights, ndims);
  const std::vector<long double> base = detail::normalize_weights(user);
  MultilevelDims out;
  out.level_sizes.assign(level_sizes.begin(), level_sizes.end());
  std::vector<i64> reached(ndims, 1);  // prod_{k<l} n_i^(k)
  i64 rest = total;
  for (std::size_t l = 0; l < level_sizes.size(); ++l) {
    rest /= level_sizes[l];
    std::vector<double> scaled(ndims);
    for (int i = 0; i < ndims; ++i) scaled[i] = static_cast<double>(user[i] * static_cast<long double>(reached[i]));
    const std::vector<i64> f = detail::solve_level(level_problem(level_sizes[l], rest, base, reached, preset, model));
    if (f.empty()) {
      return Status(Errc::internal, cat("no factorization of level ", l, " (size ", level_sizes[l],
                                        ") keeps the preset dims reachable"));
    }
    std::vector<int>& row = out.levels.emplace_back(ndims);
    long double cost = 0;
    for (int i = 0; i < ndims; ++i) {
      row[i] = static_cast<int>(f[i]);
      reached[i] *= f[i];
      cost += user[i] * static_cast<long double>(reached[i]);
    }
    out.level_cost.push_back(static_cast<double>(cost));
    out.level_objective.push_back(level_objective(scaled, row, model));
  }
  out.dims.assign(reached.begin(), reached.end());
  return out;
}

double level_objective(std::span<const double> scaled_weights, std::span<const int> n, const CostModel& model) {
  long double sum = 0;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const bool open = !model.periodic.empty() && !model.periodic[i];
    sum += scaled_weights[i] * detail::cost_factor(n[i], model.refined, open);
  }
  return static_cast<double>(sum);
}

namespace {

// The shape of `block` consecutive ranks of a row-major grid, when it is a
// box: full trailing dims, then a divisor of the next one.
std::optional<std::vector<int>> box_of(std::span<const int> dims, i64 block) {
  std::vector<int> shape(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 0 && block > 1;) {
    if (block % dims[i] == 0) {
      shape[i] = dims[i];
      block /= dims[i];
    } else if (dims[i] % block == 0) {
      shape[i] = static_cast<int>(block);
      block = 1;
    } else {
      return std::nullopt;
    }
  }
  if (block != 1) return std::nullopt;
  return shape;
}

}  // namespace

Result<std::vector<std::vector<int>>> implied_levels_row_major(std::span<const int> dims,
                                                               std::span<const int> level_sizes) {
  OSMP_ASSIGN_OR_RETURN(const i64 total, product_of_levels(level_sizes));
  if (dims.empty()) return Status(Errc::invalid_argument, "dims is empty");
  i64 grid = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 1) return Status(Errc::invalid_argument, cat("dims[", i, "] = ", dims[i], " is less than 1"));
    grid *= dims[i];
    if (grid > total) break;
  }
  if (grid != total) {
    return Status(Errc::invalid_argument, cat("the dims do not multiply to the ", total, " processes of the levels"));
  }
  const std::size_t levels = level_sizes.size();
  std::vector<std::vector<int>> out(levels);
  std::vector<int> inner(dims.size(), 1);  // the box of one unit of the level below
  i64 block = 1;
  for (std::size_t l = levels; l-- > 0;) {
    block *= level_sizes[l];
    std::optional<std::vector<int>> box = box_of(dims, block);
    if (!box) {
      return Status(Errc::invalid_argument,
                    cat("level ", l, ": a block of ", block, " consecutive ranks is not a box of the row-major grid ",
                        detail::times(dims)));
    }
    out[l].resize(dims.size());
    for (std::size_t i = 0; i < dims.size(); ++i) out[l][i] = (*box)[i] / inner[i];
    inner = *box;
  }
  return out;
}

}  // namespace osmp::cart
