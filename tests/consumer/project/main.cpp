// Builds a communication tree through the installed headers and library.
#include <cstdio>
#include <cstdlib>

#include "topology/build.hpp"
#include "topology/placement.hpp"
#include "topology/topology.hpp"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  auto topo = osmp::Topology::load(osmp::TopologySource::parse(argv[1]));
  if (!topo.ok()) return std::fprintf(stderr, "%s\n", topo.status().to_string().c_str()), 1;
  osmp::PlacementRequest req;
  req.nprocs = std::atoi(argv[2]);
  auto places = osmp::place_ranks(topo->machine(), req);
  if (!places.ok()) return 1;
  auto tree = osmp::build_tree(topo->machine(), *places);
  if (!tree.ok() || !tree->check().ok()) return 1;
  std::printf("consumer: %d ranks, %zu domains, %zu levels\n", tree->size(), tree->domains().size(),
              tree->levels().size());
  return 0;
}
