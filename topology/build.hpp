// From a machine and the processes' places to the communication tree.
#pragma once

#include <span>

#include "core/status.hpp"
#include "topology/cpuset.hpp"
#include "topology/machine_tree.hpp"
#include "topology/tree.hpp"

namespace osmp {

struct BuildOptions {
  // Allow more processes than the topology has PUs. Two processes on the same
  // PU are always allowed; this only guards against a mistaken process count.
  bool allow_oversubscribe = false;
};

// Where a process lives: the deepest node of the machine whose cpuset holds
// its whole binding. A process bound to one PU or core lands there; one bound
// to a package, or not bound at all, lands in that package or in the Machine,
// and is never placed below its binding. Places are first clipped to the
// machine's PUs; a place with no PU of the machine is an error. (An empty
// place, which callers refuse first, gets the Machine, node 0.)
int home_node(const MachineTree& machine, const CpuSet& place);

// The communication tree for ranks 0..places.size()-1 placed at `places`.
Result<Tree> build_tree(const MachineTree& machine, std::span<const CpuSet> places, const BuildOptions& options = {});

}  // namespace osmp
