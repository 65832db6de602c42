// Virtual-hierarchy specs: how to make a shallow machine look deeper.
//
//   LEVEL:D   split every LEVEL domain into D balanced virtual sub-domains
//             ("Package:2", "L3:4,Package:2", "NUMANode:7"). D = 1 changes nothing.
//   LEVEL?N   at most N members in any group at LEVEL (repeated splits, xhc style)
//   ?N        at most N members in any group, at every level
//   auto      the same as ?8 (see kAutoMaxMembers)
//   none, ""  no virtual levels
//
// Items are separated by commas. Level names are those of the topology
// (Machine, Package, NUMANode, L3Cache, ...) or their aliases (Socket, NUMA, L3).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"

namespace osmp {

// Why 8: a flat fan-in at a leader costs about one cache-line pull per member
// (partly overlapped, ~10-15 ns each), while each extra tree level costs one
// more flag hand-off (~60 ns round trip on one socket, more across). Minimising
// depth x (hop + members x pull) over group sizes k gives k ln k - k + 1 =
// hop/pull, i.e. k between 5 and 8 for hop/pull between 4 and 8. Groups of up
// to 8 turn a 28-core socket into 4 groups of 7 (paper Fig. 5b) and 128 unbound
// processes into three levels.
inline constexpr int kAutoMaxMembers = 8;

struct SpecItem {
  enum class Kind { degree, max_members };
  Kind kind = Kind::degree;
  std::string level;  // canonical level name; "" = every level (max_members only)
  int value = 1;      // degree, or the most members per group
  std::string token;  // as written, for error messages
};

struct VhSpec {
  std::vector<SpecItem> items;
  std::string text;  // as given
  bool empty() const { return items.empty(); }
};

// Syntax only; level names are checked against a tree by apply_spec().
Result<VhSpec> parse_spec(std::string_view text);

// OSMP_VH, parsed; an empty spec when unset.
Result<VhSpec> spec_from_env();

}  // namespace osmp
