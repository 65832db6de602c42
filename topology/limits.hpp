// How large a topology osmp takes, from any source (this machine, an XML
// file or buffer, a synthetic string, a preset):
//
//   kMaxPus    PUs, numbered 0 .. kMaxPus - 1: team creation sends every
//              rank's place as a bitmap of kMaxPus bits (team/team.cpp)
//   kMaxDepth  levels of objects from the Machine down to the PUs, memory
//              levels included (real machines have about 12)
//   kMaxXmlBytes  size of an XML topology (an 8192-PU machine's is ~6 MB)
//
// Synthetic strings and XML are checked before hwloc builds anything, by
// reading them the way hwloc does, so that 'pack:99999 core:99999 pu:2'
// (10^10 PUs) is refused at once instead of running until killed; every
// loaded machine is checked again (cheap). Errors name the limit.
#pragma once

#include <cstddef>
#include <string_view>

#include "core/status.hpp"
#include "topology/machine_tree.hpp"

namespace osmp {

inline constexpr unsigned kMaxPus = 8192;
inline constexpr int kMaxDepth = 32;
inline constexpr std::size_t kMaxXmlBytes = std::size_t{16} << 20;

// What a synthetic string or an XML text asks hwloc to build.
struct TopologySize {
  unsigned long long pus = 1;  // saturates at ULLONG_MAX
  int depth = 1;               // the Machine
};

// Reads a synthetic string as hwloc's parser does (optional root attributes
// in parentheses, then items separated by spaces: "Type:N", "N", each with
// optional "(attributes)", and memory children "[NUMANode(...)]", which count
// as levels). Malformed strings are left to hwloc to reject.
TopologySize synthetic_size(std::string_view s);
// Counts <object> elements of type PU and how deeply objects nest, skipping
// quoted attribute values and comments.
TopologySize xml_size(std::string_view xml);

// Refuses a size over the limits; `what` names the source in the message.
Status check_size(const TopologySize& size, std::string_view what);
// The same for a loaded machine: its PUs, their numbers, and its depth.
Status check_machine(const MachineTree& m, std::string_view what);

}  // namespace osmp
