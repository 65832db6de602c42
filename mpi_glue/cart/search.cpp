#include "mpi_glue/cart/search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace osmp::cart::detail {

namespace {

using i64 = std::int64_t;
using real = long double;

// f^m >= n, for 1 <= f, n < 2^31 (acc < n before each product: no overflow).
bool pow_at_least(i64 f, std::size_t m, i64 n) {
  i64 acc = 1;
  for (std::size_t t = 0; t < m && acc < n; ++t) acc *= f;
  return acc >= n;
}

// Dims ordered by weight, equal weights by index: the order in which the
// factors are non-increasing, and the order of the final tie-break.
std::vector<int> weight_order(const std::vector<real>& weight) {
  std::vector<int> order(weight.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return weight[a] < weight[b]; });
  return order;
}

// Two passes over the same tree: the first finds the smallest weighted sum,
// the second picks, among the tuples within kRelTol of it, the best by
// spread, largest factor and order. Two passes keep "tied" well defined
// (a running comparison with a tolerance is not transitive).
class Search {
 public:
  explicit Search(const LevelProblem& p);
  std::vector<i64> run();

 private:
  void capped(std::size_t j, i64 prod, i64 need, real partial);
  void free_dims(std::size_t j, i64 rem, i64 limit, real partial);
  bool hopeless(std::size_t j, i64 rem, real partial) const;
  void complete(real sum);
  bool beats_best() const;

  const LevelProblem& p_;
  std::vector<int> order_;
  std::vector<int> free_;       // free dims in order_
  std::vector<int> capped_;     // capped dims in order_
  std::vector<real> log_w_;     // [t] = log weight[free_[t]]
  std::vector<real> w_suffix_;  // [t] = sum_{s >= t} weight[free_[s]]
  std::vector<i64> divs_;
  std::vector<i64> f_;
  bool select_ = false;
  real best_sum_ = std::numeric_limits<real>::infinity();
  real threshold_ = 0;
  std::vector<i64> best_;
};

Search::Search(const LevelProblem& p)
    : p_(p), order_(weight_order(p.weight)), divs_(divisors(p.total)), f_(p.weight.size(), 1) {
  for (int d : order_) (p.cap[d] == 0 ? free_ : capped_).push_back(d);
  w_suffix_.assign(free_.size() + 1, 0);
  for (std::size_t t = free_.size(); t-- > 0;) w_suffix_[t] = w_suffix_[t + 1] + p.weight[free_[t]];
  for (int d : free_) log_w_.push_back(std::log(p.weight[d]));
}

std::vector<i64> Search::run() {
  capped(0, 1, 1, 0);
  if (!std::isfinite(best_sum_)) return {};
  select_ = true;
  threshold_ = best_sum_ * (1 + kRelTol);
  capped(0, 1, 1, 0);
  return best_;
}

// Capped dims first: f | cap, f | what is left of total, and the still
// needed prod(cap / f) must keep dividing `rest` (it only grows).
void Search::capped(std::size_t j, i64 prod, i64 need, real partial) {
  if (j == capped_.size()) {
    if (!free_.empty()) return free_dims(0, p_.total / prod, p_.total / prod, partial);
    if (prod == p_.total && need == p_.rest) complete(partial);
    return;
  }
  const int dim = capped_[j];
  const i64 cap = p_.cap[dim];
  const i64 left = p_.total / prod;
  for (i64 f : divs_) {
    if (f > left || f > cap) break;
    if (cap % f != 0 || left % f != 0 || p_.rest % (need * (cap / f)) != 0) continue;
    f_[dim] = f;
    capped(j + 1, prod * f, need * (cap / f), partial + p_.weight[dim] * static_cast<real>(f));
  }
}

// Free dims by increasing weight take non-increasing factors: the largest
// remaining factor is at least rem^(1/m) and at most the previous one.
void Search::free_dims(std::size_t j, i64 rem, i64 limit, real partial) {
  const std::size_t m = free_.size() - j;
  const int dim = free_[j];
  const real w = p_.weight[dim];
  if (m == 1) {
    if (rem > limit) return;
    f_[dim] = rem;
    return complete(partial + w * static_cast<real>(rem));
  }
  if (hopeless(j, rem, partial)) return;
  const i64 hi = std::min(limit, rem);
  auto it = std::partition_point(divs_.begin(), divs_.end(),
                                 [&](i64 f) { return !pow_at_least(f, m, rem); });
  for (; it != divs_.end() && *it <= hi; ++it) {
    if (rem % *it != 0) continue;
    f_[dim] = *it;
    free_dims(j + 1, rem / *it, *it, partial + w * static_cast<real>(*it));
  }
}

// The continuous minimum of sum_{t>=j} w_t f_t with prod f_t = rem and every
// f_t >= 1 (water-filling: the k lightest dims take f_t = lambda / w_t, the
// rest 1; k is the largest for which lambda >= w_{k-1}). Plain AM-GM, which
// lets heavy dims take f < 1, is far too weak for skewed weights. The slack
// keeps rounding in the bound from cutting a tuple that ties.
bool Search::hopeless(std::size_t j, i64 rem, real partial) const {
  real log_prod = std::log(static_cast<real>(rem));
  real bound = 0;
  for (std::size_t k = 1; j + k <= free_.size(); ++k) {
    log_prod += log_w_[j + k - 1];
    const real lambda = std::exp(log_prod / static_cast<real>(k));
    if (lambda < p_.weight[free_[j + k - 1]] * (1 - kRelTol)) break;
    bound = static_cast<real>(k) * lambda + w_suffix_[j + k];
  }
  const real lower = partial + bound * (1 - kRelTol);
  return lower > (select_ ? threshold_ : best_sum_);
}

void Search::complete(real sum) {
  if (!select_) {
    best_sum_ = std::min(best_sum_, sum);
  } else if (sum <= threshold_ && (best_.empty() || beats_best())) {
    best_ = f_;
  }
}

bool Search::beats_best() const {
  auto [amin, amax] = std::minmax_element(f_.begin(), f_.end());
  auto [bmin, bmax] = std::minmax_element(best_.begin(), best_.end());
  if (*amax - *amin != *bmax - *bmin) return *amax - *amin < *bmax - *bmin;
  if (*amax != *bmax) return *amax < *bmax;
  for (int d : order_)
    if (f_[d] != best_[d]) return f_[d] > best_[d];
  return false;
}

}  // namespace

std::vector<std::int64_t> solve_level(const LevelProblem& problem) { return Search(problem).run(); }

std::vector<long double> normalize_weights(const std::vector<long double>& weight) {
  std::vector<long double> out = weight;
  if (out.empty()) return out;
  const long double top = *std::max_element(out.begin(), out.end());
  for (long double& w : out) w /= top;
  return out;
}

// Each weight within kRelTol above the smallest of its group joins it; the
// group's first value is the anchor, so groups cannot drift by chaining.
std::vector<long double> snap_weights(std::vector<long double> weight) {
  const std::vector<int> order = weight_order(weight);
  std::size_t anchor = 0;
  for (std::size_t t = 1; t < order.size(); ++t) {
    const long double base = weight[order[anchor]];
    if (weight[order[t]] <= base * (1 + kRelTol)) {
      weight[order[t]] = base;
    } else {
      anchor = t;
    }
  }
  return weight;
}

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> out{1};
  auto add_prime = [&](std::int64_t p, int e) {
    const std::size_t base = out.size();
    std::int64_t pk = 1;
    for (int k = 1; k <= e; ++k) {
      pk *= p;
      for (std::size_t j = 0; j < base; ++j) out.push_back(out[j] * pk);
    }
  };
  for (std::int64_t p = 2; p * p <= n; ++p) {
    if (n % p != 0) continue;
    int e = 0;
    for (; n % p == 0; n /= p) ++e;
    add_prime(p, e);
  }
  if (n > 1) add_prime(n, 1);
  std::sort(out.begin(), out.end());
  return out;
}

std::string times(std::span<const int> values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += " x ";
    out += std::to_string(values[i]);
  }
  return out;
}

}  // namespace osmp::cart::detail
