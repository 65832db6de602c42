// The communication tree: the domains of the machine that hold active
// processes, after dropping every domain that holds the same processes as its
// parent. Each domain with two or more processes has a group: the leaders of
// the domains just below it plus the processes placed directly in it.
//
// A Tree is a plain value. build_tree() (build.hpp) makes one from a
// MachineTree and the processes' places; virtual_hier/ inserts virtual
// domains and calls normalize(), so physical and virtual levels go through
// the same code. check() verifies every invariant and runs in every test.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"
#include "topology/cpuset.hpp"

namespace osmp {

// One level name merged into a domain, with where it came from.
struct LevelAlias {
  std::string name;       // canonical level name
  double order = 0;       // top-down position (MachineNode::order)
  int logical_index = 0;  // hwloc logical index of that object
};

struct Domain {
  std::string level;                // the name this domain goes by
  std::vector<LevelAlias> aliases;  // every level it stands for, top-down; contains `level`
  bool is_virtual = false;
  double order = 0;       // of `level`
  int logical_index = 0;  // within `level`: hwloc's for physical, DFS order for virtual
  int depth = 0;          // 0 at the root
  CpuSet cpuset;
  std::vector<int> members;  // every rank in this domain, ascending
  std::vector<int> direct;   // ranks placed in this domain but in none of its children
  std::vector<int> group;    // leaders of the children + direct ranks, ascending; empty if < 2
  int leader = -1;           // lowest rank: group[0]
  int parent = -1;
  std::vector<int> children;

  bool has_group() const { return group.size() >= 2; }
  bool stands_for(std::string_view canonical_level) const;
};

struct LevelInfo {
  std::string name;
  bool is_virtual = false;
  double order = 0;
  int domains = 0;    // domains going by this name
  int groups = 0;     // of which have a group
  int min_group = 0;  // group sizes over those groups
  int max_group = 0;
};

class Tree {
 public:
  Tree() = default;

  // Builds from raw domains (index 0 = root; parent/children set; `direct`,
  // `aliases`, `cpuset`, `is_virtual` filled) and each rank's place. Drops
  // empty and redundant domains, names, renumbers, forms groups. Pure.
  static Result<Tree> from_domains(std::vector<Domain> domains, std::vector<CpuSet> places);

  int size() const { return static_cast<int>(places_.size()); }  // number of ranks
  const std::vector<Domain>& domains() const { return domains_; }
  const Domain& domain(int id) const { return domains_.at(static_cast<std::size_t>(id)); }
  const Domain& root() const { return domains_.front(); }
  const CpuSet& place(int rank) const { return places_.at(static_cast<std::size_t>(rank)); }
  const std::vector<CpuSet>& places() const { return places_; }
  // Levels that name at least one domain, top-down.
  const std::vector<LevelInfo>& levels() const { return levels_; }
  const LevelInfo* level(std::string_view name) const;
  // Every level of the machine the tree was built from, top-down, whether or
  // not a process reaches it (specs may name any of them).
  const std::vector<std::string>& machine_levels() const { return machine_levels_; }

  // The domain where `rank` is placed (it is in `direct` there).
  int leaf(int rank) const { return leaf_.at(static_cast<std::size_t>(rank)); }
  // Domains containing `rank`, from its leaf up to the root.
  std::vector<int> path(int rank) const;
  // Domains containing `rank` that have a group, bottom-up.
  std::vector<int> group_path(int rank) const;
  // The domain containing `rank` that stands for `level` (aliases count: on a
  // one-package machine, Package is the Machine domain). nullopt when `rank`
  // is placed above that level (bound wider) or the level does not exist.
  std::optional<int> domain_at(int rank, std::string_view level) const;
  // Deepest domain containing every rank of `ranks` (non-empty, in range).
  Result<int> lowest_common(std::span<const int> ranks) const;
  // Ids of the domains going by `level`, in logical order.
  std::vector<int> domains_of(std::string_view level) const;

  // Verifies every invariant; the message names the first broken one.
  Status check() const;

 private:
  std::vector<Domain> domains_;
  std::vector<CpuSet> places_;
  std::vector<int> leaf_;
  std::vector<LevelInfo> levels_;
  std::vector<std::string> machine_levels_;
};

}  // namespace osmp
