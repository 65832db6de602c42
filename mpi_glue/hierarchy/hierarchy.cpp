#include "mpi_glue/hierarchy/hierarchy.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "core/strings.hpp"
#include "topology/build.hpp"
#include "topology/levels.hpp"

namespace osmp::hier {

std::vector<Link> chain_of(const MachineTree& machine, const CpuSet& place) {
  int home = place.empty() ? 0 : home_node(machine, place);
  if (home < 0) home = 0;  // no PU of this machine: treat as unbound
  std::vector<Link> chain;
  for (int n = home; n >= 0; n = machine.nodes[n].parent) {
    const MachineNode& node = machine.nodes[n];
    chain.push_back({node.level, node.order, node.logical_index});
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

std::string encode(const Member& m) {
  std::string out = std::to_string(m.node);
  for (const auto* links : {&m.network, &m.chain})
    for (const Link& l : *links) out += cat("|", l.level, ":", l.order, ":", l.index);
  return out;
}

Result<Member> decode(std::string_view text) {
  auto bad = [&] { return Status(Errc::internal, cat("malformed place record '", text, "'")); };
  auto fields = split(text, '|');
  if (fields.empty()) return bad();
  Member m;
  auto node = parse_int(fields[0], -(1LL << 31), (1LL << 31) - 1, "node id");
  if (!node.ok()) return bad();
  m.node = static_cast<int>(*node);
  for (std::size_t i = 1; i < fields.size(); ++i) {
    auto parts = split(fields[i], ':');
    if (parts.size() != 3) return bad();
    Link l;
    l.level = std::string(parts[0]);
    try {
      l.order = std::stod(std::string(parts[1]));
    } catch (...) {
      return bad();
    }
    auto idx = parse_int(parts[2], 0, (1LL << 31) - 1, "logical index");
    if (!idx.ok()) return bad();
    l.index = static_cast<int>(*idx);
    if (l.order >= 0)
      m.chain.push_back(std::move(l));
    else if (m.chain.empty())
      m.network.push_back(std::move(l));  // network links come first
    else
      return bad();
  }
  if (m.chain.empty()) return bad();
  return m;
}

std::vector<std::string> levels(const MachineTree& machine) { return machine.level_names(); }

Result<std::string> level_for_request(std::string_view name) {
  std::string_view t = trim(name);
  if (iequals(t, "mpi_shared_memory")) return std::string("Machine");
  if (t.size() > 10 && iequals(t.substr(0, 10), "HWLOC_OBJ_")) t = t.substr(10);
  auto canon = canonical_level(t);
  if (!canon || is_virtual_level_name(*canon)) {
    return Status(Errc::invalid_argument, cat("unknown hardware level '", name,
                                              "' (known: Machine/Node, Package/Socket, Die, NUMANode/NUMA, L3Cache/L3, "
                                              "L2Cache/L2, L1Cache/L1, Core, PU, GroupN, mpi_shared_memory)"));
  }
  return *canon;
}

namespace {

// Parts numbered by their key in increasing order; -1 keys stay -1.
template <class Key>
Split number_parts(const std::vector<std::optional<Key>>& keys, std::string level) {
  std::map<Key, int> part;
  for (const auto& k : keys)
    if (k) part.emplace(*k, 0);
  int next = 0;
  for (auto& [k, v] : part) v = next++;
  Split s;
  s.level = part.empty() ? std::string() : std::move(level);
  s.parts = next;
  for (const auto& k : keys) {
    int c = k ? part.at(*k) : -1;
    s.color.push_back(c);
    s.index.push_back(c);
  }
  return s;
}

bool several_nodes(std::span<const Member> members) {
  for (const Member& m : members)
    if (m.node != members.front().node) return true;
  return false;
}

// Members on several nodes: the widest network level whose objects tell
// them apart, else the node.
Split split_across_nodes(std::span<const Member> members) {
  const Member& first = members.front();
  for (std::size_t l = 0; l < first.network.size(); ++l) {
    const std::string& level = first.network[l].level;
    bool differ = false;
    std::vector<std::optional<int>> keys;
    for (const Member& m : members) {
      if (l < m.network.size() && m.network[l].level == level)
        keys.emplace_back(m.network[l].index);
      else
        keys.emplace_back();
      differ = differ || keys.back() != keys.front();
    }
    if (differ) return number_parts(keys, level);
  }
  std::vector<std::optional<int>> keys;
  for (const Member& m : members) keys.emplace_back(m.node);
  return number_parts(keys, "Machine");
}

std::size_t common_prefix(std::span<const Member> members) {
  std::size_t p = members.front().chain.size();
  for (const Member& m : members) {
    std::size_t q = 0;
    while (q < p && q < m.chain.size() && m.chain[q] == members.front().chain[q]) ++q;
    p = q;
  }
  return p;
}

// The object of (level, order) in m's chain at or below position `from`.
std::optional<int> object_at(const Member& m, const std::string& level, double order, std::size_t from) {
  for (std::size_t i = from; i < m.chain.size(); ++i)
    if (m.chain[i].level == level && m.chain[i].order == order) return m.chain[i].index;
  return std::nullopt;
}

}  // namespace

Split split_undirected(std::span<const Member> members) {
  if (members.empty()) return {};
  if (several_nodes(members)) return split_across_nodes(members);
  const std::size_t p = common_prefix(members);
  std::set<std::pair<double, std::string>> candidates;
  for (const Member& m : members)
    for (std::size_t i = p; i < m.chain.size(); ++i) candidates.emplace(m.chain[i].order, m.chain[i].level);
  for (const auto& [order, level] : candidates) {
    std::vector<std::optional<int>> keys;
    std::set<int> distinct;
    bool some_missing = false;
    for (const Member& m : members) {
      keys.push_back(object_at(m, level, order, p));
      if (keys.back())
        distinct.insert(*keys.back());
      else
        some_missing = true;
    }
    if (distinct.size() >= 2 || (distinct.size() == 1 && some_missing)) return number_parts(keys, level);
  }
  Split none;
  none.color.assign(members.size(), -1);
  none.index.assign(members.size(), -1);
  return none;
}

namespace {

// The object of `level` holding m: (level, node or -1 for a network object, index).
using DirectedKey = std::tuple<std::string, int, int>;
std::optional<DirectedKey> directed_key(const Member& m, const std::string& level) {
  if (level.empty()) return std::nullopt;
  if (level == "Machine") return DirectedKey{level, m.node, 0};
  for (const Link& l : m.network)
    if (l.level == level) return DirectedKey{level, -1, l.index};
  for (const Link& l : m.chain)
    if (l.level == level) return DirectedKey{level, m.node, l.index};
  return std::nullopt;
}

}  // namespace

Split split_directed(std::span<const Member> members, std::string_view level) {
  std::vector<std::string> each(members.size(), std::string(level));
  return split_directed(members, each);
}

Split split_directed(std::span<const Member> members, std::span<const std::string> level_of) {
  std::vector<std::optional<DirectedKey>> keys;
  for (std::size_t i = 0; i < members.size(); ++i) keys.push_back(directed_key(members[i], level_of[i]));
  return number_parts(keys, level_of.empty() ? std::string() : level_of.front());
}

Result<std::string> min_domain(std::span<const Member> members, std::span<const int> ranks, int me) {
  const int n = static_cast<int>(members.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] < 0 || ranks[i] >= n) {
      return Status(Errc::invalid_argument,
                    cat("ranks[", i, "] = ", ranks[i], " is not a rank of the communicator (size ", n, ")"));
    }
  }
  if (std::find(ranks.begin(), ranks.end(), me) == ranks.end()) return std::string(kUnknownLevel);
  std::vector<Member> chosen;
  for (int r : ranks) chosen.push_back(members[static_cast<std::size_t>(r)]);
  if (several_nodes(chosen)) {
    std::string shared(kClusterLevel);
    for (std::size_t l = 0; l < chosen.front().network.size(); ++l) {
      const Link& link = chosen.front().network[l];
      for (const Member& m : chosen)
        if (l >= m.network.size() || !(m.network[l] == link)) return shared;
      shared = link.level;
    }
    return shared;
  }
  std::size_t p = common_prefix(chosen);
  return chosen.front().chain[p == 0 ? 0 : p - 1].level;
}

namespace {

using Set = std::vector<int>;  // member indexes, increasing

Set members_where(std::span<const Member> members, const Set& within, auto&& same) {
  Set out;
  for (int i : within)
    if (same(members[static_cast<std::size_t>(i)])) out.push_back(i);
  return out;
}

// Nested sets holding `me`, from everyone down to its deepest domain.
std::vector<Set> tree_nest(std::span<const Member> members, int me) {
  Set all(members.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  std::vector<Set> nest{all};
  for (;;) {
    const Set& cur = nest.back();
    std::vector<Member> sub;
    int my_pos = -1;
    for (std::size_t k = 0; k < cur.size(); ++k) {
      sub.push_back(members[static_cast<std::size_t>(cur[k])]);
      if (cur[k] == me) my_pos = static_cast<int>(k);
    }
    Split s = split_undirected(sub);
    int mine = s.color.empty() ? -1 : s.color[static_cast<std::size_t>(my_pos)];
    if (mine < 0) break;
    Set next;
    for (std::size_t k = 0; k < cur.size(); ++k)
      if (s.color[k] == mine) next.push_back(cur[k]);
    if (next.size() == cur.size()) break;
    nest.push_back(std::move(next));
  }
  return nest;
}

std::vector<Set> memory_nest(std::span<const Member> members, int me) {
  Set all(members.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  const Member& mine = members[static_cast<std::size_t>(me)];
  std::vector<Set> nest{all};
  for (const Link& net : mine.network) {
    nest.push_back(members_where(members, nest.back(), [&](const Member& m) {
      return std::find(m.network.begin(), m.network.end(), net) != m.network.end();
    }));
  }
  nest.push_back(members_where(members, nest.back(), [&](const Member& m) { return m.node == mine.node; }));
  // In the order they nest on this machine: a NUMA node may hold several
  // packages (hwloc's Group-level machines) as well as sit inside one.
  for (const Link& link : mine.chain) {
    if (std::find(std::begin(kMemoryLevels), std::end(kMemoryLevels), link.level) == std::end(kMemoryLevels)) continue;
    nest.push_back(members_where(members, nest.back(), [&](const Member& m) {
      return m.node == mine.node && std::find(m.chain.begin(), m.chain.end(), link) != m.chain.end();
    }));
  }
  nest.erase(std::unique(nest.begin(), nest.end()), nest.end());
  return nest;
}

}  // namespace

std::vector<int> neighbours(std::span<const Member> members, int me, int hops, Metric metric) {
  if (me < 0 || me >= static_cast<int>(members.size())) return {};
  std::vector<Set> nest = metric == Metric::memory ? memory_nest(members, me) : tree_nest(members, me);
  const int deepest = static_cast<int>(nest.size()) - 1;
  return nest[static_cast<std::size_t>(std::max(0, deepest - std::max(0, hops)))];
}

}  // namespace osmp::hier

namespace osmp::hier {

Result<CpuSet> resolve_place(const MachineTree& machine, std::string_view spec) {
  std::string_view t = trim(spec);
  if (iequals(t, "none") || iequals(t, "Machine") || iequals(t, "Node")) return machine.pus();
  auto colon = t.find(':');
  if (colon == std::string_view::npos) {
    auto set = CpuSet::parse(t);
    if (!set.ok()) return Status(set.status()).prefix(cat("place '", spec, "'"));
    if (!set->is_subset_of(machine.pus()) || set->empty())
      return Status(Errc::invalid_argument, cat("place '", spec, "' is not a set of PUs of the machine"));
    return *set;
  }
  OSMP_ASSIGN_OR_RETURN(std::string level, level_for_request(t.substr(0, colon)));
  OSMP_ASSIGN_OR_RETURN(long long index,
                        parse_int(t.substr(colon + 1), 0, 1 << 30, cat("index in place '", spec, "'")));
  std::vector<int> nodes = machine.nodes_of_level(level);
  if (index >= static_cast<long long>(nodes.size())) {
    return Status(Errc::invalid_argument,
                  cat("place '", spec, "': the machine has ", nodes.size(), " ", level, " objects"));
  }
  return machine.nodes[static_cast<std::size_t>(nodes[static_cast<std::size_t>(index)])].cpuset;
}

}  // namespace osmp::hier
