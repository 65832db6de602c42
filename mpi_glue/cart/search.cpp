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
//
// Free dims are visited by class, then by increasing weight. A class holds
// the dims whose cost function h is the same (one class unless refined:
// periodic and open dims); within a class the best tuple has non-increasing
// factors by the rearrangement inequality (h does not decrease), so only
// those are visited, while every split of the product between classes is.
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
  real term(int dim, i64 f) const;
  int class_of(int dim) const { return p_.refined && p_.open[static_cast<std::size_t>(dim)] ? 1 : 0; }

  const LevelProblem& p_;
  std::vector<int> order_;
  std::vector<int> free_;                  // free dims, by class then as in order_
  std::vector<int> capped_;                // capped dims in order_
  std::vector<std::vector<real>> rest_w_;  // [t] = weights of free_[t..], ascending
  std::vector<std::size_t> class_end_;     // [t] = end of free_[t]'s class in free_
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
  std::stable_sort(free_.begin(), free_.end(), [&](int a, int b) { return class_of(a) < class_of(b); });
  class_end_.assign(free_.size(), free_.size());
  for (std::size_t t = free_.size(); t-- > 0;) {
    const bool last = t + 1 == free_.size() || class_of(free_[t + 1]) != class_of(free_[t]);
    class_end_[t] = last ? t + 1 : class_end_[t + 1];
  }
  rest_w_.resize(free_.size() + 1);
  for (std::size_t t = free_.size(); t-- > 0;) {
    rest_w_[t] = rest_w_[t + 1];
    rest_w_[t].insert(std::upper_bound(rest_w_[t].begin(), rest_w_[t].end(), p.weight[free_[t]]), p.weight[free_[t]]);
  }
}

real Search::term(int dim, i64 f) const {
  return p_.weight[dim] * cost_factor(f, p_.refined, p_.refined && p_.open[static_cast<std::size_t>(dim)]);
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
    capped(j + 1, prod * f, need * (cap / f), partial + term(dim, f));
  }
}

// Within a class, factors do not increase (`limit`: the previous one; a class
// starts with limit = rem). In the last class the dims share rem exactly, so
// its largest factor is at least rem^(1/m); an earlier class may take any
// divisor of rem.
void Search::free_dims(std::size_t j, i64 rem, i64 limit, real partial) {
  const int dim = free_[j];
  if (j + 1 == free_.size()) {
    if (rem > limit) return;
    f_[dim] = rem;
    return complete(partial + term(dim, rem));
  }
  if (hopeless(j, rem, partial)) return;
  const bool last_class = class_end_[j] == free_.size();
  const std::size_t m = class_end_[j] - j;
  const i64 hi = std::min(limit, rem);
  auto it = !last_class
                ? divs_.begin()
                : std::partition_point(divs_.begin(), divs_.end(), [&](i64 f) { return !pow_at_least(f, m, rem); });
  for (; it != divs_.end() && *it <= hi; ++it) {
    if (rem % *it != 0) continue;
    f_[dim] = *it;
    const i64 next = rem / *it;
    free_dims(j + 1, next, class_end_[j] == j + 1 ? next : *it, partial + term(dim, *it));
  }
}

// The continuous minimum of sum_{t>=j} w_t f_t with prod f_t = rem and every
// f_t >= 1 (water-filling over the remaining weights, ascending: the k
// lightest dims take f_t = lambda / w_t, the rest 1; k is the largest for
// which lambda >= w_{k-1}). Plain AM-GM, which lets heavy dims take f < 1, is
// far too weak for skewed weights. Refined terms are at least w (f - 1), so
// the sum of those weights comes off. The slack keeps rounding in the bound
// from cutting a tuple that ties.
bool Search::hopeless(std::size_t j, i64 rem, real partial) const {
  const std::vector<real>& w = rest_w_[j];
  real suffix = 0;
  for (real x : w) suffix += x;
  real log_prod = std::log(static_cast<real>(rem));
  real bound = suffix, before = 0;
  for (std::size_t k = 1; k <= w.size(); ++k) {
    log_prod += std::log(w[k - 1]);
    before += w[k - 1];
    const real lambda = std::exp(log_prod / static_cast<real>(k));
    if (lambda < w[k - 1] * (1 - kRelTol)) break;
    bound = static_cast<real>(k) * lambda + (suffix - before);
  }
  if (p_.refined) bound -= suffix;
  const real lower = partial + bound - std::fabs(bound) * kRelTol;
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

long double cost_factor(std::int64_t f, bool refined, bool open) {
  if (!refined || f >= 3) return static_cast<long double>(f);
  if (f == 1) return 0;
  return open ? 1 : 2;
}

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
