#include "mpi_glue/mpi/layout.hpp"

#include <mpi.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/env.hpp"
#include "core/strings.hpp"

namespace osmp::mpi {
namespace {

Status read_sim_nodes(Layout& c) {
  int world = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  OSMP_ASSIGN_OR_RETURN(long long rpn, env_int("OSMP_SIM_RANKS_PER_NODE", 0, 0, 1 << 24));
  OSMP_ASSIGN_OR_RETURN(long long nodes, env_int("OSMP_SIM_NODES", 0, 0, 1 << 24));
  if (nodes > 0) {
    if (world % nodes != 0)
      return Status(Errc::invalid_argument, cat("OSMP_SIM_NODES=", nodes, " does not divide the ", world, " ranks"));
    rpn = world / nodes;
  }
  if (rpn == 0) return {};
  c.simulated = true;
  c.ranks_per_node = static_cast<int>(rpn);
  if (auto places = env_get("OSMP_SIM_PLACES"))
    for (auto p : split(*places, ';'))
      if (!trim(p).empty()) c.places.emplace_back(trim(p));
  if (auto bind = env_get("OSMP_SIM_BIND")) {
    if (iequals(*bind, "none"))
      c.unbound = true;
    else if (!iequals(*bind, "core"))
      return Status(Errc::invalid_argument, cat("OSMP_SIM_BIND='", *bind, "' (expected core or none)"));
  }
  return {};
}

Result<hier::Network> read_network(const Layout& c) {
  auto sim = env_get("OSMP_SIM_NETWORK");
  auto file = env_get("OSMP_NETWORK_FILE");
  if (sim && !trim(*sim).empty() && file && !trim(*file).empty())
    return Status(Errc::invalid_argument, "OSMP_SIM_NETWORK and OSMP_NETWORK_FILE are both set; set one");
  if (sim && !trim(*sim).empty()) {
    if (!c.simulated) {
      return Status(Errc::invalid_argument,
                    "OSMP_SIM_NETWORK needs simulated nodes (OSMP_SIM_RANKS_PER_NODE or OSMP_SIM_NODES); "
                    "real nodes take their network from OSMP_NETWORK_FILE");
    }
    return hier::Network::from_sim_spec(*sim);
  }
  if (file && !trim(*file).empty()) {
    std::ifstream in(*file);
    if (!in)
      return Status(Errc::invalid_argument,
                    cat("OSMP_NETWORK_FILE: cannot read '", *file, "': ", std::strerror(errno)));
    std::ostringstream text;
    text << in.rdbuf();
    return hier::Network::from_file(text.str(), *file);
  }
  return hier::Network();
}

}  // namespace

Result<Layout> layout_from_env() {
  Layout c;
  OSMP_RETURN_IF_ERROR(read_sim_nodes(c));
  OSMP_ASSIGN_OR_RETURN(c.network, read_network(c));
  return c;
}

std::string node_name(const Layout& layout, int node) {
  if (layout.simulated) return cat("sim", node);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  return std::string(name, static_cast<std::size_t>(len));
}

}  // namespace osmp::mpi
