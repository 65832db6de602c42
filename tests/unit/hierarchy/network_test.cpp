// Network levels above the nodes (mpi_glue/hierarchy/network.hpp) and the
// hierarchy rules across them, without MPI.
#include "mpi_glue/hierarchy/network.hpp"

#include <gtest/gtest.h>

#include "topology/topology.hpp"

namespace osmp::hier {
namespace {

std::string message_of(const Result<Network>& r) { return r.ok() ? "(ok)" : r.status().message(); }

TEST(Network, SimulatedSpec) {
  auto n = Network::from_sim_spec("Switch:4, Island:2");
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  EXPECT_EQ(n->levels_top_down(), (std::vector<std::string>{"Island", "Switch"}));
  auto links = n->links(13, "ignored");
  ASSERT_TRUE(links.ok());
  ASSERT_EQ(links->size(), 2u);
  EXPECT_EQ((*links)[0], (Link{"Island", -2, 1}));  // nodes 8-15
  EXPECT_EQ((*links)[1], (Link{"Switch", -1, 3}));  // nodes 12-15
  EXPECT_EQ(*n->level_named("switch"), "Switch");
  EXPECT_FALSE(n->level_named("Rack"));
  EXPECT_TRUE(Network().empty());
  EXPECT_TRUE(Network().links(3, "x")->empty());
}

TEST(Network, SimulatedSpecErrors) {
  EXPECT_NE(message_of(Network::from_sim_spec("Switch")).find("item 'Switch' is not LEVEL:COUNT"), std::string::npos);
  EXPECT_NE(message_of(Network::from_sim_spec("Switch:0")).find("count of 'Switch'"), std::string::npos);
  EXPECT_NE(message_of(Network::from_sim_spec("Package:2")).find("'Package' is taken"), std::string::npos);
  EXPECT_NE(message_of(Network::from_sim_spec("Cluster:2")).find("is taken"), std::string::npos);
  EXPECT_NE(message_of(Network::from_sim_spec("Switch:2,switch:3")).find("given twice"), std::string::npos);
  EXPECT_NE(message_of(Network::from_sim_spec("2x:2")).find("is not a level name"), std::string::npos);
  EXPECT_NE(message_of(Network::from_sim_spec("")).find("is not LEVEL:COUNT"), std::string::npos);
}

TEST(Network, File) {
  const char* text =
      "# two levels\n"
      "levels Switch Island\n"
      "n1.cluster sw1 east\n"
      "n2 sw1 east   # same switch\n"
      "\n"
      "n3 sw2 west\n";
  auto n = Network::from_file(text, "net.txt");
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  EXPECT_EQ(n->levels_top_down(), (std::vector<std::string>{"Island", "Switch"}));
  EXPECT_EQ(*n->links(0, "n3"), (std::vector<Link>{{"Island", -2, 1}, {"Switch", -1, 1}}));
  EXPECT_EQ(*n->links(0, "n1.cluster"), (std::vector<Link>{{"Island", -2, 0}, {"Switch", -1, 0}}));
  EXPECT_EQ(*n->links(0, "n2.cluster"), *n->links(0, "n1.cluster"));  // the short name matches too
  auto missing = n->links(0, "n9");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "net.txt does not list node 'n9'");
}

TEST(Network, FileErrors) {
  EXPECT_EQ(message_of(Network::from_file("n1 sw1\n", "f")), "f line 1: expected 'levels NAME ...' first");
  EXPECT_EQ(message_of(Network::from_file("levels Switch\nn1 sw1 x\n", "f")),
            "f line 2: expected a node name and 1 objects");
  EXPECT_EQ(message_of(Network::from_file("levels Switch Island\nn1 sw1 a\nn2 sw1 b\n", "f")),
            "f line 3: Switch 'sw1' is in another Island on line 2");
  EXPECT_EQ(message_of(Network::from_file("levels Switch\nn1 s\nn1 t\n", "f")), "f line 3: node 'n1' is listed twice");
  EXPECT_EQ(message_of(Network::from_file("# nothing\n", "f")), "f: no 'levels' line");
}

TEST(Network, LevelRequests) {
  auto n = *Network::from_sim_spec("Switch:2");
  const std::vector<std::string> here = {"Switch", "Machine", "Package", "Core"};
  EXPECT_EQ(*level_for_request("switch", n, here), "Switch");
  EXPECT_EQ(*level_for_request("Socket", n, here), "Package");
  EXPECT_EQ(*level_for_request("MPI_HW_LEVEL0", n, here), "Switch");
  EXPECT_EQ(*level_for_request(" mpi_hw_level2 ", n, here), "Package");
  auto far = level_for_request("MPI_HW_LEVEL4", n, here);
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.status().message(),
            "'MPI_HW_LEVEL4': this node has 4 levels (MPI_HW_LEVEL0 .. 3: Switch, Machine, Package, Core)");
  EXPECT_FALSE(level_for_request("MPI_HW_LEVELx", n, here).ok());
  auto unknown = level_for_request("Rack", n, here);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("network levels: Switch"), std::string::npos);
  EXPECT_TRUE(names_level_number("MPI_HW_LEVEL7"));
  EXPECT_FALSE(names_level_number("MPI_HW_LEVEL"));
}

// 8 nodes of one process each under Switch:2,Island:2.
std::vector<Member> cluster(int nodes) {
  auto t = Topology::load(TopologySource::synthetic("Package:2 Core:2 PU:1"));
  EXPECT_TRUE(t.ok());
  auto net = *Network::from_sim_spec("Switch:2,Island:2");
  std::vector<Member> v;
  for (int k = 0; k < nodes; ++k) {
    Member m;
    m.node = k;
    m.chain = chain_of(t->machine(), t->machine().nodes[static_cast<std::size_t>(t->machine().cores()[0])].cpuset);
    m.network = *net.links(k, "");
    v.push_back(m);
  }
  return v;
}

TEST(Network, SplitsAndQueriesAcrossNodes) {
  std::vector<Member> v = cluster(8);
  Split s = split_undirected(v);
  EXPECT_EQ(s.level, "Island");
  EXPECT_EQ(s.color, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  std::vector<Member> island(v.begin(), v.begin() + 4);
  EXPECT_EQ(split_undirected(island).level, "Switch");
  std::vector<Member> sw(v.begin() + 2, v.begin() + 4);
  EXPECT_EQ(split_undirected(sw).level, "Machine");
  // Two nodes of different switches in one island: the switch splits them.
  std::vector<Member> pair = {v[1], v[2]};
  EXPECT_EQ(split_undirected(pair).level, "Switch");
  EXPECT_EQ(split_directed(v, "Switch").color, (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(split_directed(v, "Island").parts, 2);
  EXPECT_EQ(*min_domain(v, std::vector<int>{0, 1}, 0), "Switch");
  EXPECT_EQ(*min_domain(v, std::vector<int>{0, 3}, 0), "Island");
  EXPECT_EQ(*min_domain(v, std::vector<int>{0, 4}, 0), std::string(kClusterLevel));
  EXPECT_EQ(neighbours(v, 5, 1, Metric::tree), (std::vector<int>{4, 5}));
  EXPECT_EQ(neighbours(v, 5, 2, Metric::tree), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(neighbours(v, 5, 0, Metric::memory), (std::vector<int>{5}));
  EXPECT_EQ(neighbours(v, 5, 1, Metric::memory), (std::vector<int>{4, 5}));
  EXPECT_EQ(neighbours(v, 5, 3, Metric::memory).size(), 8u);
  // Records carry the network links across the allgather.
  auto back = decode(encode(v[5]));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->network, v[5].network);
  EXPECT_EQ(back->chain, v[5].chain);
  EXPECT_FALSE(decode("0|Machine:0:0|Switch:-1:0").ok());  // network links come first
}

}  // namespace
}  // namespace osmp::hier
