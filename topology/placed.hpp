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

// The lines of a command's usage that describe these options.
inline constexpr const char* kPlacementUsage =
    "  --topology SRC     this machine (default, or OSMP_TOPOLOGY), FILE.xml, an hwloc\n"
    "                     synthetic string, or a paper machine: rome, rome-smt,\n"
    "                     cascadelake, cascadelake-ht, power9, a64fx\n"
    "  -n, --np N         number of processes (default: one per core)\n"
    "  --map-by POLICY    core (default), pu, l3, numa, package, scatter\n"
    "  --bind-to WIDTH    core (default; pu with --map-by pu), pu, l3, numa, package, none\n"
    "  --oversubscribe    allow more processes than cores\n";

struct PlacementArgs {
  std::string topology;         // as --topology (TopologySource::parse)
  bool topology_given = false;  // else OSMP_TOPOLOGY, else this machine
  int np = 0;                   // 0: one per core
  std::string map_by = "core";
  std::string bind_to;  // "": core, or pu with --map-by pu
  bool oversubscribe = false;
};

struct Placed {
  Topology topology;
  PlacementRequest request;
  std::vector<CpuSet> places;
  std::string placement;  // "map-by core, bind-to core"
};

// Loads the topology and places the ranks; errors name the bad value.
Result<Placed> load_and_place(const PlacementArgs& args);

}  // namespace osmp
