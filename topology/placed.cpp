#include "topology/placed.hpp"

namespace osmp {

Result<Placed> load_and_place(const PlacementArgs& a) {
  auto source = a.topology_given ? TopologySource::parse(a.topology) : TopologySource::from_env();
  OSMP_ASSIGN_OR_RETURN(Topology topo, Topology::load(source));
  PlacementRequest req;
  OSMP_ASSIGN_OR_RETURN(req.map_by, parse_map_by(a.map_by));
  const std::string bind = a.bind_to.empty() ? (req.map_by == MapBy::pu ? "pu" : "core") : a.bind_to;
  OSMP_ASSIGN_OR_RETURN(req.bind_to, parse_bind_to(bind));
  req.oversubscribe = a.oversubscribe;
  req.nprocs = a.np > 0 ? a.np : static_cast<int>(topo.machine().cores().size());
  OSMP_ASSIGN_OR_RETURN(std::vector<CpuSet> places, place_ranks(topo.machine(), req));
  std::string placement = cat("map-by ", to_string(req.map_by), ", bind-to ", to_string(req.bind_to));
  return Placed{std::move(topo), req, std::move(places), std::move(placement)};
}

}  // namespace osmp
