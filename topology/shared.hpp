// A process's topologies, each loaded once: a team's creation takes its
// topology from here (team/team.cpp, share_topology), so the hwloc load, the
// XML export on the rank that shares it and the XML import on the others
// happen at the first team of a process, not at every one (under MPI a
// communicator's first collective creates a team: a library that dups the
// world, a solver that splits per level). Kept for the life of the process,
// at most kSharedTopologies of them (the oldest goes first); thread-safe
// (the ranks of a thread team share one process).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/status.hpp"
#include "topology/topology.hpp"

namespace osmp {

inline constexpr std::size_t kSharedTopologies = 8;

struct SharedTopology {
  std::shared_ptr<const Topology> topology;
  std::string xml;           // the topology as other processes import it
  std::uint64_t digest = 0;  // of xml (fnv1a) with its length: what a rank names it by
};

// The topology `source` names, loaded now or at an earlier call. A topology
// from an XML file is read again at every call (the file may change); the
// others are the same for the life of the process.
Result<SharedTopology> shared_topology(const TopologySource& source);

// The one whose XML another process exported with this digest and import
// flag (`this_system`: it describes this machine), when this process holds
// it; nullopt otherwise (it then imports it with shared_topology).
std::optional<SharedTopology> shared_topology_named(std::uint64_t digest, bool this_system);

// The digest of an exported XML text, as SharedTopology::digest.
std::uint64_t topology_digest(const std::string& xml);

}  // namespace osmp
