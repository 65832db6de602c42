// Placement policies: which core each rank runs on (mapping) and how wide its
// binding is. Used by osmp-topo to describe runs and by the launcher to bind.
#pragma once

#include <string_view>
#include <vector>

#include "core/status.hpp"
#include "topology/cpuset.hpp"
#include "topology/machine_tree.hpp"

namespace osmp {

// core:    rank i on the i-th core in logical order (the paper's "linear").
// pu:      rank i on the i-th hardware thread.
// l3, numa, package: round-robin over those domains, filling each in core
//          order (the paper's "numa" mapping is `numa`).
// scatter: as far apart as possible: round-robin at every level of the tree.
enum class MapBy { core, pu, l3, numa, package, scatter };
// Width of each rank's binding around its mapped core; none = every PU.
enum class BindTo { pu, core, l3, numa, package, none };

struct PlacementRequest {
  int nprocs = 1;
  MapBy map_by = MapBy::core;
  BindTo bind_to = BindTo::core;
  // Wrap around when there are more ranks than cores (or PUs for map-by pu).
  bool oversubscribe = false;
};

Result<MapBy> parse_map_by(std::string_view text);
Result<BindTo> parse_bind_to(std::string_view text);
const char* to_string(MapBy m);
const char* to_string(BindTo b);
// The level a binding width names: Core, L3Cache, NUMANode, Package, PU, Machine.
const char* level_of(BindTo b);

// The order in which ranks take slots (Core or PU node ids of `machine`).
Result<std::vector<int>> mapping_order(const MachineTree& machine, MapBy map_by);

// One place (binding cpuset) per rank.
Result<std::vector<CpuSet>> place_ranks(const MachineTree& machine, const PlacementRequest& req);

}  // namespace osmp
