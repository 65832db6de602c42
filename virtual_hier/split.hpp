// Inserting virtual sub-domains into a communication tree.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "topology/build.hpp"
#include "topology/tree.hpp"
#include "virtual_hier/spec.hpp"

namespace osmp {

// Splits `n` units with the given weights into `parts` contiguous, non-empty
// runs whose weights are as even as possible. Returns the run sizes (in units).
// Pure; the base of every virtual split.
std::vector<int> balanced_runs(std::span<const int> weights, int parts);

// What one item of a spec did (apply_spec's report), to tell the user about
// items that changed nothing: LEVEL:D splits a domain only when D is below
// its member count (Package:13 on a package of 12 L3s, L3:9 on 8 cores, and
// any D = 1 do nothing); LEVEL?N only when a group has more than N members.
struct SpecItemEffect {
  std::string token;    // the item as written
  std::string level;    // "" = every level
  bool degree = true;   // LEVEL:D, else a ?N limit
  int domains = 0;      // domains the item came to (standing for its level)
  int split = 0;        // of which it split
  int max_members = 0;  // most members (child domains + placed processes) of those, when it came
};
using SpecReport = std::vector<SpecItemEffect>;  // one per item, in the spec's order

// The tree with the virtual domains of `spec`. A split works on a domain's
// members in logical order (its child domains, then processes placed in it
// directly) and never cuts a child domain; a part of one member adds nothing.
// Virtual domains then go through the same normalization as physical ones.
Result<Tree> apply_spec(const Tree& tree, const VhSpec& spec, SpecReport* report = nullptr);

// build_tree() followed by apply_spec().
Result<Tree> build_tree(const MachineTree& machine, std::span<const CpuSet> places, const BuildOptions& options,
                        const VhSpec& spec, SpecReport* report = nullptr);

// One sentence per item that changed nothing, saying why and which values
// would change the tree: "'Package:13' had no effect: no Package domain has
// more than 12 members here; Package:2 .. Package:11 would split it".
std::vector<std::string> ineffective_items(const SpecReport& report);

}  // namespace osmp
