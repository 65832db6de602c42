// mpi_glue/hierarchy: the arithmetic behind hierarchical communicators
// (MPIX_Comm_split_type with hardware domains, hsplit, the hw queries), as
// pure functions of every member's place. No MPI here: mpi_glue/mpi gathers
// the places and turns the answers into MPI_Comm_split colors.
//
// A member's place is its node (any id; equal ids share a node) and its chain:
// the machine objects that hold its whole binding, top-down, from the Machine
// to the deepest one. Objects that hold the same PUs (Package + L3, Core + PU)
// are separate links; the rules below skip levels that split nothing, so the
// answers never depend on such redundancy.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"
#include "topology/cpuset.hpp"
#include "topology/machine_tree.hpp"

namespace osmp::hier {

struct Link {
  std::string level;  // canonical hwloc-style name: Machine, Package, NUMANode, L3Cache, ...
  double order = 0;   // top-down position (hwloc depth; NUMA = holder + 0.5)
  int index = 0;      // hwloc logical index within the level
  bool operator==(const Link&) const = default;
};

struct Member {
  int node = 0;
  std::vector<Link> chain;    // top-down; chain[0] is the Machine
  std::vector<Link> network;  // network levels above the node, widest first (order < 0; network.hpp)
};

// The chain of a process bound to `place` (the Machine when unbound).
std::vector<Link> chain_of(const MachineTree& machine, const CpuSet& place);

// One line of text per member, for the allgather: "node|Level:order:index|...",
// network links first.
std::string encode(const Member& m);
Result<Member> decode(std::string_view text);

// The level names of a machine, top-down, as MPIX_Get_hw_topology_info lists them.
std::vector<std::string> levels(const MachineTree& machine);

// Canonical level for a user's name: hwloc names and aliases (Socket, NUMA,
// L3, Node, ...), HWLOC_OBJ_* spellings, and MPI-4's "mpi_shared_memory"
// (the node). Unknown names give an error listing the known ones.
Result<std::string> level_for_request(std::string_view name);

inline constexpr std::string_view kClusterLevel = "Cluster";  // several nodes
inline constexpr std::string_view kUnknownLevel = "Unknown";

// The answer for every member of a communicator.
struct Split {
  std::vector<int> color;  // per member; -1: MPI_COMM_NULL for it
  std::string level;       // the level split at ("" when every color is -1)
  std::vector<int> index;  // per member: its part's index among the parts (-1: none)
  int parts = 0;           // number of parts (communicators) made
};

// Undirected: the highest level strictly below the members' common domain
// that splits them (several parts, or some member bound too wide to be in
// one). Members on several nodes split by the widest network level that
// tells them apart, else by node ("Machine").
// Every member gets -1 at the bottom of the hierarchy.
Split split_undirected(std::span<const Member> members);

// Directed: the members grouped by the object of `level` (canonical, or a
// network level) that holds them; a member bound wider than that level, or
// on a node without it, gets -1. The machine level ("Machine") groups by node.
Split split_directed(std::span<const Member> members, std::string_view level);
// The same with each member's own level (MPI_HW_LEVELn names a level per
// node); "" gives that member -1. `level` of the result is the first member's.
Split split_directed(std::span<const Member> members, std::span<const std::string> level_of);

// The lowest level shared by `ranks` (indexes into members): the level name
// of their deepest common object; across nodes the narrowest network level
// they share, else kClusterLevel; kUnknownLevel when `me` is not among them.
// Ranks out of range: an error.
Result<std::string> min_domain(std::span<const Member> members, std::span<const int> ranks, int me);

// Neighbourhoods for MPIX_Get_hw_domain_neighbours: the members sharing
// `me`'s domain `hops` steps up the hierarchy of these members (0: those
// sharing my deepest domain; each hop: one split level up; beyond the top:
// everyone). metric kTree counts every level an undirected walk would make;
// kMemory counts only memory levels (kMemoryLevels, in the order they nest
// on the machine), the node and the network levels.
enum class Metric { tree = 0, memory = 1 };
inline constexpr std::string_view kMemoryLevels[] = {"Package", "NUMANode"};
std::vector<int> neighbours(std::span<const Member> members, int me, int hops, Metric metric);

}  // namespace osmp::hier

namespace osmp::hier {

// A place written by a user, for simulated nodes: "Core:3", "L2:1",
// "NUMANode:1" (an object by level and logical index), "none" or "Machine"
// (unbound), or a PU list ("4-7").
Result<CpuSet> resolve_place(const MachineTree& machine, std::string_view spec);

}  // namespace osmp::hier
