// Inserting virtual sub-domains into a communication tree.
#pragma once

#include <span>
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

// The tree with the virtual domains of `spec`. A split works on a domain's
// members in logical order (its child domains, then processes placed in it
// directly) and never cuts a child domain; a part of one member adds nothing.
// Virtual domains then go through the same normalization as physical ones.
Result<Tree> apply_spec(const Tree& tree, const VhSpec& spec);

// build_tree() followed by apply_spec().
Result<Tree> build_tree(const MachineTree& machine, std::span<const CpuSet> places,
                        const BuildOptions& options, const VhSpec& spec);

}  // namespace osmp
