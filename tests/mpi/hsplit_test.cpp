// Hierarchical communicators under mpirun (CTest label mpi), built against
// Open MPI and MPICH. Every rank checks its own communicators against the
// papers' worked cases, or against hwloc itself for real XML machines.
//
// usage: hsplit_test SCENARIO [args]
//   paper51            32 ranks: 4 simulated nodes, hsplit paper section 5.1
//   paper52            8 ranks: non-uniform binding, section 5.2
//   directed XML RPN   directed splits on every level of XML, RPN ranks per node
//   unbound RPN        simulated nodes with unbound ranks
//   real               this machine, as mpirun bound the ranks
//   mpi4               MPI_COMM_TYPE_HW_GUIDED / HW_UNGUIDED
//   errors             every error path, then a split that works
//   memory KIND        MPIX_HW_METRIC_MEMORY where NUMA nodes hold packages
//                      (KIND groups, 16 ranks) or sit in them (snc, 16 ranks)
//   network            16 ranks: 8 nodes under OSMP_SIM_NETWORK=Switch:2,Island:2
//   network_file FILE  12 ranks: 6 nodes placed by an OSMP_NETWORK_FILE
//   info [interposer]  MPI_Comm_get_info of hardware communicators (8 ranks);
//                      "interposer": with libosmp_pmpi preloaded, both wrappers
#include <hwloc.h>
#include <osmp_mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "hsplit_support.hpp"

namespace hsplit_test {
namespace {

// ---- section 5.1 ---------------------------------------------------------

void paper51() {
  setenv("OSMP_TOPOLOGY", kPaperMachine, 1);
  setenv("OSMP_SIM_RANKS_PER_NODE", "8", 1);
  const int k = g_world / 8, i = g_world % 8, base = 8 * k;
  // Expected newcomm and rootscomm per step (world ranks), paper section 5.1.
  struct Step {
    std::vector<int> comm, roots;
    const char* type;
    int parts, index;
  };
  const int numa = i / 4, l2 = i / 2;
  std::vector<Step> steps = {
      {range(base, 8), i == 0 ? std::vector<int>{0, 8, 16, 24} : std::vector<int>{}, "Machine", 4, k},
      {range(base + 4 * numa, 4), i % 4 == 0 ? std::vector<int>{base, base + 4} : std::vector<int>{}, "Package", 2,
       numa},
      {range(base + 2 * l2, 2),
       i % 2 == 0 ? std::vector<int>{base + 4 * numa, base + 4 * numa + 2} : std::vector<int>{}, "L2Cache", 2, l2 % 2},
      {{g_world}, {base + 2 * l2, base + 2 * l2 + 1}, "Core", 2, i % 2},
      {{}, {}, "", 0, 0},
  };
  for (int mode = 0; mode < 2; ++mode) {  // hsplit_with_roots, then MPIX_Comm_split_type
    MPI_Comm old = MPI_COMM_WORLD;
    std::vector<MPI_Comm> made;
    for (std::size_t s = 0; s < steps.size(); ++s) {
      std::string what = std::string(mode ? "split_type" : "hsplit") + " step " + std::to_string(s + 1);
      MPI_Comm next = MPI_COMM_NULL, roots = MPI_COMM_NULL;
      int rank = 0;
      MPI_Comm_rank(old, &rank);
      int rc = mode ? MPIX_Comm_split_type(old, MPIX_COMM_TYPE_HW_DOMAIN, rank, MPI_INFO_NULL, &next)
                    : MPIX_Comm_hsplit_with_roots(old, MPI_INFO_NULL, &next, &roots);
      expect(rc == MPI_SUCCESS, what + ": returned an error");
      expect_comm(next, steps[s].comm, what);
      if (!mode) expect_comm(roots, steps[s].roots, what + " roots");
      if (next != MPI_COMM_NULL) {
        int cmp = 0;
        MPI_Comm_compare(old, next, &cmp);
        expect(cmp == MPI_UNEQUAL, what + ": not a strict subset of its parent");
        int parts = 0, index = 0;
        std::string type = domain_type(next, &parts, &index);
        expect(type == steps[s].type, what + ": type " + type + ", want " + steps[s].type);
        expect(parts == steps[s].parts && index == steps[s].index,
               what + ": parts/index " + std::to_string(parts) + "/" + std::to_string(index));
        if (steps[s].comm.size() == 1) {
          MPI_Comm_compare(next, MPI_COMM_SELF, &cmp);
          expect(cmp == MPI_CONGRUENT, what + ": a one-process communicator is not congruent to MPI_COMM_SELF");
        }
        made.push_back(next);
      }
      if (roots != MPI_COMM_NULL) MPI_Comm_free(&roots);
      if (next == MPI_COMM_NULL) break;
      old = next;
    }
    for (MPI_Comm& c : made) MPI_Comm_free(&c);
  }
  // Queries on MPI_COMM_WORLD (collective the first time).
  std::vector<std::pair<std::vector<int>, std::string>> mins = {{{0, 1}, "L2Cache"}, {{0, 2}, "L3Cache"},
                                                                {{0, 4}, "Machine"}, {{0, 8}, "Cluster"},
                                                                {{1, 2}, "Unknown"}, {{0}, "PU"}};
  for (auto& [ranks, want] : mins) {
    char* type = nullptr;
    int rc = MPIX_Get_min_hw_domain(MPI_COMM_WORLD, static_cast<int>(ranks.size()), ranks.data(), &type);
    if (g_world == 0)
      expect(rc == MPI_SUCCESS && want == type, "min domain of " + list(ranks) + ": " + (type ? type : "?"));
  }
  // Neighbours: tree metric 0..4 hops, memory metric.
  std::vector<std::vector<int>> tree = {
      {g_world}, range(base + 2 * l2, 2), range(base + 4 * numa, 4), range(base, 8), range(0, 32)};
  for (int hops = 0; hops <= 5; ++hops) {
    MPI_Group g;
    MPIX_Get_hw_domain_neighbours(MPI_COMM_WORLD, hops, MPIX_HW_METRIC_TREE, &g);
    MPI_Comm c;
    MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &c);  // only to reuse members()
    expect_comm(c, tree[static_cast<std::size_t>(std::min(hops, 4))], "tree neighbours, hops " + std::to_string(hops));
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
  }
  std::vector<std::vector<int>> memory = {range(base + 4 * numa, 4), range(base, 8), range(0, 32)};
  for (int hops = 0; hops <= 2; ++hops) {
    MPI_Group g;
    MPIX_Get_hw_domain_neighbours(MPI_COMM_WORLD, hops, MPIX_HW_METRIC_MEMORY, &g);
    MPI_Comm c;
    MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &c);
    expect_comm(c, memory[static_cast<std::size_t>(hops)], "memory neighbours, hops " + std::to_string(hops));
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
  }
}

// ---- section 5.2 ---------------------------------------------------------

void paper52() {
  setenv("OSMP_TOPOLOGY", kPaperMachine, 1);
  setenv("OSMP_SIM_RANKS_PER_NODE", "8", 1);
  setenv("OSMP_SIM_PLACES", "Core:0;Core:1;L2Cache:1;L2Cache:1;NUMANode:1;NUMANode:1;NUMANode:1;NUMANode:1", 1);
  const int r = g_world;
  std::vector<std::vector<int>> want = {
      r < 4 ? range(0, 4) : range(4, 4),
      r < 2   ? range(0, 2)
      : r < 4 ? range(2, 2)
              : std::vector<int>{},
      r < 2 ? std::vector<int>{r} : std::vector<int>{},
      {},
  };
  std::vector<std::vector<int>> roots = {
      r == 0 || r == 4 ? std::vector<int>{0, 4} : std::vector<int>{},
      r == 0 || r == 2 ? std::vector<int>{0, 2} : std::vector<int>{},
      r < 2 ? std::vector<int>{0, 1} : std::vector<int>{},
      {},
  };
  MPI_Comm old = MPI_COMM_WORLD;
  for (std::size_t s = 0; s < want.size() && old != MPI_COMM_NULL; ++s) {
    MPI_Comm next, root;
    MPIX_Comm_hsplit_with_roots(old, MPI_INFO_NULL, &next, &root);
    expect_comm(next, want[s], "step " + std::to_string(s + 1));
    expect_comm(root, roots[s], "step " + std::to_string(s + 1) + " roots");
    if (root != MPI_COMM_NULL) MPI_Comm_free(&root);
    if (old != MPI_COMM_WORLD) MPI_Comm_free(&old);
    old = next;
  }
  if (old != MPI_COMM_NULL && old != MPI_COMM_WORLD) MPI_Comm_free(&old);
  // Directed below a binding gives MPI_COMM_NULL: rank 4 is bound to a NUMA node.
  MPI_Info info = info_with(MPIX_HW_DOMAIN_TYPE_KEY, "Core");
  MPI_Comm c;
  MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, info, &c);
  expect_comm(c, r < 2 ? std::vector<int>{r} : std::vector<int>{}, "directed Core");
  if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  MPI_Info_free(&info);
}

// ---- directed splits on a real XML machine, checked against hwloc --------

struct Oracle {
  hwloc_topology_t topo{};
  std::vector<hwloc_obj_t> place_of_local;  // per node-local rank: its core
  explicit Oracle(const char* xml, int rpn) {
    hwloc_topology_init(&topo);
    hwloc_topology_set_xml(topo, xml);
    hwloc_topology_load(topo);
    int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    std::string places;
    for (int i = 0; i < rpn; ++i) {  // spread over the machine
      int idx = static_cast<int>(static_cast<long long>(i) * cores / rpn);
      place_of_local.push_back(hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, static_cast<unsigned>(idx)));
      places += (i ? ";Core:" : "Core:") + std::to_string(idx);
    }
    setenv("OSMP_SIM_PLACES", places.c_str(), 1);
  }
  ~Oracle() { hwloc_topology_destroy(topo); }
  // The object of `level` holding rank w's core, as (type, logical index); nullopt: none.
  long long object(const std::string& level, int w, int rpn) const {
    hwloc_obj_type_t type;
    hwloc_obj_attr_u attr;
    if (hwloc_type_sscanf(level.c_str(), &type, &attr, sizeof(attr)) != 0) return -2;
    hwloc_obj_t core = place_of_local[static_cast<std::size_t>(w % rpn)];
    if (type == HWLOC_OBJ_MACHINE) return w / rpn;
    int depth = hwloc_get_type_depth(topo, type);
    if (type == HWLOC_OBJ_GROUP || type == HWLOC_OBJ_L1CACHE || type == HWLOC_OBJ_L2CACHE ||
        type == HWLOC_OBJ_L3CACHE) {
      // several depths may carry the type (Group0, Group1): match the name
      for (int d = 0; d < hwloc_topology_get_depth(topo); ++d) {
        hwloc_obj_t o = hwloc_get_obj_by_depth(topo, d, 0);
        char name[64];
        hwloc_obj_type_snprintf(name, sizeof(name), o, 1);
        if (o->type == type && level == name) depth = d;
      }
    }
    int n = hwloc_get_nbobjs_by_depth(topo, depth);
    for (int k = 0; k < n; ++k) {
      hwloc_obj_t o = hwloc_get_obj_by_depth(topo, depth, static_cast<unsigned>(k));
      if (hwloc_bitmap_isincluded(core->cpuset, o->cpuset)) return (w / rpn) * 100000LL + o->logical_index;
    }
    return -1;
  }
};

void directed(const char* xml, int rpn) {
  setenv("OSMP_TOPOLOGY", xml, 1);
  setenv("OSMP_SIM_RANKS_PER_NODE", std::to_string(rpn).c_str(), 1);
  Oracle oracle(xml, rpn);
  MPI_Info levels;
  MPI_Info_create(&levels);
  int n = 0;
  expect(MPIX_Get_hw_topology_info(&n, levels) == MPI_SUCCESS && n >= 2, "MPIX_Get_hw_topology_info");
  for (int l = 0; l < n; ++l) {
    char key[32], value[MPI_MAX_INFO_VAL];
    int flag = 0;
    std::snprintf(key, sizeof(key), "MPI_HW_LEVEL%d", l);
    MPI_Info_get(levels, key, MPI_MAX_INFO_VAL - 1, value, &flag);
    expect(flag, std::string("missing ") + key);
    MPI_Info info = info_with(MPIX_HW_DOMAIN_TYPE_KEY, value);
    MPI_Comm c;
    int rc = MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, g_world, info, &c);
    expect(rc == MPI_SUCCESS, std::string("directed ") + value + ": error");
    std::vector<int> want;
    long long mine = oracle.object(value, g_world, rpn);
    if (mine >= 0)
      for (int w = 0; w < g_size; ++w)
        if (oracle.object(value, w, rpn) == mine) want.push_back(w);
    expect_comm(c, want, std::string("directed ") + value + " on " + xml);
    if (c != MPI_COMM_NULL) {
      std::string type = domain_type(c);
      expect(type == value, std::string("directed ") + value + ": type " + type);
      MPI_Comm_free(&c);
    }
    MPI_Info_free(&info);
    // The key itself is a level too (MPI_HW_LEVELn as a value of MPI_HW_DOMAIN_TYPE).
    MPI_Comm by_key = directed_split(MPI_COMM_WORLD, key);
    expect_comm(by_key, want, std::string("directed ") + key + " (" + value + ") on " + xml);
    if (by_key != MPI_COMM_NULL) {
      expect(domain_type(by_key) == value, std::string(key) + ": type " + domain_type(by_key));
      MPI_Comm_free(&by_key);
    }
  }
  MPI_Info_free(&levels);
  // Aliases give the same communicators as the hwloc names.
  for (auto [alias, name] :
       {std::pair{"Socket", "Package"}, std::pair{"NUMA", "NUMANode"}, std::pair{"Node", "Machine"}}) {
    MPI_Comm a, b;
    MPI_Info ia = info_with(MPIX_HW_DOMAIN_TYPE_KEY, alias), ib = info_with(MPIX_HW_DOMAIN_TYPE_KEY, name);
    MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, ia, &a);
    MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, ib, &b);
    expect(members(a) == members(b), std::string("alias ") + alias + " differs from " + name);
    for (MPI_Comm* c : {&a, &b})
      if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
    MPI_Info_free(&ia);
    MPI_Info_free(&ib);
  }
}

// ---- unbound processes ---------------------------------------------------

void unbound(int rpn) {
  setenv("OSMP_TOPOLOGY", kPaperMachine, 1);
  setenv("OSMP_SIM_RANKS_PER_NODE", std::to_string(rpn).c_str(), 1);
  setenv("OSMP_SIM_BIND", "none", 1);
  MPI_Comm node, below;
  MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, g_world, MPI_INFO_NULL, &node);
  expect_comm(node, range(g_world / rpn * rpn, rpn), "unbound: first split is the node");
  MPIX_Comm_split_type(node, MPIX_COMM_TYPE_HW_DOMAIN, 0, MPI_INFO_NULL, &below);
  expect_comm(below, {}, "unbound: nothing below the node");
  for (const char* level : {"Package", "NUMANode", "L3", "Core"}) {
    MPI_Info info = info_with(MPIX_HW_DOMAIN_TYPE_KEY, level);
    MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, info, &below);
    expect_comm(below, {}, std::string("unbound: directed ") + level);
    MPI_Info_free(&info);
  }
  MPI_Comm_free(&node);
}

// ---- this machine, real bindings -----------------------------------------

void real() {
  MPI_Comm shared, node, below;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  MPI_Info info = info_with(MPIX_HW_DOMAIN_TYPE_KEY, "Machine");
  MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, info, &node);
  int cmp = 0;
  MPI_Comm_compare(shared, node, &cmp);
  expect(cmp == MPI_CONGRUENT || cmp == MPI_IDENT, "directed Machine differs from MPI_COMM_TYPE_SHARED");
  // Undirected: a strict subset that shares its reported level, or MPI_COMM_NULL.
  MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, MPI_INFO_NULL, &below);
  cpu_set_t mask;
  sched_getaffinity(0, sizeof(mask), &mask);
  bool bound = CPU_COUNT(&mask) < static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  if (!bound) expect_comm(below, {}, "unbound ranks go no deeper than the node");
  if (below != MPI_COMM_NULL) {
    MPI_Comm_compare(MPI_COMM_WORLD, below, &cmp);
    expect(cmp == MPI_UNEQUAL, "undirected split is not a strict subset");
    std::printf("rank %d: undirected split on this machine: %s %s\n", g_world, domain_type(below).c_str(),
                list(members(below)).c_str());
    MPI_Comm_free(&below);
  }
  MPI_Comm_free(&shared);
  MPI_Comm_free(&node);
  MPI_Info_free(&info);
}

// ---- MPI-4 spellings -----------------------------------------------------

void mpi4() {
  setenv("OSMP_TOPOLOGY", kPaperMachine, 1);
  setenv("OSMP_SIM_RANKS_PER_NODE", "4", 1);
  MPI_Info info = info_with(MPIX_HW_RESOURCE_TYPE_KEY, "Package");
  MPI_Comm c;
  MPIX_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c);
  const int base = g_world / 4 * 4, i = g_world % 4;  // 4 per node: cores 0-3, all in package 0
  expect_comm(c, range(base, 4), "HW_GUIDED Package (one package used: the whole node)");
  MPI_Comm_free(&c);
  MPI_Info_set(info, MPIX_HW_RESOURCE_TYPE_KEY, "mpi_shared_memory");
  MPIX_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c);
  expect_comm(c, range(base, 4), "HW_GUIDED mpi_shared_memory");
  MPI_Info_free(&info);
  // Unguided from the node: the level goes back into info.
  MPI_Info out;
  MPI_Info_create(&out);
  MPI_Comm d;
  MPIX_Comm_split_type(c, MPI_COMM_TYPE_HW_UNGUIDED, 0, out, &d);
  expect_comm(d, range(base + i / 2 * 2, 2), "HW_UNGUIDED below the node");
  char value[MPI_MAX_INFO_VAL];
  int flag = 0;
  MPI_Info_get(out, MPIX_HW_RESOURCE_TYPE_KEY, MPI_MAX_INFO_VAL - 1, value, &flag);
  expect(flag && std::string(value) == "L2Cache", std::string("HW_UNGUIDED wrote back '") + (flag ? value : "") + "'");
  MPI_Info_free(&out);
  MPI_Comm_free(&d);
  MPI_Comm_free(&c);
  // Any other split type is the MPI's own.
  MPIX_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c);
  expect(members(c).size() == static_cast<std::size_t>(g_size), "MPI_COMM_TYPE_SHARED passes through");
  MPI_Comm_free(&c);
}

// ---- errors ----------------------------------------------------------------

void errors() {
  setenv("OSMP_TOPOLOGY", kPaperMachine, 1);
  setenv("OSMP_SIM_RANKS_PER_NODE", "4", 1);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm c;
  // First, before any topology is loaded: a bad place fails on every rank.
  setenv("OSMP_SIM_PLACES", "Core:0;Core:99", 1);
  expect_error(MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG,
               "OSMP_SIM_PLACES", "bad simulated place");
  unsetenv("OSMP_SIM_PLACES");
  MPI_Info bad = info_with(MPIX_HW_DOMAIN_TYPE_KEY, "L7Cache");
  expect_error(MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, bad, &c), MPI_ERR_INFO_VALUE,
               "unknown hardware level 'L7Cache'", "unknown level");
  expect(c == MPI_COMM_NULL, "unknown level: newcomm not MPI_COMM_NULL");
  MPI_Info_free(&bad);
  MPI_Info far = info_with(MPIX_HW_DOMAIN_TYPE_KEY, "MPI_HW_LEVEL99");
  expect_error(MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, far, &c), MPI_ERR_INFO_VALUE,
               "'MPI_HW_LEVEL99': this node has 7 levels (MPI_HW_LEVEL0 .. 6: Machine,", "MPI_HW_LEVEL out of range");
  MPI_Info_free(&far);
  setenv("OSMP_SIM_NETWORK", "Switch:2,Package:2", 1);
  expect_error(MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG,
               "'Package' is taken", "network level named like a hardware level");
  setenv("OSMP_SIM_NETWORK", "Switch:2", 1);
  setenv("OSMP_NETWORK_FILE", "/nonexistent", 1);
  expect_error(MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG,
               "OSMP_SIM_NETWORK and OSMP_NETWORK_FILE are both set", "two network sources");
  unsetenv("OSMP_SIM_NETWORK");
  expect_error(MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG,
               "OSMP_NETWORK_FILE: cannot read '/nonexistent'", "unreadable network file");
  unsetenv("OSMP_NETWORK_FILE");
  MPI_Info mixed = info_with(MPIX_HW_DOMAIN_TYPE_KEY, g_world == 0 ? "Package" : "L3");
  expect_error(MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, mixed, &c), MPI_ERR_ARG,
               "ranks disagree on the arguments: rank 0 passed 'directed Package'", "levels differ across ranks");
  MPI_Info_free(&mixed);
  MPI_Info empty;
  MPI_Info_create(&empty);
  expect_error(MPIX_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, empty, &c), MPI_ERR_INFO_VALUE,
               "mpi_hw_resource_type", "HW_GUIDED without a level");
  MPI_Info_free(&empty);
  int ranks[2] = {0, g_size};
  char* type = nullptr;
  expect_error(MPIX_Get_min_hw_domain(MPI_COMM_WORLD, 2, ranks, &type), MPI_ERR_ARG, "is not a rank",
               "rank out of range");
  MPI_Group g;
  expect_error(MPIX_Get_hw_domain_neighbours(MPI_COMM_WORLD, -1, MPIX_HW_METRIC_TREE, &g), MPI_ERR_ARG, "hops = -1",
               "negative hops");
  expect_error(MPIX_Get_hw_domain_neighbours(MPI_COMM_WORLD, 1, 7, &g), MPI_ERR_ARG, "metric = 7", "bad metric");
  expect_error(
      MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, MPI_INFO_NULL, g_world == 1 ? nullptr : &c),
      MPI_ERR_ARG, "newcomm is NULL", "one rank passes newcomm NULL");
  int rc = MPIX_Get_hw_domain_neighbours(MPI_COMM_WORLD, g_world == 1 ? -1 : 1, MPIX_HW_METRIC_TREE, &g);
  if (g_world == 1)
    expect_error(rc, MPI_ERR_ARG, "hops = -1", "negative hops on one rank");
  else
    expect(rc == MPI_SUCCESS, "neighbours failed where another rank passed bad hops"), MPI_Group_free(&g);
  // Still usable.
  expect(MPIX_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_HW_DOMAIN, 0, MPI_INFO_NULL, &c) == MPI_SUCCESS,
         "a split after the errors failed");
  expect_comm(c, range(g_world / 4 * 4, 4), "a split after the errors");
  if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
}

}  // namespace
}  // namespace hsplit_test

using namespace hsplit_test;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string scenario = argc > 1 ? argv[1] : "";
  auto need = [&](int n) {
    if (g_size != n) {
      if (g_world == 0) std::fprintf(stderr, "%s needs %d ranks, got %d\n", scenario.c_str(), n, g_size);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  };
  if (scenario == "paper51")
    need(32), paper51();
  else if (scenario == "paper52")
    need(8), paper52();
  else if (scenario == "directed" && argc > 3)
    directed(argv[2], std::atoi(argv[3]));
  else if (scenario == "unbound" && argc > 2)
    unbound(std::atoi(argv[2]));
  else if (scenario == "real")
    real();
  else if (scenario == "mpi4")
    mpi4();
  else if (scenario == "errors")
    errors();
  else if (scenario == "memory" && argc > 3)
    need(16), memory(argv[2], argv[3]);
  else if (scenario == "network")
    need(16), network();
  else if (scenario == "network_file" && argc > 2)
    need(12), network_file(argv[2]);
  else if (scenario == "info")
    info(argc > 2 && std::string(argv[2]) == "interposer");
  else {
    if (g_world == 0)
      std::fprintf(stderr,
                   "usage: hsplit_test paper51|paper52|directed XML RPN|unbound RPN|real|mpi4|errors|"
                   "memory KIND DATA|network|network_file DATA|info [interposer]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int total = 0;
  MPI_Allreduce(&g_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_world == 0) std::printf("hsplit %s, %d ranks: %s\n", scenario.c_str(), g_size, total ? "FAILED" : "ok");
  MPI_Finalize();
  return total ? 1 : 0;
}
