// Random machines and random placements against an independent reference:
// the domains of the tree are exactly the distinct non-empty process sets of
// the machine's nodes (a node holds the processes whose binding fits in it).
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "support/machines.hpp"

namespace osmp {
namespace {

std::string random_machine(std::mt19937& rng) {
  std::uniform_int_distribution<int> d(1, 3);
  std::string s = "Package:" + std::to_string(d(rng));
  if (rng() % 2) s += " Group:" + std::to_string(d(rng));
  s += " [NUMANode]";
  if (rng() % 3) s += " L3Cache:" + std::to_string(d(rng));
  if (rng() % 2) s += " L2Cache:" + std::to_string(d(rng));
  s += " Core:" + std::to_string(d(rng) + 1) + " PU:" + std::to_string(d(rng));
  return s;
}

CpuSet random_place(const MachineTree& m, std::mt19937& rng) {
  // Mostly a random node's cpuset (core, L3, package, ... or the machine).
  const auto& n = m.nodes[rng() % m.nodes.size()];
  if (rng() % 8) return n.cpuset;
  CpuSet s;  // sometimes a random scatter of PUs
  for (int pu = m.pus().first(); pu >= 0; pu = m.pus().next(pu))
    if (rng() % 3 == 0) s.set(static_cast<unsigned>(pu));
  return s.empty() ? m.pus() : s;
}

std::set<std::vector<int>> reference_sets(const MachineTree& m, const std::vector<CpuSet>& places) {
  std::set<std::vector<int>> sets;
  for (std::size_t n = 0; n < m.nodes.size(); ++n) {
    std::vector<int> ranks;
    for (std::size_t r = 0; r < places.size(); ++r)
      if (m.nodes[static_cast<std::size_t>(home_node(m, places[r]))].cpuset.is_subset_of(m.nodes[n].cpuset))
        ranks.push_back(static_cast<int>(r));
    if (!ranks.empty()) sets.insert(ranks);
  }
  return sets;
}

TEST(TreeProperty, DomainsAreTheDistinctProcessSets) {
  std::mt19937 rng(12345);
  for (int iter = 0; iter < 300; ++iter) {
    std::string shape = random_machine(rng);
    Topology topo = test::load(shape);
    const MachineTree& m = topo.machine();
    int n = 1 + static_cast<int>(rng() % (2 * m.pu_count()));
    std::vector<CpuSet> places;
    for (int r = 0; r < n; ++r) places.push_back(random_place(m, rng));
    Tree t = test::tree_from_places(m, places, "", true);
    std::set<std::vector<int>> got;
    for (const auto& d : t.domains()) got.insert(d.members);
    EXPECT_EQ(got.size(), t.domains().size()) << shape << ": two domains hold the same processes";
    EXPECT_EQ(got, reference_sets(m, places)) << shape << " with " << n << " processes";
    for (int r = 0; r < n; ++r) {
      // A process is never placed below its binding.
      EXPECT_TRUE(t.place(r).is_subset_of(t.domain(t.leaf(r)).cpuset));
    }
  }
}

}  // namespace
}  // namespace osmp
