// Every collective x datatype x op x size x root x in-place, on the paper's
// machines and this one, with ranks as threads (label sim; the same suite runs
// in real processes in tests/mp).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <mutex>

#include "support/collective_suite.hpp"
#include "team_api_harness.hpp"

namespace osmp {
namespace {

using test::Config;

class Matrix : public ::testing::TestWithParam<Config> {};

TEST_P(Matrix, EveryOpTypeSizeRootInPlace) {
  const Config& c = GetParam();
  auto tt = test::make_teams(c);
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  auto cases = test::matrix(c.n, {0, 1, 7}, true, {4096});
  std::string bad = test::run_cases(tt, cases, 1);
  EXPECT_EQ(bad, "") << c.name << ": " << cases.size() << " cases";
}

// One shape of each kind in the default run: one to eight ranks, a flat
// tree, a virtual split, a scattered Rome, k-nomial, with the default
// OSMP_CHECK (lazy: small rooted calls make one pass over every level), and
// strict trees of several levels (every call agrees first); Long (label
// long) takes the other 16-rank machines.
const Config kConfigs[] = {
    {"here_1", "", 1, MapBy::core, "", "", ""},
    {"here_2", "", 2, MapBy::core, "", "", ""},
    {"here_3", "", 3, MapBy::core, "", "", ""},
    {"here_5", "", 5, MapBy::core, "", "", ""},
    {"here_8", "", 8, MapBy::core, "", "", ""},
    {"rome_16_scatter", "rome", 16, MapBy::scatter, "", "", ""},
    {"cascadelake_16_degree2", "cascadelake", 16, MapBy::core, "Package:2", "", ""},
    {"rome_16_knomial2", "rome", 16, MapBy::scatter, "", "knomial:2", ""},
    {"here_7_flat", "", 7, MapBy::core, "", "flat", ""},
    // Every call agrees first, on trees of two and three levels.
    {"here_5_strict", "", 5, MapBy::core, "", "", "strict"},
    {"rome_16_scatter_strict", "rome", 16, MapBy::scatter, "", "", "strict"},
    // OSMP_CHECK=lazy set explicitly, on teams of one group.
    {"here_2_lazy", "", 2, MapBy::core, "", "", "lazy"},
    {"here_5_lazy", "", 5, MapBy::core, "", "", "lazy"},
    {"here_8_lazy_flat", "", 8, MapBy::core, "", "flat", "lazy"},
    {"rome_4_lazy_one_group", "rome", 4, MapBy::core, "", "", "lazy"},
};

const Config kLongConfigs[] = {
    {"here_16", "", 16, MapBy::core, "", "", ""},
    {"rome_16_core", "rome", 16, MapBy::core, "", "", ""},
    {"cascadelake_16_degree1", "cascadelake", 16, MapBy::core, "Package:1", "", ""},
    {"cascadelake_16_degree4", "cascadelake", 16, MapBy::core, "Package:4", "", ""},
    {"cascadelake_16_degree7", "cascadelake", 16, MapBy::core, "Package:7", "", ""},
    {"here_16_lazy", "", 16, MapBy::core, "", "", "lazy"},
    {"rome_16_lazy", "rome", 16, MapBy::scatter, "", "", "lazy"},
    {"cascadelake_16_degree2_strict", "cascadelake", 16, MapBy::core, "Package:2", "knomial:2", "strict"},
};

INSTANTIATE_TEST_SUITE_P(Configs, Matrix, ::testing::ValuesIn(kConfigs),
                         [](const auto& param_info) { return param_info.param.name; });
INSTANTIATE_TEST_SUITE_P(Long, Matrix, ::testing::ValuesIn(kLongConfigs),
                         [](const auto& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace osmp

namespace osmp {
namespace {

// Chunked reductions (past the slot size) in every in-place form, and right
// after other operations that leave slots in use.
TEST(Chunked, ReduceInPlaceAfterOtherOps) {
  auto tt = test::make_teams({"here_8", "", 8, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  std::vector<test::CollCase> cases = {
      {OpKind::reduce, Datatype::float32, Op::sum, 20000, 0, true},
      {OpKind::reduce, Datatype::float32, Op::sum, 20000, 3, false},
      {OpKind::reduce, Datatype::float32, Op::sum, 20000, 0, true},
      {OpKind::allreduce, Datatype::int32, Op::sum, 70000, -1, true},
      {OpKind::reduce, Datatype::float64, Op::max, 20000, 5, true},
      {OpKind::bcast, Datatype::float64, Op::sum, 70000, 6, false},
      {OpKind::reduce, Datatype::float32, Op::sum, 20000, 0, true},
  };
  EXPECT_EQ(test::run_cases(tt, cases, 5), "");
}

// Scan and exscan fold in rank order on every path, bit for bit: min and
// max of -0 (rank 0) and +0 (the others) keep the first operand, -0, as the
// left fold ((x0 op x1) op x2) does; a path that swapped operands anywhere
// (the last rank of the chain in place, say) would give +0. Counts for the
// tree (3), the chain (300) and the chain in several chunks (20000).
TEST(Scan, RankOrderBitForBit) {
  for (int n : {2, 3, 5}) {
    auto tt = test::make_teams({cat("here_", n), "", n, MapBy::core, "", "", ""});
    ASSERT_TRUE(tt.ok()) << tt.first_error();
    std::mutex m;
    std::vector<std::string> bad;
    test::on_all(tt, [&](Team& t) {
      const float mine = t.rank() == 0 ? -0.0f : 0.0f;
      for (OpKind k : {OpKind::scan, OpKind::exscan})
        for (Op op : {Op::min, Op::max})
          for (std::int64_t count : {3, 300, 20000})
            for (bool in_place : {false, true}) {
              std::vector<float> in(static_cast<std::size_t>(count), mine), out(in.size(), 1.0f);
              if (in_place) out = in;
              const void* send = in_place ? kInPlace : in.data();
              Status st = k == OpKind::scan ? t.scan(send, out.data(), count, Datatype::float32, op)
                                            : t.exscan(send, out.data(), count, Datatype::float32, op);
              const bool defined = k == OpKind::scan || t.rank() > 0;
              bool right = st.ok();
              for (float v : out) right = right && (!defined || (v == 0.0f && std::signbit(v)));
              if (!right) {
                std::lock_guard<std::mutex> g(m);
                bad.push_back(cat(to_string(k), " ", to_string(op), " count ", count, in_place ? " in place" : "",
                                  " on rank ", t.rank(), " of ", n, ": ",
                                  st.ok() ? "+0 or a wrong value" : st.to_string()));
              }
            }
      // exscan: rank 0's output is not written, so it may be null.
      std::vector<std::int32_t> in(5, t.rank() + 1), out(5, -1);
      Status st = t.exscan(in.data(), t.rank() == 0 ? nullptr : out.data(), 5, Datatype::int32, Op::sum);
      if (!st.ok() || (t.rank() > 0 && out[0] != t.rank() * (t.rank() + 1) / 2)) {
        std::lock_guard<std::mutex> g(m);
        bad.push_back(cat("exscan with a null output on rank 0, rank ", t.rank(), ": ", st.to_string()));
      }
    });
    for (const auto& b : bad) ADD_FAILURE() << b;
  }
}

}  // namespace
}  // namespace osmp
