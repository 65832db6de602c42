// dims_create_weighted and dims_create_multilevel against an independent
// brute force: every ordered tuple whose product is N, ranked by the paper's
// three criteria (weighted sum, spread, largest factor), then by the order
// dims.hpp documents (lexicographically greatest, dims listed by increasing
// weight). Integer weights keep the sums exact, and draw many ties.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "mpi_glue/cart/dims.hpp"

namespace osmp::cart {
namespace {

using Dims = std::vector<int>;
using Tuples = std::vector<Dims>;

Dims divisors_of(int n) {
  Dims out;
  for (int f = 1; f <= n; ++f)
    if (n % f == 0) out.push_back(f);
  return out;
}

void ordered_tuples(int rem, std::size_t d, const Dims& divs, Dims& cur, Tuples& out) {
  if (cur.size() + 1 == d) {
    cur.push_back(rem);
    out.push_back(cur);
    cur.pop_back();
    return;
  }
  for (int f : divs) {
    if (f > rem) break;
    if (rem % f != 0) continue;
    cur.push_back(f);
    ordered_tuples(rem / f, d, divs, cur, out);
    cur.pop_back();
  }
}

Tuples all_tuples(int n, std::size_t d) {
  Tuples out;
  Dims cur;
  ordered_tuples(n, d, divisors_of(n), cur, out);
  return out;
}

// What factor f costs dim i: f, or refined (section 6): 0 for 1, 1 for 2 on
// an open dim (open[i] = 1), else f. `open` null: eq. (4).
long long cost_of(int f, std::size_t i, const std::vector<int>* open) {
  if (!open || f >= 3) return f;
  return f == 1 ? 0 : ((*open)[i] ? 1 : 2);
}

// Does a rank before b? Sum, spread, largest, then greater in weight order.
bool ranks_before(const Dims& a, const Dims& b, const std::vector<long long>& w,
                  const std::vector<int>* open = nullptr) {
  long long sa = 0, sb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sa += w[i] * cost_of(a[i], i, open), sb += w[i] * cost_of(b[i], i, open);
  if (sa != sb) return sa < sb;
  auto [amin, amax] = std::minmax_element(a.begin(), a.end());
  auto [bmin, bmax] = std::minmax_element(b.begin(), b.end());
  if (*amax - *amin != *bmax - *bmin) return *amax - *amin < *bmax - *bmin;
  if (*amax != *bmax) return *amax < *bmax;
  std::vector<std::size_t> order(a.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto x, auto y) { return w[x] < w[y]; });
  for (std::size_t i : order)
    if (a[i] != b[i]) return a[i] > b[i];
  return false;
}

std::string show(const Dims& d) {
  std::string s;
  for (int x : d) s += std::to_string(x) + " ";
  return s;
}

// A random preset whose fixed entries multiply to a divisor of n.
Dims random_preset(std::mt19937& rng, int n, std::size_t d) {
  Dims preset(d, 0);
  if (rng() % 2) return preset;
  int left = n;
  const bool all = rng() % 8 == 0;
  for (std::size_t i = 0; i < d; ++i) {
    if (all && i + 1 == d) {
      preset[i] = left;
    } else if (all || rng() % 3 == 0) {
      Dims divs = divisors_of(left);
      preset[i] = divs[rng() % divs.size()];
      left /= preset[i];
    }
  }
  if (left != 1 && std::count(preset.begin(), preset.end(), 0) == 0) preset[rng() % d] = 0;
  return preset;
}

std::vector<long long> random_weights(std::mt19937& rng, std::size_t d) {
  std::vector<long long> w(d, 1);
  const auto kind = rng() % 3;  // equal, from {1,2,3}, from 1..6
  for (auto& x : w) x = kind == 0 ? 1 : 1 + static_cast<long long>(rng() % (kind == 1 ? 3 : 6));
  return w;
}

int random_n(std::mt19937& rng) {
  static const int kComposite[] = {360, 720, 1260, 2520, 4096, 4620, 5040, 3696, 4800};
  if (rng() % 4 == 0) return kComposite[rng() % std::size(kComposite)];
  return 1 + static_cast<int>(rng() % 5000);
}

TEST(CartProperty, SingleLevelMatchesBruteForce) {
  std::mt19937 rng(20190911);
  for (int iter = 0; iter < 1500; ++iter) {
    const int n = random_n(rng);
    const std::size_t d = 1 + rng() % 4;
    const std::vector<long long> w = random_weights(rng, d);
    const Dims preset = random_preset(rng, n, d);
    const bool equal = std::all_of(w.begin(), w.end(), [](long long x) { return x == 1; });
    const std::vector<double> wd = equal && rng() % 2 ? std::vector<double>{} : std::vector<double>(w.begin(), w.end());
    SCOPED_TRACE("n=" + std::to_string(n) + " preset=" + show(preset) + " weights=" + show(Dims(w.begin(), w.end())));
    Dims best;
    for (const Dims& t : all_tuples(n, d)) {
      bool fits = true;
      for (std::size_t i = 0; i < d; ++i) fits = fits && (preset[i] == 0 || preset[i] == t[i]);
      if (fits && (best.empty() || ranks_before(t, best, w))) best = t;
    }
    Dims got = preset;
    Status st = dims_create_weighted(n, static_cast<int>(d), wd, got);
    ASSERT_TRUE(st.ok()) << st.to_string();
    ASSERT_EQ(got, best);
  }
}

TEST(CartProperty, RealWeightsReachTheMinimalSum) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> log_w(-3, 3);
  for (int iter = 0; iter < 600; ++iter) {
    const int n = random_n(rng);
    const std::size_t d = 1 + rng() % 4;
    std::vector<double> w(d);
    for (double& x : w) x = std::pow(10.0, log_w(rng));
    long double best = INFINITY;
    for (const Dims& t : all_tuples(n, d)) best = std::min<long double>(best, weighted_cost(w, t));
    Dims got(d, 0);
    ASSERT_TRUE(dims_create_weighted(n, static_cast<int>(d), w, got).ok());
    EXPECT_EQ(std::accumulate(got.begin(), got.end(), 1LL, std::multiplies<>()), n);
    EXPECT_LE(weighted_cost(w, got), best * (1 + 1e-12)) << "n=" << n << " got " << show(got);
  }
}

// One level of the spec: its tuples must leave every preset reachable by the
// levels below (their product `rest`), exactly when no dim is free.
Dims brute_level(int size, long long rest, const std::vector<long long>& w, const Dims& preset,
                 const std::vector<long long>& reached, const std::vector<int>* open = nullptr) {
  const bool any_free = std::count(preset.begin(), preset.end(), 0) > 0;
  Dims best;
  for (const Dims& t : all_tuples(size, preset.size())) {
    long long need = 1;
    bool fits = true;
    for (std::size_t i = 0; i < t.size() && fits; ++i) {
      if (preset[i] == 0) continue;
      fits = preset[i] % (reached[i] * t[i]) == 0;
      if (fits) need *= preset[i] / (reached[i] * t[i]);
    }
    fits = fits && rest % need == 0 && (any_free || need == rest);
    if (!fits) continue;
    std::vector<long long> lw(t.size());
    for (std::size_t i = 0; i < t.size(); ++i) lw[i] = w[i] * reached[i];
    if (best.empty() || ranks_before(t, best, lw, open)) best = t;
  }
  return best;
}

TEST(CartProperty, EachLevelIsTheBestGivenTheLevelsAbove) {
  std::mt19937 rng(2019);
  for (int iter = 0; iter < 400; ++iter) {
    Dims sizes(1 + rng() % 3);
    int total = 1;
    for (int& s : sizes) total *= (s = 1 + static_cast<int>(rng() % 12));
    const std::size_t d = 1 + rng() % 4;
    const std::vector<long long> w = random_weights(rng, d);
    const Dims preset = random_preset(rng, total, d);
    SCOPED_TRACE("levels=" + show(sizes) + " preset=" + show(preset) + " weights=" + show(Dims(w.begin(), w.end())));
    auto ml = dims_create_multilevel(sizes, static_cast<int>(d), std::vector<double>(w.begin(), w.end()), preset);
    ASSERT_TRUE(ml.ok()) << ml.status().to_string();
    std::vector<long long> reached(d, 1);
    long long rest = total;
    for (std::size_t l = 0; l < sizes.size(); ++l) {
      rest /= sizes[l];
      ASSERT_EQ(ml->levels[l], brute_level(sizes[l], rest, w, preset, reached)) << "level " << l;
      for (std::size_t i = 0; i < d; ++i) reached[i] *= ml->levels[l][i];
    }
    for (std::size_t i = 0; i < d; ++i) {
      EXPECT_EQ(ml->dims[i], reached[i]);
      if (preset[i] != 0) {
        EXPECT_EQ(ml->dims[i], preset[i]);
      }
    }
  }
}

// The section 6 refinements (CostModel::refined) against the same brute force
// with the refined costs, periodic and open dims mixed: the search then visits
// every split of the product between the two kinds of dims.
TEST(CartProperty, RefinedLevelsMatchBruteForce) {
  std::mt19937 rng(2020);
  for (int iter = 0; iter < 600; ++iter) {
    Dims sizes(1 + rng() % 3);
    int total = 1;
    for (int& s : sizes) total *= (s = 1 + static_cast<int>(rng() % (sizes.size() == 1 ? 400 : 12)));
    const std::size_t d = 1 + rng() % 4;
    const std::vector<long long> w = random_weights(rng, d);
    const Dims preset = random_preset(rng, total, d);
    std::vector<int> open(d);
    CostModel model{true, {}};
    for (std::size_t i = 0; i < d; ++i) {
      open[i] = static_cast<int>(rng() % 2);
      model.periodic.push_back(open[i] == 0);
    }
    SCOPED_TRACE("levels=" + show(sizes) + " preset=" + show(preset) + " weights=" + show(Dims(w.begin(), w.end())) +
                 " open=" + show(open));
    auto ml =
        dims_create_multilevel(sizes, static_cast<int>(d), std::vector<double>(w.begin(), w.end()), preset, model);
    ASSERT_TRUE(ml.ok()) << ml.status().to_string();
    std::vector<long long> reached(d, 1);
    long long rest = total;
    for (std::size_t l = 0; l < sizes.size(); ++l) {
      rest /= sizes[l];
      ASSERT_EQ(ml->levels[l], brute_level(sizes[l], rest, w, preset, reached, &open)) << "level " << l;
      for (std::size_t i = 0; i < d; ++i) reached[i] *= ml->levels[l][i];
    }
  }
}

}  // namespace
}  // namespace osmp::cart
