// How the environment lays out the job's nodes: simulated nodes (tests on
// one machine) and network levels above the nodes. Internal to mpi_glue/mpi.
#pragma once

#include <string>
#include <vector>

#include "core/status.hpp"
#include "mpi_glue/hierarchy/network.hpp"

namespace osmp::mpi {

// Simulated nodes: OSMP_SIM_RANKS_PER_NODE=R (or OSMP_SIM_NODES=K) puts
// MPI_COMM_WORLD ranks r in node r / R; each node is the machine of
// OSMP_TOPOLOGY; OSMP_SIM_PLACES lists the place of node-local rank 0, 1, ...
// separated by ';' ("Core:3", "L2:1", "NUMA:1", "none", "0-3"); without it
// local rank i is bound to core i (OSMP_SIM_BIND=none: unbound).
//
// Network levels (hierarchy/network.hpp): OSMP_SIM_NETWORK="Switch:4,Island:2"
// for simulated nodes, or OSMP_NETWORK_FILE=PATH, which names nodes by their
// MPI_Get_processor_name (simulated node k: "sim<k>"). Not both.
struct Layout {
  bool simulated = false;
  int ranks_per_node = 0;
  std::vector<std::string> places;
  bool unbound = false;
  hier::Network network;
};
Result<Layout> layout_from_env();

// The name the network file knows `node` by (sim: "sim<node>"); local.
std::string node_name(const Layout& layout, int node);

}  // namespace osmp::mpi
