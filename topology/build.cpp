#include "topology/build.hpp"

namespace osmp {

int home_node(const MachineTree& machine, const CpuSet& place) {
  // A child holding the place holds its first PU: one bit test rules out the
  // other children (a subset test costs the whole cpuset; with thousands of
  // siblings, testing each was quadratic in the machine's size).
  const int first = place.first();
  if (first < 0) return 0;
  const auto pu = static_cast<unsigned>(first);
  int node = 0;
  for (bool descended = true; descended;) {
    descended = false;
    for (int c : machine.nodes[node].children) {
      if (machine.nodes[c].cpuset.test(pu) && place.is_subset_of(machine.nodes[c].cpuset)) {
        node = c;
        descended = true;
        break;
      }
    }
  }
  return node;
}

Result<Tree> build_tree(const MachineTree& machine, std::span<const CpuSet> places, const BuildOptions& options) {
  if (machine.nodes.empty()) return Status(Errc::invalid_argument, "build_tree: empty machine");
  if (places.empty()) {
    return Status(Errc::invalid_argument, "build_tree: the process set is empty (0 processes)");
  }
  if (!options.allow_oversubscribe && places.size() > machine.pu_count()) {
    return Status(Errc::invalid_argument, cat("build_tree: ", places.size(), " processes but the topology has only ",
                                              machine.pu_count(), " PUs; allow oversubscription to run more"));
  }
  std::vector<Domain> domains(machine.nodes.size());
  for (std::size_t i = 0; i < machine.nodes.size(); ++i) {
    const MachineNode& n = machine.nodes[i];
    Domain& d = domains[i];
    d.aliases = {LevelAlias{n.level, n.order, n.logical_index}};
    d.cpuset = n.cpuset;
    d.parent = n.parent;
    d.children = n.children;
  }
  std::vector<CpuSet> clipped;
  clipped.reserve(places.size());
  for (std::size_t r = 0; r < places.size(); ++r) {
    CpuSet p = places[r] & machine.pus();
    if (p.empty()) {
      return Status(Errc::invalid_argument,
                    cat("build_tree: rank ", r, " is bound to PUs '", places[r].to_string(),
                        "', none of which is in the topology (PUs ", machine.pus().to_string(), ")"));
    }
    int home = home_node(machine, p);
    domains[static_cast<std::size_t>(home)].direct.push_back(static_cast<int>(r));
    clipped.push_back(std::move(p));
  }
  return Tree::from_domains(std::move(domains), std::move(clipped));
}

}  // namespace osmp
