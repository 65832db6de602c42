// Hierarchical communicators under mpirun, continued (hsplit_test's
// scenarios memory, network, network_file, info): the memory metric where
// NUMA nodes and packages nest either way, network levels above the nodes,
// and the level a hardware communicator reports through MPI_Comm_get_info.
#include <osmp_mpi.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "hsplit_support.hpp"

namespace hsplit_test {

// ---- memory metric: NUMA nodes holding packages, or inside them -----------

// groups: 2 nodes of Group:2 [NUMANode] Package:2 Core:2 (a NUMA node holds
// two packages); snc: 2 nodes of the Cascade Lake SNC2 XML, 8 ranks each on
// cores 0, 1, 10, 11, 20, 21, 30, 31 (a package holds two NUMA nodes).
void memory(const std::string& kind, const std::string& data) {
  setenv("OSMP_SIM_RANKS_PER_NODE", "8", 1);
  const int base = g_world / 8 * 8, i = g_world % 8;
  if (kind == "groups") {
    setenv("OSMP_TOPOLOGY", "Group:2 [NUMANode] Package:2 Core:2 PU:1", 1);
  } else {
    std::string xml = data + "/topologies/intel-cascadelake-2x20c-gold6230-snc2-memcache.xml";
    setenv("OSMP_TOPOLOGY", xml.c_str(), 1);
    setenv("OSMP_SIM_PLACES", "Core:0;Core:1;Core:10;Core:11;Core:20;Core:21;Core:30;Core:31", 1);
  }
  // Both ways: pairs share the inner memory level, fours the outer, then the node.
  const std::vector<std::vector<int>> want = {range(base + i / 2 * 2, 2), range(base + i / 4 * 4, 4), range(base, 8),
                                              range(0, 16)};
  for (int hops = 0; hops < 5; ++hops) {
    std::vector<int> got = neighbours(MPI_COMM_WORLD, hops, MPIX_HW_METRIC_MEMORY);
    const std::vector<int>& w = want[static_cast<std::size_t>(std::min(hops, 3))];
    expect(got == w,
           kind + ": memory neighbours, hops " + std::to_string(hops) + ": " + list(got) + ", want " + list(w));
  }
}

// ---- network levels ----------------------------------------------------------

// 8 nodes of 2 ranks (Package:2 Core:2), every 2 nodes a switch, every 2
// switches an island.
void network() {
  setenv("OSMP_TOPOLOGY", "Package:2 Core:2 PU:1", 1);
  setenv("OSMP_SIM_RANKS_PER_NODE", "2", 1);
  setenv("OSMP_SIM_NETWORK", "Switch:2,Island:2", 1);
  const int w = g_world;
  // Undirected: world > Island > Switch > Machine > Core.
  struct Step {
    std::vector<int> comm;
    const char* type;
    int parts, index;
  };
  const std::vector<Step> steps = {{range(w / 8 * 8, 8), "Island", 2, w / 8},
                                   {range(w / 4 * 4, 4), "Switch", 2, w / 4 % 2},
                                   {range(w / 2 * 2, 2), "Machine", 2, w / 2 % 2},
                                   {{w}, "Core", 2, w % 2}};
  MPI_Comm old = MPI_COMM_WORLD;
  for (std::size_t s = 0; s < steps.size() && old != MPI_COMM_NULL; ++s) {
    MPI_Comm next;
    MPIX_Comm_split_type(old, MPIX_COMM_TYPE_HW_DOMAIN, 0, MPI_INFO_NULL, &next);
    expect_comm(next, steps[s].comm, "network step " + std::to_string(s + 1));
    int parts = 0, index = 0;
    std::string type = next == MPI_COMM_NULL ? "" : domain_type(next, &parts, &index);
    expect(type == steps[s].type && parts == steps[s].parts && index == steps[s].index,
           "network step " + std::to_string(s + 1) + ": " + type + " " + std::to_string(index) + "/" +
               std::to_string(parts));
    if (old != MPI_COMM_WORLD) MPI_Comm_free(&old);
    old = next;
  }
  if (old != MPI_COMM_NULL && old != MPI_COMM_WORLD) MPI_Comm_free(&old);
  // Directed, by name (any case) and by MPI_HW_LEVELn.
  MPI_Info levels;
  MPI_Info_create(&levels);
  int n = 0;
  MPIX_Get_hw_topology_info(&n, levels);
  expect(info_get(levels, "MPI_HW_LEVEL0") == "Island" && info_get(levels, "MPI_HW_LEVEL1") == "Switch" &&
             info_get(levels, "MPI_HW_LEVEL2") == "Machine",
         "topology info: " + info_get(levels, "MPI_HW_LEVEL0") + " " + info_get(levels, "MPI_HW_LEVEL1"));
  MPI_Info_free(&levels);
  for (auto [level, want] : {std::pair{"Switch", range(w / 4 * 4, 4)}, std::pair{"switch", range(w / 4 * 4, 4)},
                             std::pair{"MPI_HW_LEVEL1", range(w / 4 * 4, 4)}, std::pair{"Island", range(w / 8 * 8, 8)},
                             std::pair{"MPI_HW_LEVEL0", range(w / 8 * 8, 8)}}) {
    MPI_Comm c = directed_split(MPI_COMM_WORLD, level);
    expect_comm(c, want, std::string("network: directed ") + level);
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  }
  // Switch inside an island communicator, Switch of a node: the node's switch.
  MPI_Comm island = directed_split(MPI_COMM_WORLD, "Island");
  MPI_Comm sw = directed_split(island, "Switch");
  expect_comm(sw, range(w / 4 * 4, 4), "network: Switch inside the island");
  MPI_Comm node = directed_split(sw, "Machine");
  expect_comm(node, range(w / 2 * 2, 2), "network: node inside the switch");
  for (MPI_Comm* c : {&island, &sw, &node}) MPI_Comm_free(c);
  // Queries.
  if (w == 0) {
    expect(min_domain({0, 1}) == "Package", "min domain {0,1}: " + min_domain({0, 1}));
    expect(min_domain({0, 3}) == "Switch", "min domain {0,3}: " + min_domain({0, 3}));
    expect(min_domain({0, 2, 5}) == "Island", "min domain {0,2,5}: " + min_domain({0, 2, 5}));
    expect(min_domain({0, 15}) == "Cluster", "min domain {0,15}: " + min_domain({0, 15}));
  } else {
    for (auto r : {std::vector<int>{0, 1}, {0, 3}, {0, 2, 5}, {0, 15}}) min_domain(r);  // collective the first time
  }
  const std::vector<std::vector<int>> tree = {
      {w}, range(w / 2 * 2, 2), range(w / 4 * 4, 4), range(w / 8 * 8, 8), range(0, 16)};
  for (int hops = 0; hops <= 5; ++hops) {
    std::vector<int> got = neighbours(MPI_COMM_WORLD, hops, MPIX_HW_METRIC_TREE);
    expect(got == tree[static_cast<std::size_t>(std::min(hops, 4))],
           "network: tree neighbours, hops " + std::to_string(hops) + ": " + list(got));
  }
  const std::vector<std::vector<int>> mem = {range(w / 2 * 2, 2), range(w / 4 * 4, 4), range(w / 8 * 8, 8),
                                             range(0, 16)};
  for (int hops = 0; hops <= 4; ++hops) {
    std::vector<int> got = neighbours(MPI_COMM_WORLD, hops, MPIX_HW_METRIC_MEMORY);
    expect(got == mem[static_cast<std::size_t>(std::min(hops, 3))],
           "network: memory neighbours, hops " + std::to_string(hops) + ": " + list(got));
  }
}

// 6 nodes of 2 ranks named sim0 .. sim5 in FILE: switches of 3, 2 and 1
// nodes, the first two switches in one island.
void network_file(const std::string& data) {
  setenv("OSMP_TOPOLOGY", "Package:2 Core:2 PU:1", 1);
  setenv("OSMP_SIM_RANKS_PER_NODE", "2", 1);
  const std::string dir = data + "/network/";
  setenv("OSMP_NETWORK_FILE", (dir + "sim6.txt").c_str(), 1);
  const int node = g_world / 2;
  const int sw = node < 3 ? 0 : node < 5 ? 1 : 2;
  const std::vector<int> sw_ranks = sw == 0 ? range(0, 6) : sw == 1 ? range(6, 4) : range(10, 2);
  MPI_Comm c;
  MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, MPI_INFO_NULL, &c);
  expect_comm(c, sw < 2 ? range(0, 10) : range(10, 2), "network file: first split is the island");
  expect(domain_type(c) == "Island", "network file: first split type " + domain_type(c));
  MPI_Comm_free(&c);
  c = directed_split(MPI_COMM_WORLD, "Switch");
  expect_comm(c, sw_ranks, "network file: directed Switch");
  MPI_Comm_free(&c);
  const std::string a = min_domain({0, 5}), b = min_domain({0, 7}), d = min_domain({0, 11});
  if (g_world == 0)
    expect(a == "Switch" && b == "Island" && d == "Cluster", "network file: min domains " + a + " " + b + " " + d);
  // A node the file does not list: every rank gets the error.
  setenv("OSMP_NETWORK_FILE", (dir + "sim6-without-sim5.txt").c_str(), 1);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  expect_error(MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG,
               "rank 10: ", "network file without sim5");
  expect_error(MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG,
               "sim6-without-sim5.txt does not list node 'sim5'", "network file without sim5");
}

// ---- the level in the communicator's info ------------------------------------

namespace {

void expect_hw_info(MPI_Comm c, const std::string& what, bool interposer) {
  int parts = 0, index = 0;
  std::string type = domain_type(c, &parts, &index);
  MPI_Info info;
  MPI_Comm_get_info(c, &info);
  const std::string num = std::to_string(parts), rank = std::to_string(index);
  const std::pair<const char*, std::string> keys[] = {{"mpi_hw_resource_type", type}, {"MPI_HW_DOMAIN_TYPE", type},
                                                      {"MPI_HW_DOMAIN_NUM", num},     {"MPI_HW_DOMAIN_RANK", rank},
                                                      {"MPI_COMM_HLEVEL_TYPE", type}, {"MPI_COMM_HLEVEL_NUM", num},
                                                      {"MPI_COMM_HLEVEL_RANK", rank}};
  for (const auto& [key, want] : keys)
    expect(info_get(info, key) == want, what + ": info " + key + " = " + info_get(info, key) + ", want " + want);
  int size = 0;
  MPI_Comm_size(c, &size);
  if (interposer && size > 1)  // the interposer runs no team on one process
    expect(info_get(info, "osmp_vh") != "(unset)", what + ": the interposer's osmp_vh is missing");
  MPI_Info_free(&info);
}

}  // namespace

void info(bool interposer) {
  setenv("OSMP_TOPOLOGY", kPaperMachine, 1);
  setenv("OSMP_SIM_RANKS_PER_NODE", "4", 1);
  MPI_Comm old = MPI_COMM_WORLD;
  int step = 0;
  for (;;) {
    MPI_Comm next, roots;
    MPIX_Comm_hsplit_with_roots(old, MPI_INFO_NULL, &next, &roots);
    if (roots != MPI_COMM_NULL) MPI_Comm_free(&roots);
    if (next == MPI_COMM_NULL) break;
    if (interposer) MPI_Barrier(next);  // the interposer builds its team: its keys show too
    expect_hw_info(next, "undirected step " + std::to_string(++step), interposer);
    if (old != MPI_COMM_WORLD) MPI_Comm_free(&old);
    old = next;
  }
  if (old != MPI_COMM_WORLD) MPI_Comm_free(&old);
  expect(step == 3, "info: " + std::to_string(step) + " steps");
  MPI_Comm l3 = directed_split(MPI_COMM_WORLD, "MPI_HW_LEVEL3");
  expect_hw_info(l3, "directed MPI_HW_LEVEL3", false);
  MPI_Comm copy;
  MPI_Comm_dup(l3, &copy);  // the level goes with a duplicate
  expect_hw_info(copy, "a duplicate", false);
  MPI_Comm_free(&copy);
  MPI_Comm_free(&l3);
  MPI_Info w;
  MPI_Comm_get_info(MPI_COMM_WORLD, &w);
  expect(info_get(w, "mpi_hw_resource_type") == "(unset)", "MPI_COMM_WORLD has a hardware level");
  MPI_Info_free(&w);
}

}  // namespace hsplit_test
