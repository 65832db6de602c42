// The rules of hierarchical communicators, without MPI.
#include "mpi_glue/hierarchy/hierarchy.hpp"

#include <gtest/gtest.h>

#include "support/machines.hpp"
#include "topology/topology.hpp"

namespace osmp::hier {
namespace {

// hsplit paper Figure 1: two packages, each with its NUMA node and L3, an L2
// per core pair.
MachineTree paper_machine() {
  auto t = Topology::load(TopologySource::synthetic("Package:2 [NUMANode] L3Cache:1 L2Cache:2 Core:2 PU:1"));
  EXPECT_TRUE(t.ok()) << t.status().to_string();
  return t->machine();
}

Member at(const MachineTree& m, const char* place, int node = 0) {
  auto p = resolve_place(m, place);
  EXPECT_TRUE(p.ok()) << p.status().to_string();
  Member member;
  member.node = node;
  member.chain = chain_of(m, *p);
  return member;
}

std::vector<Member> by_core(const MachineTree& m, int n, int nodes = 1) {
  std::vector<Member> v;
  for (int k = 0; k < nodes; ++k)
    for (int i = 0; i < n; ++i) v.push_back(at(m, ("Core:" + std::to_string(i)).c_str(), k));
  return v;
}

TEST(Chain, TopDownFromMachineToTheBinding) {
  MachineTree m = paper_machine();
  Member core5 = at(m, "Core:5");
  ASSERT_GE(core5.chain.size(), 6u);
  EXPECT_EQ(core5.chain.front().level, "Machine");
  EXPECT_EQ(core5.chain.back().level, "PU");  // a one-PU core: the PU holds the binding too
  EXPECT_EQ(core5.chain[1], (Link{"Package", core5.chain[1].order, 1}));
  Member unbound = at(m, "none");
  ASSERT_EQ(unbound.chain.size(), 1u);
  EXPECT_EQ(unbound.chain[0].level, "Machine");
  // Bound to an L2: nothing below it.
  EXPECT_EQ(at(m, "L2:1").chain.back().level, "L2Cache");
}

TEST(Chain, EncodeDecodeRoundTrip) {
  MachineTree m = paper_machine();
  Member a = at(m, "Core:6", 3);
  auto b = decode(encode(a));
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(b->node, 3);
  EXPECT_EQ(b->chain, a.chain);
  EXPECT_FALSE(decode("").ok());
  EXPECT_FALSE(decode("x|Machine:0:0").ok());
  EXPECT_FALSE(decode("0|Machine:0").ok());
}

TEST(Levels, NamesAliasesAndErrors) {
  EXPECT_EQ(*level_for_request("Socket"), "Package");
  EXPECT_EQ(*level_for_request("numa"), "NUMANode");
  EXPECT_EQ(*level_for_request("L3"), "L3Cache");
  EXPECT_EQ(*level_for_request("HWLOC_OBJ_PACKAGE"), "Package");
  EXPECT_EQ(*level_for_request("Node"), "Machine");
  EXPECT_EQ(*level_for_request("mpi_shared_memory"), "Machine");
  auto bad = level_for_request("L7Cache");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unknown hardware level 'L7Cache'"), std::string::npos);
  EXPECT_FALSE(level_for_request("Package-v1").ok());  // virtual levels are not hardware
  EXPECT_EQ(levels(paper_machine()).front(), "Machine");
}

TEST(Undirected, WalksDownThePaperMachine) {
  MachineTree m = paper_machine();
  std::vector<Member> all = by_core(m, 8, 4);  // 4 nodes x 8 cores
  Split s = split_undirected(all);
  EXPECT_EQ(s.level, "Machine");
  EXPECT_EQ(s.parts, 4);
  EXPECT_EQ(s.color[9], 1);
  std::vector<Member> node(all.begin(), all.begin() + 8);
  s = split_undirected(node);
  EXPECT_EQ(s.level, "Package");  // hwloc 2 puts the Package above its NUMA node and L3
  EXPECT_EQ(s.color, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  std::vector<Member> pkg(node.begin(), node.begin() + 4);
  s = split_undirected(pkg);
  EXPECT_EQ(s.level, "L2Cache");
  EXPECT_EQ(s.color, (std::vector<int>{0, 0, 1, 1}));
  std::vector<Member> l2(pkg.begin(), pkg.begin() + 2);
  s = split_undirected(l2);
  EXPECT_EQ(s.level, "Core");
  EXPECT_EQ(s.parts, 2);
  std::vector<Member> one(l2.begin(), l2.begin() + 1);
  s = split_undirected(one);
  EXPECT_EQ(s.color, std::vector<int>{-1});  // the bottom
  EXPECT_EQ(s.parts, 0);
}

TEST(Undirected, BindingLimitsTheDepth) {
  MachineTree m = paper_machine();
  // Paper section 5.2: ranks 2,3 bound to L2 #1, ranks 4-7 to NUMA node 1.
  std::vector<Member> v = {at(m, "Core:0"), at(m, "Core:1"), at(m, "L2:1"), at(m, "L2:1")};
  EXPECT_EQ(split_undirected(v).color, (std::vector<int>{0, 0, 1, 1}));
  std::vector<Member> wide = {at(m, "NUMA:1"), at(m, "NUMA:1"), at(m, "NUMA:1")};
  EXPECT_EQ(split_undirected(wide).color, (std::vector<int>{-1, -1, -1}));
  // One member bound wider than the level that splits the others: it gets none.
  std::vector<Member> mixed = {at(m, "Core:0"), at(m, "Core:1"), at(m, "Package:0")};
  Split s = split_undirected(mixed);
  EXPECT_EQ(s.color[2], -1);
  EXPECT_EQ(s.level, "L2Cache");  // the first level below their common L3 that leaves rank 2 out
  EXPECT_EQ(s.color[0], 0);
  EXPECT_EQ(s.color[1], 0);
}

TEST(Directed, GroupsByTheObjectAndNeverBelowTheBinding) {
  MachineTree m = paper_machine();
  std::vector<Member> v = by_core(m, 4, 2);  // cores 0-3 on two nodes: one package each
  Split s = split_directed(v, "Package");
  EXPECT_EQ(s.color, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));  // the whole node, not MPI_COMM_NULL
  s = split_directed(v, "L2Cache");
  EXPECT_EQ(s.parts, 4);
  s = split_directed(v, "Machine");
  EXPECT_EQ(s.parts, 2);
  std::vector<Member> w = {at(m, "Core:0"), at(m, "NUMA:1")};
  EXPECT_EQ(split_directed(w, "Core").color, (std::vector<int>{0, -1}));
  EXPECT_EQ(split_directed(w, "L1Cache").color, (std::vector<int>{-1, -1}));  // no such level here
}

TEST(MinDomain, LowestSharedLevel) {
  MachineTree m = paper_machine();
  std::vector<Member> v = by_core(m, 8, 2);
  auto q = [&](std::vector<int> ranks, int me) { return *min_domain(v, ranks, me); };
  EXPECT_EQ(q({0, 1}, 0), "L2Cache");
  EXPECT_EQ(q({0, 3}, 0), "L3Cache");
  EXPECT_EQ(q({0, 7}, 0), "Machine");
  EXPECT_EQ(q({0, 8}, 0), std::string(kClusterLevel));
  EXPECT_EQ(q({1, 2}, 0), std::string(kUnknownLevel));
  EXPECT_FALSE(min_domain(v, std::vector<int>{0, 16}, 0).ok());
}

TEST(Neighbours, HopsUpTheTree) {
  MachineTree m = paper_machine();
  std::vector<Member> v = by_core(m, 8, 2);
  EXPECT_EQ(neighbours(v, 5, 0, Metric::tree), (std::vector<int>{5}));
  EXPECT_EQ(neighbours(v, 5, 1, Metric::tree), (std::vector<int>{4, 5}));
  EXPECT_EQ(neighbours(v, 5, 2, Metric::tree), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(neighbours(v, 5, 3, Metric::tree).size(), 8u);
  EXPECT_EQ(neighbours(v, 5, 9, Metric::tree).size(), 16u);
  EXPECT_EQ(neighbours(v, 5, 0, Metric::memory), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(neighbours(v, 5, 1, Metric::memory).size(), 8u);
}

std::vector<int> iota(int first, int count) {
  std::vector<int> v;
  for (int i = 0; i < count; ++i) v.push_back(first + i);
  return v;
}

// The memory nest of `me` (hops 0, 1, ... until everyone), as sizes.
std::vector<std::size_t> memory_sizes(const std::vector<Member>& v, int me) {
  std::vector<std::size_t> out;
  for (int hops = 0;; ++hops) {
    out.push_back(neighbours(v, me, hops, Metric::memory).size());
    if (out.back() == v.size() || hops > 10) return out;
  }
}

// hwloc's paper: NUMA nodes that hold several packages (Superdome-like
// machines, POWER7 with Group levels). Core 0's package, then its NUMA node,
// then the node.
TEST(Neighbours, MemoryMetricSeesANumaNodeHoldingPackages) {
  auto t = Topology::load(TopologySource::synthetic("Group:2 [NUMANode] Package:2 Core:2 PU:1"));
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  MachineTree m = t->machine();
  std::vector<Member> v = by_core(m, 8, 2);
  EXPECT_EQ(neighbours(v, 0, 0, Metric::memory), iota(0, 2));
  EXPECT_EQ(neighbours(v, 0, 1, Metric::memory), iota(0, 4));
  EXPECT_EQ(neighbours(v, 5, 1, Metric::memory), iota(4, 4));
  EXPECT_EQ(neighbours(v, 0, 2, Metric::memory), iota(0, 8));
  EXPECT_EQ(neighbours(v, 9, 2, Metric::memory), iota(8, 8));
  EXPECT_EQ(neighbours(v, 0, 3, Metric::memory), iota(0, 16));
}

// The shared XML machines, one process per core on one node: NUMA inside the
// package (Cascade Lake SNC2, Kunpeng's NUMA per L3, the fake KNL's SNC4
// clusters), NUMA = package under Groups (SGI UV), one NUMA node above two
// packages (Skylake without NUMA information).
TEST(Neighbours, MemoryMetricOnSharedMachines) {
  struct Case {
    const char* file;
    std::vector<std::size_t> sizes;  // of core 0's memory nest
  };
  const Case cases[] = {
      {"intel-cascadelake-2x20c-gold6230-snc2-memcache.xml", {10, 20, 40}},
      {"arm-kunpeng920-2x64c-4numa-clusters.xml", {32, 64, 128}},
      {"intel-knl-mini-fake-snc4-hybrid-mcdram.xml", {4, 16}},
      {"sgi-uv2000-24x8c-e5-4640-12groups.xml", {8, 192}},
      {"intel-skylake-2x18c-gold6140-cpuid-nonuma.xml", {18, 36}},
  };
  for (const Case& c : cases) {
    MachineTree m = test::load(test::data_path(std::string("topologies/") + c.file)).machine();
    std::vector<Member> v = by_core(m, static_cast<int>(m.cores().size()));
    EXPECT_EQ(memory_sizes(v, 0), c.sizes) << c.file;
  }
}

TEST(Places, ResolveAndReject) {
  MachineTree m = paper_machine();
  EXPECT_EQ(resolve_place(m, "Core:3")->to_string(), "3");
  EXPECT_EQ(resolve_place(m, "L2:1")->to_string(), "2-3");
  EXPECT_EQ(resolve_place(m, "NUMA:1")->to_string(), "4-7");
  EXPECT_EQ(resolve_place(m, "none")->to_string(), "0-7");
  EXPECT_EQ(resolve_place(m, "0-1")->to_string(), "0-1");
  EXPECT_FALSE(resolve_place(m, "Core:99").ok());
  EXPECT_FALSE(resolve_place(m, "Foo:1").ok());
  EXPECT_FALSE(resolve_place(m, "9-12").ok());
}

}  // namespace
}  // namespace osmp::hier
