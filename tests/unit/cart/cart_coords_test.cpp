// Coordinates in multi-level grids and inter-node halo edges
// (mpi_glue/cart/coords.hpp), on the paper's section 6 and Table 1 grids.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "mpi_glue/cart/coords.hpp"
#include "mpi_glue/cart/dims.hpp"

namespace osmp::cart {
namespace {

using Dims = std::vector<int>;
using Levels = std::vector<std::vector<int>>;

const Levels kSection6 = {{3, 4, 2}, {2, 2, 1}, {2, 2, 2}};

TEST(CartCoords, RowMajorLikeMpiCartCoords) {
  const Dims dims{2, 3, 4};
  EXPECT_EQ(*rank_to_coords(dims, 1), (Dims{0, 0, 1}));  // last dim fastest
  EXPECT_EQ(*rank_to_coords(dims, 4), (Dims{0, 1, 0}));
  EXPECT_EQ(*rank_to_coords(dims, 23), (Dims{1, 2, 3}));
  for (int r = 0; r < 24; ++r) EXPECT_EQ(*coords_to_rank(dims, *rank_to_coords(dims, r)), r);
}

// Node 5, CPU 3, core 7 of section 6 by the paper's formula
// c_i = c_i^(0) n_i^(1) n_i^(2) + c_i^(1) n_i^(2) + c_i^(2):
// (0,2,1), (1,1,0), (1,1,1) -> (0*4+1*2+1, 2*4+1*2+1, 1*2+0*2+1) = (3, 11, 3).
TEST(CartCoords, Section6Formula) {
  auto p = place_of(kSection6, Dims{5, 3, 7});
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->level_coords, (Levels{{0, 2, 1}, {1, 1, 0}, {1, 1, 1}}));
  EXPECT_EQ(p->coords, (Dims{3, 11, 3}));
  EXPECT_EQ(p->rank, 3 * 64 + 11 * 4 + 3);
  EXPECT_EQ(*level_index_of(kSection6, p->rank), (Dims{5, 3, 7}));
}

// Every process gets its own grid position, the inverse finds it again, and
// each node holds a 4 x 4 x 2 box at its node coordinates.
TEST(CartCoords, Section6IsABijectionOfBoxes) {
  std::set<int> ranks;
  for (int node = 0; node < 24; ++node)
    for (int cpu = 0; cpu < 4; ++cpu)
      for (int core = 0; core < 8; ++core) {
        const Dims index{node, cpu, core};
        auto p = place_of(kSection6, index);
        ASSERT_TRUE(p.ok());
        ranks.insert(p->rank);
        EXPECT_EQ(*level_index_of(kSection6, p->rank), index);
        EXPECT_EQ(p->coords, *rank_to_coords(Dims{12, 16, 4}, p->rank));
        const Dims node_box{p->coords[0] / 4, p->coords[1] / 4, p->coords[2] / 2};
        EXPECT_EQ(node_box, p->level_coords[0]);
      }
  EXPECT_EQ(ranks.size(), 768u);
  EXPECT_EQ(*ranks.rbegin(), 767);
}

// Cut edges of a grid split into boxes of a unit grid: along dim i there are
// units_i boundaries (periodic, units_i >= 2) or units_i - 1, each crossed by
// N / d_i edges.
long long box_cut(const Dims& dims, const Dims& units, bool periodic) {
  long long n = 1, cut = 0;
  for (int d : dims) n *= d;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const long long boundaries = periodic ? (units[i] >= 2 ? units[i] : 0) : units[i] - 1;
    cut += boundaries * (n / dims[i]);
  }
  return cut;
}

TEST(CartHalo, SmallGridsByHand) {
  const Dims dims{4, 4};
  auto rows = block_owner(16, 4);  // each row of 4 one node
  ASSERT_TRUE(rows.ok());
  auto open = count_cut_edges(dims, {}, *rows);
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(open->per_dim, (std::vector<std::int64_t>{12, 0}));
  EXPECT_EQ(open->total, 12);
  EXPECT_EQ(count_cut_edges(dims, Dims{1, 0}, *rows)->total, 16);
  // Size 2, periodic: both directions of the exchange cross.
  const Dims own{0, 1, 2, 3};
  EXPECT_EQ(count_cut_edges(Dims{2, 2}, Dims{1, 1}, own)->per_dim, (std::vector<std::int64_t>{4, 4}));
  EXPECT_EQ(count_cut_edges(Dims{2, 2}, {}, own)->per_dim, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(count_cut_edges(Dims{1, 4}, Dims{1, 0}, Dims{0, 0, 1, 1})->total, 1);
}

TEST(CartHalo, MultiLevelNodesAreBoxes) {
  for (bool periodic : {false, true}) {
    const Dims periods = periodic ? Dims{1, 1, 1} : Dims{};
    auto nodes = level_owner(kSection6, 0);
    ASSERT_TRUE(nodes.ok());
    EXPECT_EQ(count_cut_edges(Dims{12, 16, 4}, periods, *nodes)->total, box_cut({12, 16, 4}, {3, 4, 2}, periodic));
    auto cpus = level_owner(kSection6, 1);
    ASSERT_TRUE(cpus.ok());
    EXPECT_EQ(count_cut_edges(Dims{12, 16, 4}, periods, *cpus)->total, box_cut({12, 16, 4}, {6, 8, 2}, periodic));
  }
}

// Table 1 (8 nodes x 2 CPUs x 12 cores): MPI_Cart_create's default puts
// 24 consecutive ranks, a 1 x 6 x 4 slab, on a node; the multi-level
// mapping of the same 8 x 6 x 4 grid gives each node a 4 x 3 x 2 box, and
// cuts fewer edges without wraparound (104 against 168). With periodic dims
// the slab wins (192 against 208): its unsplit dims wrap onto the node
// itself, which eq. (2) still charges (the paper's section 6, last note).
TEST(CartHalo, Table1MultiLevelAgainstTheDefault) {
  auto ml = dims_create_multilevel(Dims{8, 2, 12}, 3, {});
  ASSERT_TRUE(ml.ok());
  ASSERT_EQ(ml->dims, (Dims{8, 6, 4}));
  auto mine = level_owner(ml->levels, 0);
  auto slabs = block_owner(192, 24);
  ASSERT_TRUE(mine.ok() && slabs.ok());
  for (const Dims& periods : {Dims{}, Dims{1, 1, 1}}) {
    const bool periodic = !periods.empty();
    const auto ours = count_cut_edges(ml->dims, periods, *mine)->total;
    const auto theirs = count_cut_edges(ml->dims, periods, *slabs)->total;
    EXPECT_EQ(ours, box_cut({8, 6, 4}, {2, 2, 2}, periodic));
    EXPECT_EQ(theirs, box_cut({8, 6, 4}, {8, 1, 1}, periodic));
    if (periodic) {
      EXPECT_GT(ours, theirs);
    } else {
      EXPECT_LT(ours, theirs);
    }
  }
}

TEST(CartCoords, Errors) {
  auto msg = [](const auto& r) { return r.status().message(); };
  EXPECT_EQ(msg(rank_to_coords(Dims{2, 3}, 6)), "rank 6 is outside [0, 6)");
  EXPECT_EQ(msg(rank_to_coords(Dims{2, 0}, 0)), "dims[1] = 0 is less than 1");
  EXPECT_EQ(msg(rank_to_coords(Dims{65536, 65536}, 0)), "dims multiply to more than 2147483647");
  EXPECT_EQ(msg(coords_to_rank(Dims{2, 3}, Dims{1, 3})), "coords[1] = 3 is outside [0, 3)");
  EXPECT_EQ(msg(coords_to_rank(Dims{2, 3}, Dims{1})), "coords has 1 entries but the grid 2 dims");
  EXPECT_EQ(msg(place_of(kSection6, Dims{0, 0})), "level_index has 2 entries but there are 3 levels");
  EXPECT_EQ(msg(place_of(kSection6, Dims{24, 0, 0})), "level_index[0] = 24 is outside [0, 24)");
  EXPECT_EQ(msg(place_of(Levels{{2, 2}, {2}}, Dims{0, 0})), "levels[1] has 1 dims but levels[0] has 2");
  EXPECT_EQ(msg(place_of(Levels{}, Dims{})), "levels is empty");
  EXPECT_EQ(msg(level_index_of(kSection6, 768)), "rank 768 is outside [0, 768)");
  EXPECT_EQ(msg(level_owner(kSection6, 3)), "level 3 is outside [0, 3)");
  EXPECT_EQ(msg(block_owner(8, 0)), "block = 0 is less than 1");
  EXPECT_EQ(msg(count_cut_edges(Dims{2, 2}, {}, Dims{0, 0, 0})), "owner has 3 entries but the grid 4 positions");
  EXPECT_EQ(msg(count_cut_edges(Dims{2, 2}, Dims{1}, Dims{0, 0, 0, 0})), "periods has 1 entries but dims has 2");
}

}  // namespace
}  // namespace osmp::cart
