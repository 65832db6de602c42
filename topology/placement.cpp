#include "topology/placement.hpp"

#include <algorithm>

#include "core/strings.hpp"

namespace osmp {
namespace {

constexpr std::pair<MapBy, const char*> kMapBy[] = {{MapBy::core, "core"},       {MapBy::pu, "pu"},
                                                    {MapBy::l3, "l3"},           {MapBy::numa, "numa"},
                                                    {MapBy::package, "package"}, {MapBy::scatter, "scatter"}};
constexpr std::pair<BindTo, const char*> kBindTo[] = {{BindTo::pu, "pu"},           {BindTo::core, "core"},
                                                      {BindTo::l3, "l3"},           {BindTo::numa, "numa"},
                                                      {BindTo::package, "package"}, {BindTo::none, "none"}};

const char* level_for(MapBy m) {
  switch (m) {
    case MapBy::l3: return "L3Cache";
    case MapBy::numa: return "NUMANode";
    case MapBy::package: return "Package";
    default: return "Core";
  }
}

}  // namespace

const char* level_of(BindTo b) {
  switch (b) {
    case BindTo::pu: return "PU";
    case BindTo::core: return "Core";
    case BindTo::l3: return "L3Cache";
    case BindTo::numa: return "NUMANode";
    case BindTo::package: return "Package";
    case BindTo::none: return "Machine";
  }
  return "Machine";
}

namespace {

// Slots of the subtree of `node`, interleaved child by child.
std::vector<int> scatter(const MachineTree& m, int node, const std::vector<bool>& is_slot) {
  if (is_slot[static_cast<std::size_t>(node)]) return {node};
  std::vector<std::vector<int>> parts;
  for (int c : m.nodes[node].children) {
    auto p = scatter(m, c, is_slot);
    if (!p.empty()) parts.push_back(std::move(p));
  }
  std::vector<int> out;
  for (std::size_t round = 0;; ++round) {
    bool any = false;
    for (auto& p : parts) {
      if (round < p.size()) {
        out.push_back(p[round]);
        any = true;
      }
    }
    if (!any) return out;
  }
}

}  // namespace

Result<MapBy> parse_map_by(std::string_view text) {
  for (auto [v, name] : kMapBy)
    if (iequals(text, name)) return v;
  if (iequals(text, "socket")) return MapBy::package;
  if (iequals(text, "hwthread")) return MapBy::pu;
  return Status(Errc::invalid_argument,
                cat("unknown mapping '", text, "' (expected core, pu, l3, numa, package or scatter)"));
}

Result<BindTo> parse_bind_to(std::string_view text) {
  for (auto [v, name] : kBindTo)
    if (iequals(text, name)) return v;
  if (iequals(text, "socket")) return BindTo::package;
  if (iequals(text, "hwthread")) return BindTo::pu;
  return Status(Errc::invalid_argument,
                cat("unknown binding '", text, "' (expected pu, core, l3, numa, package or none)"));
}

const char* to_string(MapBy m) {
  for (auto [v, name] : kMapBy)
    if (v == m) return name;
  return "?";
}

const char* to_string(BindTo b) {
  for (auto [v, name] : kBindTo)
    if (v == b) return name;
  return "?";
}

Result<std::vector<int>> mapping_order(const MachineTree& machine, MapBy map_by) {
  std::vector<int> slots = map_by == MapBy::pu ? machine.nodes_of_level("PU") : machine.cores();
  if (map_by == MapBy::core || map_by == MapBy::pu) return slots;
  std::vector<bool> is_slot(machine.nodes.size(), false);
  for (int s : slots) is_slot[static_cast<std::size_t>(s)] = true;
  if (map_by == MapBy::scatter) return scatter(machine, 0, is_slot);

  std::vector<int> domains = machine.nodes_of_level(level_for(map_by));
  if (domains.empty()) {
    return Status(Errc::invalid_argument,
                  cat("cannot map by ", to_string(map_by), ": this topology has no ", level_for(map_by),
                      " level (levels: ", join(machine.level_names(), ", "), ")"));
  }
  // Round-robin over the domains, each handing out its cores in logical order.
  std::vector<std::vector<int>> queues(domains.size());
  for (int s : slots) {
    for (std::size_t d = 0; d < domains.size(); ++d) {
      if (machine.nodes[s].cpuset.is_subset_of(machine.nodes[domains[d]].cpuset)) {
        queues[d].push_back(s);
        break;
      }
    }
  }
  std::vector<int> order;
  for (std::size_t round = 0; order.size() < slots.size(); ++round) {
    std::size_t before = order.size();
    for (auto& q : queues)
      if (round < q.size()) order.push_back(q[round]);
    if (order.size() == before) break;  // cores outside every domain: leave them out
  }
  return order;
}

Result<std::vector<CpuSet>> place_ranks(const MachineTree& machine, const PlacementRequest& req) {
  if (req.nprocs <= 0) {
    return Status(Errc::invalid_argument, cat("cannot place ", req.nprocs, " processes"));
  }
  if (req.bind_to == BindTo::none) return std::vector<CpuSet>(req.nprocs, machine.pus());
  OSMP_ASSIGN_OR_RETURN(std::vector<int> order, mapping_order(machine, req.map_by));
  if (order.empty()) return Status(Errc::invalid_argument, "no core to place processes on");
  if (static_cast<std::size_t>(req.nprocs) > order.size() && !req.oversubscribe) {
    const char* unit = req.map_by == MapBy::pu ? "hardware threads" : "cores";
    return Status(Errc::invalid_argument,
                  cat("cannot place ", req.nprocs, " processes on ", order.size(), " ", unit, " (", machine.pu_count(),
                      " PUs) with map-by ", to_string(req.map_by), ": allow oversubscription, or map by pu"));
  }
  std::vector<CpuSet> places;
  for (int r = 0; r < req.nprocs; ++r) {
    int slot = order[static_cast<std::size_t>(r) % order.size()];
    if (req.bind_to == BindTo::pu) {
      int first_pu = machine.nodes[slot].cpuset.first();  // a PU slot is its own first PU
      places.push_back(CpuSet::single(static_cast<unsigned>(first_pu)));
      continue;
    }
    int node = machine.ancestor_of_level(slot, level_of(req.bind_to));
    if (node < 0 && req.bind_to == BindTo::core) node = slot;  // no Core level: the slot is a PU
    if (node < 0) {
      return Status(Errc::invalid_argument,
                    cat("cannot bind to ", to_string(req.bind_to), ": this topology has no ", level_of(req.bind_to),
                        " above core ", machine.nodes[slot].logical_index));
    }
    places.push_back(machine.nodes[node].cpuset);
  }
  return places;
}

}  // namespace osmp
