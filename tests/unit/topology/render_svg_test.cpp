// The SVG picture of a tree (osmp-topo --svg): its layout on the paper's
// machines, an uneven XML machine and unbound processes (every box inside its
// parent, siblings apart, boxes nested like the domains, every rank in exactly
// one cell), and the SVG text (rank cells, virtual marks, escaping).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "support/machines.hpp"
#include "topology/render.hpp"

namespace osmp {
namespace {

bool inside(const SvgBox& in, const SvgBox& out) {
  return in.x >= out.x && in.y >= out.y && in.x + in.w <= out.x + out.w && in.y + in.h <= out.y + out.h;
}

bool overlap(const SvgBox& a, const SvgBox& b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

const RenderContext kCtx{"test machine", "map-by core, bind-to core", "", {}};

void check_box(const Tree& t, const SvgLayout& l, std::size_t i) {
  const SvgBox& b = l.boxes[i];
  EXPECT_GT(b.w, 0);
  EXPECT_GT(b.h, 0);
  EXPECT_TRUE(b.x >= 0 && b.y >= 0 && b.x + b.w <= l.width && b.y + b.h <= l.height) << i;
  if (i == 0) {
    EXPECT_EQ(b.kind, SvgBox::Kind::domain);
    EXPECT_EQ(b.id, 0);
    EXPECT_EQ(b.parent, -1);
    return;
  }
  ASSERT_TRUE(b.parent >= 0 && static_cast<std::size_t>(b.parent) < i) << i;
  const SvgBox& p = l.boxes[static_cast<std::size_t>(b.parent)];
  ASSERT_EQ(p.kind, SvgBox::Kind::domain);
  EXPECT_TRUE(inside(b, p)) << "box " << i << " sticks out of box " << b.parent;
  if (b.kind == SvgBox::Kind::domain) {
    EXPECT_EQ(t.domain(b.id).parent, p.id) << "boxes nest like the domains";
  } else {
    int leaf = t.leaf(b.id);  // in its own box, or in the box above when that has none
    EXPECT_TRUE(p.id == leaf || p.id == t.domain(leaf).parent) << "rank " << b.id;
  }
}

// Every invariant of the layout; returns it for more checks.
SvgLayout check_layout(const Tree& t, const RenderContext& ctx = kCtx) {
  SvgLayout l = layout_svg(t, ctx);
  EXPECT_FALSE(l.boxes.empty());
  std::vector<int> cells(static_cast<std::size_t>(t.size()), 0);
  std::set<int> boxed;
  for (std::size_t i = 0; i < l.boxes.size(); ++i) {
    check_box(t, l, i);
    const SvgBox& b = l.boxes[i];
    if (b.kind == SvgBox::Kind::rank) {
      ++cells[static_cast<std::size_t>(b.id)];
      EXPECT_EQ(b.w, l.cell_w);
    } else {
      EXPECT_TRUE(boxed.insert(b.id).second) << "domain " << b.id << " drawn twice";
    }
    for (std::size_t j = i + 1; j < l.boxes.size(); ++j)
      if (l.boxes[j].parent == b.parent) {
        EXPECT_FALSE(overlap(b, l.boxes[j])) << i << " " << j;
      }
  }
  for (int r = 0; r < t.size(); ++r) EXPECT_EQ(cells[static_cast<std::size_t>(r)], 1) << r;
  for (std::size_t d = 0; d < t.domains().size(); ++d)
    if (t.domains()[d].has_group()) {
      EXPECT_TRUE(boxed.count(static_cast<int>(d))) << d;
    }
  EXPECT_LT(l.title.back().y, l.boxes.front().y);
  EXPECT_GE(l.legend.front().y, l.boxes.front().y + l.boxes.front().h);
  return l;
}

// The number of every rank cell of the SVG, in document order.
std::vector<int> rank_cells(const std::string& svg) {
  static const std::regex cell(
      "<g class=\"rank( leader)?\"><title>[^<]*</title><rect[^>]*/><text[^>]*>([0-9]+)</text>");
  std::vector<int> out;
  for (std::sregex_iterator it(svg.begin(), svg.end(), cell), end; it != end; ++it)
    out.push_back(std::stoi((*it)[2].str()));
  return out;
}

void expect_every_rank_once(const Tree& t, const std::string& svg) {
  std::vector<int> cells = rank_cells(svg);
  std::multiset<int> seen(cells.begin(), cells.end());
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(t.size()));
  for (int r = 0; r < t.size(); ++r) EXPECT_EQ(seen.count(r), 1u) << r;
}

std::size_t occurrences(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(RenderSvg, RomeFigure4) {
  Topology topo = test::load("rome");
  Tree t = test::tree_for(topo.machine(), 128);
  SvgLayout l = check_layout(t);
  std::size_t domain_boxes = 0;
  for (const auto& b : l.boxes) domain_boxes += b.kind == SvgBox::Kind::domain;
  EXPECT_EQ(domain_boxes, 1u + 2u + 8u + 32u);  // cores hold one rank: cells, not boxes
  EXPECT_LE(l.width, 2500);
  EXPECT_LE(l.height, 1500);
  std::string svg = render_svg(t, kCtx);
  expect_every_rank_once(t, svg);
  EXPECT_NE(svg.find("NUMANode L#0 (+Group0)"), std::string::npos);
  EXPECT_NE(svg.find("L3Cache L#31"), std::string::npos);
  EXPECT_EQ(occurrences(svg, "<g class=\"rank leader\">"), 32u);  // the CCX leaders
  EXPECT_NE(svg.find("group 0\u2605 64"), std::string::npos);
  EXPECT_EQ(svg.find("virtual"), std::string::npos);
}

TEST(RenderSvg, CascadeLakeVirtualDomains) {
  Topology topo = test::load("cascadelake");
  Tree t = test::tree_for(topo.machine(), 56, MapBy::core, BindTo::core, "Package:4");
  check_layout(t, {"cascadelake", "map-by core, bind-to core", "Package:4", {}});
  std::string svg = render_svg(t, {"cascadelake", "map-by core, bind-to core", "Package:4", {}});
  expect_every_rank_once(t, svg);
  EXPECT_EQ(occurrences(svg, "<g class=\"domain virtual\""), 8u);
  EXPECT_EQ(occurrences(svg, "<g class=\"domain\""), 3u);
  EXPECT_NE(svg.find("Package-v1 V#3 (virtual)"), std::string::npos);
  EXPECT_NE(svg.find("Package L#1 (+NUMANode+L3Cache)"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
  EXPECT_NE(svg.find("virtual hierarchy: Package:4"), std::string::npos);
  EXPECT_NE(svg.find("group 21\u2605 22 23 24 25 26 27"), std::string::npos);
}

// Package 0 has 9 cores and no NUMA node, package 1 has 8: boxes of two sizes.
TEST(RenderSvg, UnevenXmlMachine) {
  Topology topo = test::load(test::data_path("topologies/intel-haswell-2x-e5-2680v3-offline-cpu0-node0.xml"));
  Tree t = test::tree_for(topo.machine(), 17);
  check_layout(t);
  expect_every_rank_once(t, render_svg(t, kCtx));
  // A package of one process keeps its box next to a package with a group.
  Topology rome = test::load("rome");
  Tree odd = test::tree_for(rome.machine(), 65);
  SvgLayout l = check_layout(odd);
  int pkg1 = odd.domains_of("Package").back();
  bool boxed = false;
  for (const auto& b : l.boxes) boxed |= b.kind == SvgBox::Kind::domain && b.id == pkg1;
  EXPECT_TRUE(boxed);
}

// Unbound processes live in the Machine domain: their cells sit in its box.
TEST(RenderSvg, UnboundProcesses) {
  Topology topo = test::load("rome");
  std::vector<CpuSet> places;
  for (int r = 0; r < 6; ++r) places.push_back(test::cpus(cat(r)));
  places.push_back(test::cpus("0-127"));
  places.push_back(test::cpus("64-127"));
  places.push_back(test::cpus("0-127"));
  Tree t = test::tree_from_places(topo.machine(), places);
  SvgLayout l = check_layout(t);
  for (const auto& b : l.boxes)
    if (b.kind == SvgBox::Kind::rank && (b.id == 6 || b.id == 8)) {
      EXPECT_EQ(b.parent, 0);
    }
  expect_every_rank_once(t, render_svg(t, kCtx));

  Tree all = test::tree_for(topo.machine(), 20, MapBy::core, BindTo::none);
  check_layout(all);
  expect_every_rank_once(all, render_svg(all, kCtx));
}

TEST(RenderSvg, OneProcess) {
  Topology topo = test::load("rome");
  Tree t = test::tree_for(topo.machine(), 1);
  SvgLayout l = check_layout(t);
  EXPECT_EQ(l.boxes.size(), 2u);
  expect_every_rank_once(t, render_svg(t, kCtx));
}

TEST(RenderSvg, EscapesText) {
  Topology topo = test::load("cascadelake");
  Tree t = test::tree_for(topo.machine(), 4);
  std::string svg = render_svg(t, {"file 'a<b>&c\".xml'", "map-by core", "", {}});
  EXPECT_NE(svg.find("file &apos;a&lt;b&gt;&amp;c&quot;.xml&apos;"), std::string::npos);
  EXPECT_EQ(svg.find("a<b>"), std::string::npos);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("viewBox=\"0 0 "), std::string::npos);
}

}  // namespace
}  // namespace osmp
