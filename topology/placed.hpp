// A machine and a placement of ranks on it, as the commands describe them
// (osmp-topo, osmp-model): a topology source, a process count, --map-by and
// --bind-to as text. One parser, so that they agree and fail alike.
#pragma once

#include <string>
#include <vector>

#include "core/status.hpp"
#include "topology/placement.hpp"
#include "topology/topology.hpp"

namespace osmp {

struct PlacementArgs {
  std::string topology;         // as --topology (TopologySource::parse)
  bool topology_given = false;  // else OSMP_TOPOLOGY, else this machine
  int np = 0;                   // 0: one per core
  std::string map_by = "core";
  std::string bind_to;          // "": core, or pu with --map-by pu
  bool oversubscribe = false;
};

struct Placed {
  Topology topology;
  PlacementRequest request;
  std::vector<CpuSet> places;
  std::string placement;        // "map-by core, bind-to core"
};

// Loads the topology and places the ranks; errors name the bad value.
Result<Placed> load_and_place(const PlacementArgs& args);

}  // namespace osmp
