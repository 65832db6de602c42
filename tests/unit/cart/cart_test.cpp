// The paper's worked cases (Niethammer & Rabenseifner, EuroMPI 2019), presets
// and every error path of mpi_glue/cart/dims.hpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "mpi_glue/cart/dims.hpp"

namespace osmp::cart {
namespace {

using Dims = std::vector<int>;
using Levels = std::vector<std::vector<int>>;

Dims create(int nnodes, Dims dims, std::vector<double> weights = {}) {
  Status st = dims_create_weighted(nnodes, static_cast<int>(dims.size()), weights, dims);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return dims;
}

// The error message of a failed dims_create_weighted, which must leave dims alone.
std::string error_of(int nnodes, int ndims, Dims dims, std::vector<double> weights = {}) {
  const Dims before = dims;
  Status st = dims_create_weighted(nnodes, ndims, weights, dims);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Errc::invalid_argument);
  EXPECT_EQ(dims, before);
  return st.message();
}

const std::vector<double> kSection6Weights = {1.0 / 12, 1.0 / 16, 1.0 / 8};

// Section 2.1 / Figure 3: MPI_Dims_create's 4 x 3 against the mesh-aware 2 x 6.
TEST(CartPaper, Figure3MeshGives2x6) {
  auto w = weights_from_mesh(std::vector<std::int64_t>{580, 1800});
  ASSERT_TRUE(w.ok()) << w.status().to_string();
  EXPECT_EQ(*w, (std::vector<double>{1800, 580}));
  EXPECT_EQ(create(12, {0, 0}, *w), (Dims{2, 6}));
  EXPECT_EQ(create(12, {0, 0}), (Dims{4, 3}));
  EXPECT_LT(weighted_cost(*w, Dims{2, 6}), weighted_cost(*w, Dims{4, 3}));
}

TEST(CartPaper, BalancedWhereOpenMpiIsNot) {
  EXPECT_EQ(create(72, {0, 0}), (Dims{9, 8}));  // Open MPI 4.1: 12 x 6
  EXPECT_LT(weighted_cost({}, Dims{9, 8}), weighted_cost({}, Dims{12, 6}));
  EXPECT_EQ(create(192, {0, 0, 0}), (Dims{8, 6, 4}));
}

// Section 5.1: ties in sum and spread, broken by the smallest largest factor.
TEST(CartPaper, Section51ThirdCriterion) {
  EXPECT_EQ(create(360, {0, 0, 0}), (Dims{9, 8, 5}));      // not 10 x 6 x 6
  EXPECT_EQ(create(3696, {0, 0, 0}), (Dims{21, 16, 11}));  // not 22 x 14 x 12
  EXPECT_EQ(create(5040, {0, 0, 0}), (Dims{20, 18, 14}));  // not 21 x 16 x 15
  EXPECT_EQ(create(6240, {0, 0, 0}), (Dims{24, 20, 13}));  // not 26 x 16 x 15
  for (int f = 6; f <= 9; ++f) {                           // 10 x F x 6 x 6 = 9 x 8 x F x 5, sorted
    Dims expect{9, 8, f, 5};
    std::sort(expect.rbegin(), expect.rend());
    EXPECT_EQ(create(360 * f, {0, 0, 0, 0}), expect) << "F = " << f;
  }
}

// Section 5.1: the sum criterion beats the difference criterion.
TEST(CartPaper, Section51SumBeforeSpread) {
  EXPECT_EQ(create(35200, {0, 0, 0}), (Dims{44, 32, 25}));  // sum 101; 40x40x22 has 102
  EXPECT_EQ(weighted_cost({}, Dims{44, 32, 25}), 101);
  EXPECT_EQ(weighted_cost({}, Dims{40, 40, 22}), 102);
}

void expect_levels(const MultilevelDims& ml, const Levels& levels, const Dims& dims) {
  EXPECT_EQ(ml.levels, levels);
  EXPECT_EQ(ml.dims, dims);
  ASSERT_EQ(ml.level_cost.size(), levels.size());
}

// Section 6: 24 nodes x 4 CPUs x 8 cores, weights (1/12, 1/16, 1/8).
TEST(CartPaper, Section6MultiLevel) {
  auto ml = dims_create_multilevel(Dims{24, 4, 8}, 3, kSection6Weights);
  ASSERT_TRUE(ml.ok()) << ml.status().to_string();
  expect_levels(*ml, {{3, 4, 2}, {2, 2, 1}, {2, 2, 2}}, {12, 16, 4});
  EXPECT_NEAR(ml->level_cost[0], 0.75, 1e-12);
  EXPECT_NEAR(ml->level_cost[1], 1.25, 1e-12);
  EXPECT_NEAR(ml->level_cost[2], 2.50, 1e-12);
  EXPECT_NEAR(weighted_cost(kSection6Weights, ml->dims), 2.50, 1e-12);

  // The same from the 1200 x 1600 x 800 mesh the weights stand for.
  auto w = weights_from_mesh(std::vector<std::int64_t>{1200, 1600, 800});
  ASSERT_TRUE(w.ok());
  for (int i = 0; i < 3; ++i) EXPECT_NEAR((*w)[i] / (*w)[2], kSection6Weights[i] * 8, 1e-15);
  auto from_mesh = dims_create_multilevel(Dims{24, 4, 8}, 3, *w);
  ASSERT_TRUE(from_mesh.ok());
  EXPECT_EQ(from_mesh->levels, ml->levels);

  // Presetting the final d_2 = 4 the multi-level result already has changes nothing.
  auto preset = dims_create_multilevel(Dims{24, 4, 8}, 3, kSection6Weights, Dims{0, 0, 4});
  ASSERT_TRUE(preset.ok()) << preset.status().to_string();
  EXPECT_EQ(preset->levels, ml->levels);
}

// Section 6, second table: one level gives 8 x 12 x 8 (sum 2.42), whose
// best embedded node grid is case C, 4 x 3 x 2 (0.771), worse than 0.75.
TEST(CartPaper, Section6SingleLevelAndEmbeddedNodeGrids) {
  const Dims single = create(768, {0, 0, 0}, kSection6Weights);
  EXPECT_EQ(single, (Dims{8, 12, 8}));
  EXPECT_NEAR(weighted_cost(kSection6Weights, single), 2.4167, 1e-4);
  double best = std::numeric_limits<double>::infinity();
  Dims best_grid;
  for (int a = 1; a <= 8; ++a)
    for (int b = 1; b <= 12; ++b) {
      if (single[0] % a || single[1] % b || 24 % (a * b) || single[2] % (24 / (a * b))) continue;
      const Dims grid{a, b, 24 / (a * b)};
      if (weighted_cost(kSection6Weights, grid) < best) {
        best = weighted_cost(kSection6Weights, grid);
        best_grid = grid;
      }
    }
  EXPECT_EQ(best_grid, (Dims{4, 3, 2}));
  EXPECT_NEAR(best, 0.771, 1e-3);
  EXPECT_NEAR(weighted_cost(kSection6Weights, Dims{4, 6, 1}), 0.833, 1e-3);  // case A
  EXPECT_NEAR(weighted_cost(kSection6Weights, Dims{2, 6, 2}), 0.792, 1e-3);  // case B
}

// Table 1: 8 nodes x 2 CPUs x 12 cores, three ways.
TEST(CartPaper, Table1) {
  const Dims sizes{8, 2, 12};
  const Dims mpi = create(192, {0, 0, 0});  // MPI_Dims_create + Cart_create
  auto implied = implied_levels_row_major(mpi, sizes);
  ASSERT_TRUE(implied.ok()) << implied.status().to_string();
  EXPECT_EQ(*implied, (Levels{{8, 1, 1}, {1, 2, 1}, {1, 3, 4}}));
  EXPECT_EQ(mpi, (Dims{8, 6, 4}));

  auto equal = dims_create_multilevel(sizes, 3, {});
  ASSERT_TRUE(equal.ok());
  expect_levels(*equal, {{2, 2, 2}, {2, 1, 1}, {2, 3, 2}}, {8, 6, 4});

  auto w = weights_from_mesh(std::vector<std::int64_t>{1, 2, 4});
  ASSERT_TRUE(w.ok());
  auto mesh = dims_create_multilevel(sizes, 3, *w);
  ASSERT_TRUE(mesh.ok());
  expect_levels(*mesh, {{1, 2, 4}, {2, 1, 1}, {2, 3, 2}}, {4, 6, 8});
}

// Table 2, the rows whose mesh divides evenly: per-process halo (width 1,
// both sides) = 2 * sum_i w_i d_i / N; the table lists it times 4 (bytes of
// 4-byte floats, by its ratios to the float counts).
TEST(CartPaper, Table2HaloSizes) {
  struct Row {
    std::int64_t g0, g1, g2;
    double original, mesh_based;
  };
  for (const Row& r : {Row{8, 12, 24, 160, 128}, Row{48, 96, 184, 8864, 6688}}) {
    auto w = weights_from_mesh(std::vector<std::int64_t>{r.g0, r.g1, r.g2});
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(4 * 2 * weighted_cost(*w, Dims{8, 6, 4}) / 192, r.original);
    EXPECT_EQ(4 * 2 * weighted_cost(*w, Dims{4, 6, 8}) / 192, r.mesh_based);
  }
}

TEST(CartPresets, FixedEntriesAreHonoured) {
  EXPECT_EQ(create(72, {0, 3}), (Dims{24, 3}));
  EXPECT_EQ(create(72, {2, 0, 0}), (Dims{2, 6, 6}));
  EXPECT_EQ(create(72, {0, 0, 9}), (Dims{4, 2, 9}));
  EXPECT_EQ(create(72, {8, 9}), (Dims{8, 9}));
  EXPECT_EQ(create(12, {0, 2}, {1800, 580}), (Dims{6, 2}));
  EXPECT_EQ(create(1, {0, 0, 0}), (Dims{1, 1, 1}));
  EXPECT_EQ(create(97, {0, 0}), (Dims{97, 1}));
  EXPECT_EQ(create(2147483647, {0, 0, 0}), (Dims{2147483647, 1, 1}));
  // Equal weights: non-increasing; unequal: the larger factor on the lighter dim.
  EXPECT_EQ(create(24, {0, 0, 0}, {2, 2, 2}), (Dims{4, 3, 2}));
  EXPECT_EQ(create(24, {0, 0, 0}, {3, 1, 2}), (Dims{2, 4, 3}));
}

TEST(CartPresets, MultiLevelKeepsPresetsReachable) {
  auto ml = dims_create_multilevel(Dims{24, 4, 8}, 3, kSection6Weights, Dims{0, 0, 8});
  ASSERT_TRUE(ml.ok()) << ml.status().to_string();
  EXPECT_EQ(ml->dims[2], 8);
  EXPECT_EQ(ml->levels[0], (Dims{3, 4, 2}));  // level 0 unchanged: 2 still divides 8
  auto tight = dims_create_multilevel(Dims{2, 3}, 2, {}, Dims{3, 2});
  ASSERT_TRUE(tight.ok()) << tight.status().to_string();
  EXPECT_EQ(tight->levels, (Levels{{1, 2}, {3, 1}}));  // level 0 must leave the 3 to level 1
}

TEST(CartErrors, EveryBadArgumentIsNamed) {
  EXPECT_EQ(error_of(0, 2, {0, 0}), "nnodes = 0 is less than 1");
  EXPECT_EQ(error_of(-5, 2, {0, 0}), "nnodes = -5 is less than 1");
  EXPECT_EQ(error_of(12, 0, {}), "ndims = 0 is less than 1");
  EXPECT_EQ(error_of(12, 3, {0, 0}), "dims has 2 entries but ndims = 3");
  EXPECT_EQ(error_of(12, 2, {0, -3}), "dims[1] = -3 is negative (0 = free, > 0 = fixed)");
  EXPECT_EQ(error_of(72, 2, {0, 5}), "dims[1] = 5 does not divide 72");
  EXPECT_EQ(error_of(72, 3, {4, 4, 0}), "the preset dims 4 x 4 multiply to 16, which does not divide 72");
  EXPECT_EQ(error_of(72, 2, {6, 6}), "every dim is preset and 6 x 6 multiply to 36, not 72");
  EXPECT_EQ(error_of(12, 2, {0, 0}, {1, 2, 3}), "weights has 3 entries but ndims = 2 (pass none for equal weights)");
  EXPECT_EQ(error_of(12, 2, {0, 0}, {1, 0}), "weights[1] = 0 is not positive");
  EXPECT_EQ(error_of(12, 2, {0, 0}, {-1, 1}), "weights[0] = -1 is not positive");
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(error_of(12, 2, {0, 0}, {1, inf}), "weights[1] = inf is not finite");
  EXPECT_NE(error_of(12, 2, {0, 0}, {std::nan(""), 1}).find("weights[0] = "), std::string::npos);
}

TEST(CartErrors, MultiLevelAndHelpers) {
  auto msg = [](const auto& r) { return r.status().message(); };
  EXPECT_EQ(msg(dims_create_multilevel(Dims{}, 2, {})), "level_sizes is empty");
  EXPECT_EQ(msg(dims_create_multilevel(Dims{4, 0}, 2, {})), "level_sizes[1] = 0 is less than 1");
  EXPECT_EQ(msg(dims_create_multilevel(Dims{65536, 65536}, 2, {})),
            "the level sizes multiply to more than 2147483647 (at level_sizes[1])");
  EXPECT_EQ(msg(dims_create_multilevel(Dims{4}, 0, {})), "ndims = 0 is less than 1");
  EXPECT_EQ(msg(dims_create_multilevel(Dims{4, 2}, 2, {}, Dims{0})), "preset dims has 1 entries but ndims = 2");
  EXPECT_EQ(msg(dims_create_multilevel(Dims{4, 2}, 2, {}, Dims{0, 3})), "dims[1] = 3 does not divide 8");
  EXPECT_EQ(check_preset(0, Dims{0}).message(), "nnodes = 0 is outside [1, 2147483647]");
  EXPECT_EQ(check_preset(1LL << 40, Dims{0}).message(), "nnodes = 1099511627776 is outside [1, 2147483647]");
  EXPECT_TRUE(check_preset(72, Dims{}).ok());
  EXPECT_TRUE(check_weights({}, 3).ok());
  EXPECT_EQ(msg(weights_from_mesh({})), "mesh has no extents");
  EXPECT_EQ(msg(weights_from_mesh(std::vector<std::int64_t>{5, 0})), "mesh[1] = 0 is less than 1");
  EXPECT_EQ(msg(weights_from_mesh(std::vector<std::int64_t>{5, 5}, std::vector<double>{1})),
            "halo has 1 entries but the mesh has 2");
  EXPECT_EQ(msg(weights_from_mesh(std::vector<std::int64_t>{5, 5}, {}, std::vector<double>{1, -2})),
            "cost[1] = -2 is not positive");
  EXPECT_EQ(msg(implied_levels_row_major(Dims{4, 6}, Dims{6, 4})),
            "level 1: a block of 4 consecutive ranks is not a box of the row-major grid 4 x 6");
  EXPECT_EQ(msg(implied_levels_row_major(Dims{4, 6}, Dims{5, 5})),
            "the dims do not multiply to the 25 processes of the levels");
}

TEST(CartWeights, MeshHaloAndCostFactorsMultiply) {
  auto w = weights_from_mesh(std::vector<std::int64_t>{10, 20, 30}, std::vector<double>{1, 2, 1},
                             std::vector<double>{3, 1, 1});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(*w, (std::vector<double>{3 * 600, 2 * 300, 200}));
  // Scaling every weight changes no factorization.
  EXPECT_EQ(create(720, {0, 0, 0}, *w), create(720, {0, 0, 0}, {1800e-9, 600e-9, 200e-9}));
}

// 0.1 * 3 is 0.30000000000000004: equal weights all the same, so MPI's
// non-increasing order; a difference of 1e-9 is a real one.
TEST(CartWeights, NearlyEqualWeightsCountAsEqual) {
  const double a = 0.1 * 3, b = 0.3;
  ASSERT_NE(a, b);
  EXPECT_EQ(create(6, {0, 0}, {a, b}), (Dims{3, 2}));
  EXPECT_EQ(create(6, {0, 0}, {b, a}), (Dims{3, 2}));
  EXPECT_EQ(create(6, {0, 0}, {b * (1 + 1e-9), b}), (Dims{2, 3}));
}

// Section 6's refinements (CostModel::refined), where they change the choice.
Dims refined(int nnodes, int ndims, std::vector<double> weights, std::vector<bool> periodic = {}) {
  Dims dims(static_cast<std::size_t>(ndims), 0);
  Status st = dims_create_weighted(nnodes, ndims, weights, dims, CostModel{true, std::move(periodic)});
  EXPECT_TRUE(st.ok()) << st.to_string();
  return dims;
}

TEST(CartRefined, DroppedTermsAndOpenDimsOfTwo) {
  // 6 processes, w = (1, 2): eq. (4) 3 x 2 (3 + 4 = 7); refined 6 x 1 (6 + 0).
  EXPECT_EQ(create(6, {0, 0}, {1, 2}), (Dims{3, 2}));
  EXPECT_EQ(refined(6, 2, {1, 2}), (Dims{6, 1}));
  // 4 processes, w = (1, 1.5): periodic 4 x 1 (4 against 2 + 3); dim 1 open:
  // its factor 2 counts once, 2 x 2 (2 + 1.5).
  EXPECT_EQ(refined(4, 2, {1, 1.5}), (Dims{4, 1}));
  EXPECT_EQ(refined(4, 2, {1, 1.5}, {true, false}), (Dims{2, 2}));
  // Balanced answers for equal weights stay balanced.
  EXPECT_EQ(refined(72, 2, {}), (Dims{9, 8}));
  EXPECT_EQ(refined(8, 3, {}, {false, false, false}), (Dims{2, 2, 2}));
}

// The section 6 example under the refinements: periodic, the nodes take
// 4 x 6 x 1 (0.708 inter-node against 0.75 for 3 x 4 x 2: nothing crosses
// a node along dim 2); all dims open, 2 x 6 x 2 (0.583).
TEST(CartRefined, Section6Example) {
  const int sizes[] = {24, 4, 8};
  auto periodic = dims_create_multilevel(sizes, 3, kSection6Weights, {}, CostModel{true, {}});
  ASSERT_TRUE(periodic.ok()) << periodic.status().to_string();
  EXPECT_EQ(periodic->levels[0], (Dims{4, 6, 1}));
  EXPECT_NEAR(periodic->level_objective[0], 1.0 / 3 + 0.375, 1e-12);
  EXPECT_NEAR(periodic->level_cost[0], 1.0 / 3 + 0.375 + 0.125, 1e-12);
  auto open = dims_create_multilevel(sizes, 3, kSection6Weights, {}, CostModel{true, {false, false, false}});
  ASSERT_TRUE(open.ok()) << open.status().to_string();
  EXPECT_EQ(open->levels[0], (Dims{2, 6, 2}));
  EXPECT_EQ(open->dims, (Dims{8, 12, 8}));
  // Without the refinements the objective is eq. (4).
  auto paper = dims_create_multilevel(sizes, 3, kSection6Weights);
  ASSERT_TRUE(paper.ok());
  EXPECT_EQ(paper->level_objective, paper->level_cost);
  EXPECT_FALSE(dims_create_multilevel(sizes, 3, kSection6Weights, {}, CostModel{true, {true}}).ok());
}

}  // namespace
}  // namespace osmp::cart
