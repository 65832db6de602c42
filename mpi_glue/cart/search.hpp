// The exhaustive search behind dims.hpp, for one level. Internal to cart/.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace osmp::cart::detail {

// Weights, and weighted sums, closer than this (relative) are equal.
inline constexpr long double kRelTol = 1e-12L;

// Factor `total` into weight.size() factors. A dim with cap[i] == 0 is free;
// otherwise its factor must divide cap[i], and what the capped dims still
// need afterwards, prod_i cap[i] / f_i, must divide `rest` (the product of
// the levels below), and equal it when no dim is free. A single level is
// rest == 1, which forces f_i = cap[i].
//
// The cost of factor f in dim i is weight[i] * f, or with `refined` (the
// paper's section 6, dims.hpp CostModel) weight[i] * h_i(f): h(1) = 0,
// h(2) = 1 when open[i] (not periodic) else 2, h(f) = f from 3 on.
struct LevelProblem {
  std::int64_t total = 1;
  std::vector<long double> weight;  // > 0; equal weights must be exactly equal
  std::vector<std::int64_t> cap;
  std::int64_t rest = 1;
  bool refined = false;
  std::vector<bool> open;  // per dim, read when refined
};

// h(f): the multiple of its weight that factor f costs a dim.
long double cost_factor(std::int64_t f, bool refined, bool open);

// The best factors per dim under the criteria of dims.hpp; empty when the
// problem has no solution.
std::vector<std::int64_t> solve_level(const LevelProblem& problem);

// Scales by the largest weight (so products with factors cannot overflow)
// and makes weights within kRelTol of each other exactly equal.
std::vector<long double> normalize_weights(const std::vector<long double>& weight);
std::vector<long double> snap_weights(std::vector<long double> weight);

// The divisors of n >= 1, ascending (trial division: fine for n < 2^62).
std::vector<std::int64_t> divisors(std::int64_t n);

// "8 x 6 x 4", for messages.
std::string times(std::span<const int> values);

}  // namespace osmp::cart::detail
