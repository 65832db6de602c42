// Network levels above the nodes (hsplit paper section 4.2: switches,
// islands), so that hardware splits walk world > island > switch > node.
// hwloc stops at the Machine; these come from the environment instead:
//
//   OSMP_SIM_NETWORK="Switch:4,Island:2"   simulated nodes k = 0, 1, ...: every
//       4 nodes share a switch (k / 4), every 2 switches an island (k / 8).
//       Levels are listed nearest the nodes first.
//   OSMP_NETWORK_FILE=PATH                 a real cluster: a text file that maps
//       each node's name to its switch, island, ... (format at parse_file()).
//
// A network level is a Link above the Machine: the level nearest the nodes
// has order -1, the next -2, ...; its index numbers the objects of that level
// across the whole job. Pure; the MPI side reads the environment and the
// node's name.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"
#include "mpi_glue/hierarchy/hierarchy.hpp"

namespace osmp::hier {

class Network {
 public:
  Network() = default;  // no network levels

  // "Switch:4,Island:2". Names are letters, digits and '_', start with a
  // letter, and are not hardware level names (Package, ...), Cluster or Unknown.
  static Result<Network> from_sim_spec(std::string_view spec);

  // The node file. '#' starts a comment; the first line that is not blank is
  //   levels NAME1 NAME2 ...        (nearest the nodes first, as in the sim spec)
  // then one line per node:
  //   NODENAME OBJ1 OBJ2 ...        (the node's object at each level, any names)
  // An object name stands for one object of its level: it must have the same
  // parent on every line. `origin` names the file in messages.
  static Result<Network> from_file(std::string_view text, std::string_view origin);

  bool empty() const { return levels_.empty(); }
  // Level names, widest first (the order MPIX_Get_hw_topology_info lists them).
  std::vector<std::string> levels_top_down() const;
  // The canonical spelling of a network level name (case-insensitive), or nullopt.
  std::optional<std::string> level_named(std::string_view name) const;

  // The network links of a node, widest first: a simulated network numbers
  // nodes 0, 1, ... (`node`); a file looks the node up by `name` (or by the
  // part of it before the first '.').
  Result<std::vector<Link>> links(int node, std::string_view name) const;

 private:
  std::vector<std::string> levels_;  // nearest the nodes first
  std::vector<int> fan_in_;          // simulated: units of the level below per object
  // From a file: per node name, its object index at each level (nearest first).
  std::map<std::string, std::vector<int>, std::less<>> placed_;
  std::string origin_;
};

// The level names of this node with the network's above them, widest first:
// MPI_HW_LEVEL0, MPI_HW_LEVEL1, ... of MPIX_Get_hw_topology_info.
std::vector<std::string> levels(const MachineTree& machine, const Network& network);

// Is `name` "MPI_HW_LEVEL<something>" (any case)?
bool names_level_number(std::string_view name);

// level_for_request() plus the network's level names, and "MPI_HW_LEVELn":
// entry n of `here` (what levels() gives on the caller's node).
Result<std::string> level_for_request(std::string_view name, const Network& network,
                                      const std::vector<std::string>& here);

}  // namespace osmp::hier
