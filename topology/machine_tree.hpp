// The machine as osmp sees it: the hwloc objects that can split processes
// (Machine, Groups, Package, Die, NUMA nodes, caches L2 and up, Core, PU),
// copied out of hwloc into plain values. Pure data; no hwloc types.
#pragma once

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "topology/cpuset.hpp"

namespace osmp {

struct MachineNode {
  std::string level;      // canonical level name, e.g. "L3Cache", "Group0"
  double order = 0;       // top-down position of the level: hwloc depth, NUMA = holder + 0.5
  int logical_index = 0;  // hwloc logical index within its level
  unsigned os_index = std::numeric_limits<unsigned>::max();  // max(): none
  std::string subtype;  // hwloc subtype ("Cluster", "MemorySideCache"), may be empty
  CpuSet cpuset;
  int parent = -1;
  std::vector<int> children;              // logical order
  std::vector<unsigned> numa_os_indexes;  // NUMANode only: every memory node here, DRAM first
};

struct MachineTree {
  std::vector<MachineNode> nodes;  // nodes[0] is the Machine

  const MachineNode& root() const { return nodes.front(); }
  const CpuSet& pus() const { return nodes.front().cpuset; }
  unsigned pu_count() const { return pus().count(); }

  // Nodes of one level, in logical order.
  std::vector<int> nodes_of_level(std::string_view level) const;
  // Core nodes in logical order, or PU nodes when the topology has no cores.
  std::vector<int> cores() const;
  // Distinct level names, top-down.
  std::vector<std::string> level_names() const;
  // Lowest ancestor-or-self of `node` whose level is `level`, or -1.
  int ancestor_of_level(int node, std::string_view level) const;
};

}  // namespace osmp
