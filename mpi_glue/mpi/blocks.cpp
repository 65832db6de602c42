#include "mpi_glue/mpi/blocks.hpp"

#include <algorithm>
#include <numeric>

#include "mpi_glue/cart/coords.hpp"

namespace osmp::mpi {
namespace {

struct Work {
  std::span<const int> dims;
  std::span<const double> weights;
  const std::vector<std::vector<int>>& keys;
  std::vector<std::vector<int>> coords;  // per grid rank
  std::vector<int> out;
};

// The dimension to cut `cells` across so that the first `left` cells are one
// side: cheapest (w_i / extent_i) among the cuts that leave whole slabs (left
// a multiple of the cross-section), else the cheapest.
int cut_dim(const Work& w, std::span<const int> cells, std::size_t left) {
  int best = -1, fallback = 0;
  double best_cost = 0, fallback_cost = 0;
  for (std::size_t i = 0; i < w.dims.size(); ++i) {
    int lo = w.coords[static_cast<std::size_t>(cells[0])][i], hi = lo;
    for (int c : cells) {
      lo = std::min(lo, w.coords[static_cast<std::size_t>(c)][i]);
      hi = std::max(hi, w.coords[static_cast<std::size_t>(c)][i]);
    }
    if (hi == lo) continue;
    const std::size_t extent = static_cast<std::size_t>(hi - lo + 1);
    const double cost = (w.weights.empty() ? 1.0 : w.weights[i]) / static_cast<double>(extent);
    if (fallback_cost == 0 || cost < fallback_cost) fallback = static_cast<int>(i), fallback_cost = cost;
    const bool slabs = cells.size() % extent == 0 && left % (cells.size() / extent) == 0;
    if (slabs && (best < 0 || cost < best_cost)) best = static_cast<int>(i), best_cost = cost;
  }
  return best >= 0 ? best : fallback;
}

// procs sorted by key; cells.size() == procs.size().
void assign(Work& w, std::span<const int> procs, std::span<int> cells, std::size_t depth) {
  if (procs.size() == 1) {
    w.out[static_cast<std::size_t>(procs[0])] = cells[0];
    return;
  }
  const std::size_t len = w.keys[static_cast<std::size_t>(procs[0])].size();
  auto key = [&](int p, std::size_t d) { return w.keys[static_cast<std::size_t>(p)][d]; };
  while (depth + 1 < len && key(procs.front(), depth) == key(procs.back(), depth)) ++depth;
  // Group boundaries at this depth; split near the middle on a boundary.
  std::size_t split = 0, best_gap = procs.size();
  for (std::size_t k = 1; k < procs.size(); ++k) {
    if (key(procs[k], depth) == key(procs[k - 1], depth)) continue;
    std::size_t gap = k > procs.size() / 2 ? k - procs.size() / 2 : procs.size() / 2 - k;
    if (gap < best_gap) best_gap = gap, split = k;
  }
  if (split == 0) split = procs.size() / 2;  // the last level: individual processes
  const int dim = cut_dim(w, cells, split);
  std::sort(cells.begin(), cells.end(), [&](int a, int b) {
    int ca = w.coords[static_cast<std::size_t>(a)][static_cast<std::size_t>(dim)];
    int cb = w.coords[static_cast<std::size_t>(b)][static_cast<std::size_t>(dim)];
    return ca != cb ? ca < cb : a < b;
  });
  assign(w, procs.first(split), cells.first(split), depth);
  assign(w, procs.subspan(split), cells.subspan(split), depth);
}

}  // namespace

Result<std::vector<int>> compact_assignment(std::span<const int> dims, std::span<const double> weights,
                                            const std::vector<std::vector<int>>& keys) {
  long long n = 1;
  for (int d : dims) n *= d;
  if (n != static_cast<long long>(keys.size()))
    return Status(Errc::invalid_argument, cat("the grid has ", n, " positions for ", keys.size(), " processes"));
  Work w{dims, weights, keys, {}, std::vector<int>(keys.size(), -1)};
  for (int r = 0; r < static_cast<int>(n); ++r) {
    OSMP_ASSIGN_OR_RETURN(std::vector<int> c, cart::rank_to_coords(dims, r));
    w.coords.push_back(std::move(c));
  }
  std::vector<int> procs(keys.size()), cells(keys.size());
  std::iota(procs.begin(), procs.end(), 0);
  std::iota(cells.begin(), cells.end(), 0);
  std::sort(procs.begin(), procs.end(),
            [&](int a, int b) { return keys[static_cast<std::size_t>(a)] < keys[static_cast<std::size_t>(b)]; });
  if (!procs.empty()) assign(w, procs, cells, 0);
  return w.out;
}

}  // namespace osmp::mpi
