// Text, JSON and SVG pictures of a communication tree (osmp-topo's output).
#pragma once

#include <string>
#include <vector>

#include "topology/tree.hpp"

namespace osmp {

struct RenderContext {
  std::string topology;                 // Topology::describe()
  std::string placement;                // "map-by core, bind-to core"
  std::string spec;                     // virtual-hierarchy spec, "" when none
  std::vector<std::string> spec_notes;  // items of the spec that had no effect, and why
};

// Levels indented like lstopo's text output; each domain with a group shows its
// ranks and its group with the leader marked '*'. Domains of one process are
// not drawn: their rank shows in the group above.
std::string render_text(const Tree& tree, const RenderContext& ctx);

// Everything in the tree, for tools: levels, domains, ranks with their paths.
std::string render_json(const Tree& tree, const RenderContext& ctx);

// The SVG picture, like Figures 4 and 5 of the OSMP paper: domains as nested
// rounded boxes (one colour per level, virtual ones dashed), each with its
// label and group; ranks as cells (class "rank", the number in the first
// <text>) in the box they are placed in; leaders starred. Domains of one
// process are drawn as a bare cell unless a sibling has a group. A title
// (ctx) on top, a legend below.
std::string render_svg(const Tree& tree, const RenderContext& ctx);

// The geometry of that picture, computed before any SVG is written (pure, so
// tests can check it: boxes inside their parents, siblings apart). Integer
// SVG user units, y downwards.
struct SvgBox {
  enum class Kind { domain, rank };
  Kind kind = Kind::domain;
  int id = -1;      // domain id, or the rank
  int parent = -1;  // index in SvgLayout::boxes of the enclosing domain box; -1 for the root
  int x = 0, y = 0, w = 0, h = 0;
};

struct SvgText {
  std::string text;
  int x = 0, y = 0;  // baseline start
  double font = 0;   // px
  bool bold = false;
};

struct SvgLegendEntry {
  enum class Kind { level, leader, group };
  Kind kind = Kind::level;
  std::string level;  // Kind::level: the level name
  std::string text;
  int x = 0, y = 0, w = 0;  // the swatch's corner; the text follows it
};

struct SvgLayout {
  int width = 0, height = 0;
  int cell_w = 0;              // every rank cell is this wide
  std::vector<SvgText> title;  // headline, topology, levels
  std::vector<SvgBox> boxes;   // pre-order: a domain before what it holds; [0] the root
  std::vector<SvgLegendEntry> legend;
};

SvgLayout layout_svg(const Tree& tree, const RenderContext& ctx);

}  // namespace osmp
