// Text and JSON pictures of a communication tree (osmp-topo's output).
#pragma once

#include <string>

#include "topology/tree.hpp"

namespace osmp {

struct RenderContext {
  std::string topology;   // Topology::describe()
  std::string placement;  // "map-by core, bind-to core"
  std::string spec;       // virtual-hierarchy spec, "" when none
};

// Levels indented like lstopo's text output; each domain with a group shows its
// ranks and its group with the leader marked '*'. Domains of one process are
// not drawn: their rank shows in the group above.
std::string render_text(const Tree& tree, const RenderContext& ctx);

// Everything in the tree, for tools: levels, domains, ranks with their paths.
std::string render_json(const Tree& tree, const RenderContext& ctx);

// "0-3,8,10-11" for an ascending rank list.
std::string format_ranks(const std::vector<int>& ranks);

}  // namespace osmp
