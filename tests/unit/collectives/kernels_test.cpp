// The kernels' table (Combiner::make) and Combiner::all's two paths: the
// inline one for two sources of at most a block, the blocked one else.
#include "collectives/kernels.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace osmp {
namespace {

TEST(Combiner, TheTableHasEveryDefinedPairAndNothingElse) {
  for (int t = 0; t < kDatatypeCount; ++t) {
    for (int o = 0; o < kOpCount; ++o) {
      const auto dt = static_cast<Datatype>(t);
      const auto op = static_cast<Op>(o);
      const Combiner c = Combiner::make(dt, op);
      EXPECT_EQ(c.one != nullptr, defined_for(op, dt)) << to_string(op) << " on " << to_string(dt);
      EXPECT_EQ(c.two != nullptr, defined_for(op, dt)) << to_string(op) << " on " << to_string(dt);
      EXPECT_EQ(c.esize, size_of(dt));
      EXPECT_EQ(c.block * c.esize, 16384u);
    }
  }
  const Combiner none = Combiner::make(static_cast<Datatype>(kDatatypeCount), Op::sum);
  EXPECT_EQ(none.two, nullptr);
  EXPECT_EQ(Combiner::make(Datatype::int32, static_cast<Op>(kOpCount)).one, nullptr);
}

TEST(Combiner, SumsOfTwoAndOfManySourcesAtEverySizeAroundABlock) {
  const Combiner c = Combiner::make(Datatype::int64, Op::sum);
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{3}, c.block - 1, c.block, c.block + 1, 3 * c.block + 5}) {
    for (int k : {1, 2, 3, 5}) {
      std::vector<std::vector<std::int64_t>> in(static_cast<std::size_t>(k), std::vector<std::int64_t>(n + 1));
      std::vector<const void*> srcs;
      for (int j = 0; j < k; ++j) {
        for (std::size_t i = 0; i <= n; ++i)
          in[static_cast<std::size_t>(j)][i] = static_cast<std::int64_t>(i) * (j + 1);
        srcs.push_back(in[static_cast<std::size_t>(j)].data());
      }
      std::vector<std::int64_t> out(n + 1, -7);
      c.all(out.data(), srcs.data(), k, n);
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[i], static_cast<std::int64_t>(i) * k * (k + 1) / 2) << n << " elements, " << k << " sources";
      }
      EXPECT_EQ(out[n], -7) << "written past " << n << " elements";  // nothing beyond
    }
  }
}

}  // namespace
}  // namespace osmp
