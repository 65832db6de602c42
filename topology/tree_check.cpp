// Tree::check(): the invariants every tree must hold, in the spirit of
// hwloc_topology_check(). Each failure names the domain and what is wrong.
#include <algorithm>
#include <set>

#include "topology/tree.hpp"

namespace osmp {
namespace {

std::string name_of(const Tree& t, int id) {
  const Domain& d = t.domain(id);
  return cat("domain ", id, " (", d.level, " #", d.logical_index, ")");
}

Status fail(const std::string& what) { return Status(Errc::internal, cat("tree check: ", what)); }

Status check_domain(const Tree& t, int id) {
  const Domain& d = t.domain(id);
  if (d.members.empty()) return fail(cat(name_of(t, id), " holds no process"));
  if (!std::is_sorted(d.members.begin(), d.members.end()) ||
      std::adjacent_find(d.members.begin(), d.members.end()) != d.members.end())
    return fail(cat(name_of(t, id), " members not strictly ascending"));
  if (d.leader != d.members.front()) return fail(cat(name_of(t, id), " leader is not its lowest rank"));
  if (id != 0 && d.children.size() == 1 && d.direct.empty())
    return fail(cat(name_of(t, id), " is redundant: same processes as its only child"));

  // Members are exactly the direct ranks plus the children's members, disjoint.
  std::vector<int> expect = d.direct;
  std::vector<int> group = d.direct;
  for (int c : d.children) {
    const Domain& cd = t.domain(c);
    if (cd.parent != id) return fail(cat(name_of(t, c), " does not point back to its parent"));
    if (cd.depth != d.depth + 1) return fail(cat(name_of(t, c), " has the wrong depth"));
    if (!cd.cpuset.is_subset_of(d.cpuset))
      return fail(
          cat(name_of(t, c), " cpuset ", cd.cpuset.to_string(), " is not inside its parent's ", d.cpuset.to_string()));
    expect.insert(expect.end(), cd.members.begin(), cd.members.end());
    group.push_back(cd.leader);
  }
  std::sort(expect.begin(), expect.end());
  if (expect != d.members)
    return fail(cat(name_of(t, id), " members differ from its children's and direct ranks, or overlap"));
  std::sort(group.begin(), group.end());
  if (d.members.size() < 2) group.clear();
  if (group != d.group) return fail(cat(name_of(t, id), " group is not its children's leaders"));
  if (d.parent >= 0) {
    const auto& pg = t.domain(d.parent).group;
    if (std::find(pg.begin(), pg.end(), d.leader) == pg.end())
      return fail(cat(name_of(t, id), " leader ", d.leader, " is not in its parent's group"));
  }
  if (!d.stands_for(d.level)) return fail(cat(name_of(t, id), " level is not among its aliases"));
  return {};
}

}  // namespace

Status Tree::check() const {
  if (domains_.empty()) return fail("no domains");
  if (root().parent != -1 || root().depth != 0) return fail("domain 0 is not the root");
  if (static_cast<int>(root().members.size()) != size())
    return fail(cat("root holds ", root().members.size(), " ranks, expected ", size()));
  for (int id = 0; id < static_cast<int>(domains_.size()); ++id) {
    OSMP_RETURN_IF_ERROR(check_domain(*this, id));
  }
  for (int r = 0; r < size(); ++r) {
    int l = leaf(r);
    if (l < 0) return fail(cat("rank ", r, " has no leaf domain"));
    const auto& direct = domain(l).direct;
    if (std::find(direct.begin(), direct.end(), r) == direct.end())
      return fail(cat("rank ", r, " is not placed in its leaf ", name_of(*this, l)));
    if (!domain(l).is_virtual && !place(r).is_subset_of(domain(l).cpuset))
      return fail(cat("rank ", r, " place ", place(r).to_string(), " is outside its leaf ", name_of(*this, l)));
    // Exactly one group chain: every group on the path holds r's representative.
    int rep = r;
    for (int d : path(r)) {
      const Domain& dom = domain(d);
      if (!std::binary_search(dom.members.begin(), dom.members.end(), r))
        return fail(cat("rank ", r, " missing from ", name_of(*this, d), " on its path"));
      if (dom.has_group()) {
        if (!std::binary_search(dom.group.begin(), dom.group.end(), rep))
          return fail(cat("rank ", r, " representative ", rep, " missing from ", name_of(*this, d)));
        rep = dom.leader;
      }
    }
  }
  return {};
}

}  // namespace osmp
