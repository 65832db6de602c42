// The SVG picture of a communication tree. layout_svg() decides where every
// box goes; render_svg() only writes what the layout says.
//
// A domain's box holds, left to right, the boxes of its children and then one
// block of rank cells (children of one process that are not worth a box, and
// the ranks placed directly in the domain). When they do not fit on one row
// they wrap: each box picks the number of items per row that brings it
// closest to kAspect, so Rome's 128 processes come out about 1550 px wide.
#include <algorithm>
#include <cmath>
#include <ranges>

#include "core/strings.hpp"
#include "topology/render.hpp"

namespace osmp {
namespace {

constexpr int kMargin = 14;
constexpr int kPad = 6;      // inside a box: left, right, bottom
constexpr int kGap = 8;      // between the items of a box
constexpr int kCellGap = 3;  // between rank cells
constexpr int kCellH = 22;
constexpr int kCellsPerRow = 16;
constexpr int kMinWidth = 480;
constexpr int kLabelLine = 15;  // header line of a box, then the group line
constexpr int kGroupLine = 12;
constexpr double kAspect = 2.0;  // width / height a box aims for
constexpr double kLabelFont = 11;
constexpr double kGroupFont = 9.5;
constexpr double kRankFont = 10;
constexpr double kTitleFont = 14;
constexpr double kSubFont = 11;
constexpr double kLegendFont = 10.5;
constexpr int kSwatchW = 24;
constexpr int kGroupListMax = 12;  // longer groups are written as ranges

// Advance widths of ASCII 32..126 in DejaVu Sans and DejaVu Sans Bold, in
// hundredths of an em. The picture asks for that font first (and Verdana,
// about as wide, next), so text measured with it fits its box.
// clang-format off: one row per 16 characters, from ' '
constexpr unsigned char kAdvance[2][95] = {
    {32, 40, 46, 84, 64, 95, 78, 27, 39,  39, 50, 84, 32, 36, 32, 34, 64, 64, 64, 64, 64, 64, 64, 64,
     64, 64, 34, 34, 84, 84, 84, 53, 100, 68, 69, 70, 77, 63, 58, 77, 75, 29, 29, 66, 56, 86, 75, 79,
     60, 79, 69, 63, 61, 73, 68, 99, 69,  61, 69, 39, 34, 39, 84, 50, 50, 61, 63, 55, 63, 62, 35, 63,
     63, 28, 28, 58, 28, 97, 63, 61, 63,  63, 41, 52, 39, 63, 59, 82, 59, 59, 52, 64, 34, 64, 84},
    {35, 46, 52, 84, 70, 100, 87, 31,  46,  46, 52, 84, 38, 42, 38, 37, 70, 70, 70, 70, 70, 70,  70, 70,
     70, 70, 40, 40, 84, 84,  84, 58,  100, 77, 76, 73, 83, 68, 68, 82, 84, 37, 37, 77, 64, 100, 84, 85,
     73, 85, 77, 72, 68, 81,  77, 110, 77,  72, 73, 46, 37, 46, 84, 50, 50, 67, 72, 59, 72, 68,  44, 72,
     71, 34, 34, 67, 34, 104, 71, 69,  72,  72, 49, 60, 48, 71, 65, 92, 65, 65, 58, 71, 37, 71,  84}};
// clang-format on

int text_width(std::string_view s, double font, bool bold = false) {
  int hundredths = 0;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if ((c & 0xC0) == 0x80) continue;                                         // UTF-8 continuation byte
    hundredths += c >= 32 && c < 127 ? kAdvance[bold ? 1 : 0][c - 32] : 100;  // ★, …: 90, 100
  }
  return static_cast<int>(std::ceil(hundredths * font / 100.0 * 1.03));  // 3% to spare
}

std::string domain_label(const Domain& d) {
  std::string out = cat(d.level, d.is_virtual ? " V#" : " L#", d.logical_index);
  if (d.aliases.size() > 1) {
    std::string others;
    for (const auto& a : d.aliases)
      if (a.name != d.level) others += cat(others.empty() ? "" : "+", a.name);
    out += cat(" (+", others, ")");
  }
  return d.is_virtual ? out + " (virtual)" : out;
}

// "group 0★ 16 32 48"; long groups as "group[130] 0★ 1-129".
std::string group_label(const Domain& d) {
  if (!d.has_group()) return "";
  if (d.group.size() <= static_cast<std::size_t>(kGroupListMax)) {
    std::string out = "group";
    for (int r : d.group) out += cat(" ", r, r == d.leader ? "\u2605" : "");
    return out;
  }
  std::vector<int> rest(d.group.begin() + 1, d.group.end());
  std::string ranks = rank_list(rest);
  if (ranks.size() > 60) ranks = ranks.substr(0, 57) + "\u2026";
  return cat("group[", d.group.size(), "] ", d.leader, "\u2605 ", ranks);
}

// A domain of one process gets a box only next to siblings that have groups.
bool drawn(const Tree& t, int id) {
  const Domain& d = t.domain(id);
  if (d.parent < 0 || d.has_group()) return true;
  for (int s : t.domain(d.parent).children)
    if (t.domain(s).has_group()) return true;
  return false;
}

struct Point {
  int x = 0, y = 0;
};

struct Item {
  int domain = -1;         // a child drawn as a box, or -1: a block of rank cells
  std::vector<int> ranks;  // the block's cells, in order
  int cols = 1;            // the block's cells per row
  int w = 0, h = 0;
};

struct Node {  // a domain drawn as a box
  std::vector<Item> items;
  int cols = 1;  // items per row
  int header = 0;
  int w = 0, h = 0;
};

void size_block(Item& b, int cell_w) {
  int n = static_cast<int>(b.ranks.size());
  int rows = (n + kCellsPerRow - 1) / kCellsPerRow;
  b.cols = (n + rows - 1) / rows;
  b.w = b.cols * cell_w + (b.cols - 1) * kCellGap;
  b.h = rows * kCellH + (rows - 1) * kCellGap;
}

std::vector<Item> items_of(const Tree& t, int id) {
  std::vector<Item> items;
  auto add_rank = [&](int r) {
    if (items.empty() || items.back().domain >= 0) items.emplace_back();
    items.back().ranks.push_back(r);
  };
  for (int c : t.domain(id).children) {
    if (drawn(t, c)) {
      items.push_back(Item{c, {}, 1, 0, 0});
    } else {
      for (int r : t.domain(c).members) add_rank(r);
    }
  }
  for (int r : t.domain(id).direct) add_rank(r);
  return items;
}

// Rows of `cols` items, each row as tall as its tallest item. Fills `at`
// (offsets from the content's corner) when given; returns the content size.
Point arrange(const std::vector<Item>& items, int cols, std::vector<Point>* at) {
  Point size;
  int y = 0;
  auto step = static_cast<std::size_t>(cols);
  for (std::size_t row = 0; row < items.size(); row += step) {
    int x = 0, h = 0;
    for (std::size_t i = row; i < std::min(row + step, items.size()); ++i) {
      if (at) at->push_back({x, y});
      x += items[i].w + kGap;
      h = std::max(h, items[i].h);
    }
    size.x = std::max(size.x, x - kGap);
    y += h + kGap;
  }
  size.y = y - kGap;
  return size;
}

struct Measure {
  const Tree& tree;
  int cell_w = 0;
  std::vector<Node> nodes;  // by domain id; filled for drawn domains
};

void measure(Measure& m, int id) {
  Node& n = m.nodes[static_cast<std::size_t>(id)];
  const Domain& d = m.tree.domain(id);
  n.items = items_of(m.tree, id);
  for (Item& it : n.items) {
    if (it.domain < 0) {
      size_block(it, m.cell_w);
      continue;
    }
    measure(m, it.domain);
    it.w = m.nodes[static_cast<std::size_t>(it.domain)].w;
    it.h = m.nodes[static_cast<std::size_t>(it.domain)].h;
  }
  n.header = kLabelLine + (d.has_group() ? kGroupLine : 0) + 3;
  int label_w = std::max(text_width(domain_label(d), kLabelFont, true), text_width(group_label(d), kGroupFont));
  double best = 1e30;
  int count = static_cast<int>(n.items.size());
  for (int rows = 1; rows <= count; ++rows) {
    int cols = (count + rows - 1) / rows;
    Point c = arrange(n.items, cols, nullptr);
    int w = std::max(c.x, label_w) + 2 * kPad;
    int h = n.header + c.y + kPad;
    double cost = std::abs(std::log(static_cast<double>(w) / h / kAspect));
    if (cost < best - 1e-9) best = cost, n.cols = cols, n.w = w, n.h = h;
  }
}

void place(const Measure& m, int id, Point at, int parent, SvgLayout& out) {
  const Node& n = m.nodes[static_cast<std::size_t>(id)];
  int self = static_cast<int>(out.boxes.size());
  out.boxes.push_back({SvgBox::Kind::domain, id, parent, at.x, at.y, n.w, n.h});
  std::vector<Point> offsets;
  arrange(n.items, n.cols, &offsets);
  for (std::size_t i = 0; i < n.items.size(); ++i) {
    const Item& it = n.items[i];
    Point p{at.x + kPad + offsets[i].x, at.y + n.header + offsets[i].y};
    if (it.domain >= 0) {
      place(m, it.domain, p, self, out);
      continue;
    }
    for (std::size_t k = 0; k < it.ranks.size(); ++k) {
      int col = static_cast<int>(k) % it.cols, row = static_cast<int>(k) / it.cols;
      out.boxes.push_back({SvgBox::Kind::rank, it.ranks[k], self, p.x + col * (m.cell_w + kCellGap),
                           p.y + row * (kCellH + kCellGap), m.cell_w, kCellH});
    }
  }
}

// Greedy word wrap to `width` px; a word longer than a line stays whole.
std::vector<std::string> wrap(const std::string& text, double font, int width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = text.find(' ', i + 1);
    if (j == std::string::npos) j = text.size();
    std::string word = text.substr(i, j - i);
    if (!line.empty() && text_width(line + word, font) > width) {
      lines.push_back(line);
      if (word.front() == ' ') word.erase(0, 1);
      line.clear();
    }
    line += word;
    i = j;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string levels_line(const Tree& tree) {
  std::string out = "levels:";
  for (const auto& l : tree.levels()) {
    if (l.groups == 0) continue;
    out += cat("  ", l.name, l.is_virtual ? "(v)" : "", " ", l.groups, "x");
    out += l.min_group == l.max_group ? cat(l.max_group) : cat(l.min_group, "-", l.max_group);
  }
  return out + "   (groups x members)";
}

// Title lines from `y`; returns the y below them.
int layout_title(const Tree& tree, const RenderContext& ctx, int width, int y, SvgLayout& out) {
  std::string head = cat("osmp communication tree: ", tree.size(), tree.size() == 1 ? " process" : " processes");
  std::string how = ctx.placement.empty() ? "" : "placement: " + ctx.placement;
  if (!ctx.spec.empty()) how += cat(how.empty() ? "" : "; ", "virtual hierarchy: ", ctx.spec);
  std::vector<std::pair<std::string, double>> lines;
  for (const auto& l : wrap(head, kTitleFont, width)) lines.emplace_back(l, kTitleFont);
  for (const auto& l : wrap(how, kSubFont, width)) lines.emplace_back(l, kSubFont);
  if (!ctx.topology.empty())
    for (const auto& l : wrap("topology: " + ctx.topology, kSubFont, width)) lines.emplace_back(l, kSubFont);
  for (const auto& l : wrap(levels_line(tree), kSubFont, width)) lines.emplace_back(l, kSubFont);
  for (const auto& [text, font] : lines) {
    y += static_cast<int>(std::ceil(font * 1.35));
    out.title.push_back({text, kMargin, y, font, font == kTitleFont});
  }
  return y + 10;
}

// Legend entries flowed into rows of `width` from `y`; returns the y below.
int layout_legend(const Tree& tree, SvgLayout& out, int width, int y) {
  std::vector<std::string> shown;  // levels with a box, top-down
  for (const auto& l : tree.levels())
    for (const auto& b : out.boxes)
      if (b.kind == SvgBox::Kind::domain && tree.domain(b.id).level == l.name) {
        shown.push_back(l.name);
        break;
      }
  for (const auto& name : shown) {
    bool v = tree.level(name) && tree.level(name)->is_virtual;
    out.legend.push_back({SvgLegendEntry::Kind::level, name, v ? name + " (virtual, dashed)" : name});
  }
  out.legend.push_back(
      {SvgLegendEntry::Kind::leader, "", "leader of a group; bars: the levels whose group it leads, top first"});
  out.legend.push_back(
      {SvgLegendEntry::Kind::group, "", "group: the leaders of the boxes inside plus the ranks placed directly"});
  int x = 0;
  y += 4;
  for (auto& e : out.legend) {
    int swatch = e.kind == SvgLegendEntry::Kind::level ? kSwatchW : out.cell_w;
    if (e.kind == SvgLegendEntry::Kind::group) swatch = 0;
    e.w = swatch + 5 + text_width(e.text, kLegendFont);
    if (x > 0 && x + e.w > width) x = 0, y += kCellH + 6;
    e.x = kMargin + x;
    e.y = y;
    x += e.w + 18;
  }
  return y + kCellH;
}

struct Colour {
  const char* fill;
  const char* stroke;
};
// Physical levels top-down (Machine first), then virtual levels in their own hues.
constexpr Colour kPhysical[] = {{"#f5f5f5", "#7a7a7a"}, {"#dde9f7", "#3f73b0"}, {"#e1f2d9", "#4b9a37"},
                                {"#fde9cf", "#cc7a1a"}, {"#ede1f6", "#8856a8"}, {"#d9f1f1", "#2f8f8f"},
                                {"#f7dfdf", "#b84a4a"}};
constexpr Colour kVirtual[] = {{"#fff7c7", "#a68300"}, {"#ffe3f1", "#c04a8a"}, {"#e6f4ff", "#2a6f9f"}};

Colour colour_of(const Tree& t, const std::string& level) {
  std::size_t p = 0, v = 0;
  for (const auto& l : t.levels()) {
    if (l.name == level) return l.is_virtual ? kVirtual[v % std::size(kVirtual)] : kPhysical[p % std::size(kPhysical)];
    ++(l.is_virtual ? v : p);
  }
  return kPhysical[0];
}

std::string esc(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;  // not allowed in XML 1.0
    }
  }
  return out;
}

std::string text(int x, int y, double font, bool bold, const char* fill, std::string_view s, const char* extra = "") {
  return cat("<text x=\"", x, "\" y=\"", y, "\" font-size=\"", font, "\"", bold ? " font-weight=\"bold\"" : "",
             " fill=\"", fill, "\"", extra, ">", esc(s), "</text>");
}

std::string rect(int x, int y, int w, int h, int rx, const Colour& c, bool dashed) {
  return cat("<rect x=\"", x, "\" y=\"", y, "\" width=\"", w, "\" height=\"", h, "\" rx=\"", rx, "\" fill=\"", c.fill,
             "\" stroke=\"", c.stroke, "\" stroke-width=\"", dashed ? "1.6\" stroke-dasharray=\"6 3" : "1.2", "\"/>");
}

// The domains whose group each rank leads, top-down.
std::vector<std::vector<int>> led_groups(const Tree& t) {
  std::vector<std::vector<int>> led(static_cast<std::size_t>(t.size()));
  for (int r = 0; r < t.size(); ++r) {
    auto path = t.group_path(r);
    for (int d : std::ranges::reverse_view(path))
      if (t.domain(d).leader == r) led[static_cast<std::size_t>(r)].push_back(d);
  }
  return led;
}

void open_domain(const Tree& t, const SvgBox& b, std::string& out) {
  const Domain& d = t.domain(b.id);
  out += cat("<g class=\"domain", d.is_virtual ? " virtual" : "", "\" data-level=\"", esc(d.level), "\">\n<title>",
             esc(cat(domain_label(d), ": ranks ", rank_list(d.members), ", cpus ", d.cpuset.to_string())), "</title>\n",
             rect(b.x, b.y, b.w, b.h, 7, colour_of(t, d.level), d.is_virtual), "\n",
             text(b.x + kPad, b.y + 13, kLabelFont, true, "#1a1a1a", domain_label(d)), "\n");
  if (d.has_group())
    out += text(b.x + kPad, b.y + 13 + kGroupLine, kGroupFont, false, "#333333", group_label(d)) + "\n";
}

// A rank cell: the number, and for a leader a star and one bar per group it
// leads in that level's colour. `cls` is "rank" in the tree only.
void rank_cell(const Tree& t, const SvgBox& b, const std::vector<int>& led, const char* cls, std::string& out) {
  bool leader = !led.empty();
  std::string tip = cat("rank ", b.id, ", cpus ", t.place(b.id).to_string());
  for (std::size_t i = 0; i < led.size(); ++i) tip += cat(i ? ", " : "; leads ", domain_label(t.domain(led[i])));
  Colour cell = leader ? Colour{"#fff8e1", "#222222"} : Colour{"#ffffff", "#a0a0a0"};
  out += cat("<g class=\"", cls, leader ? " leader" : "", "\"><title>", esc(tip), "</title>",
             rect(b.x, b.y, b.w, b.h, 3, cell, false),
             text(b.x + (leader ? (b.w - 8) / 2 : b.w / 2), b.y + 14, kRankFont, leader, "#111111", cat(b.id),
                  " text-anchor=\"middle\""));
  if (leader) {
    out += text(b.x + b.w - 10, b.y + 11, 9, false, "#d62728", "\u2605", " class=\"star\"");
    int k = static_cast<int>(led.size()), bw = (b.w - 4) / k;
    for (int i = 0; i < k; ++i)
      out +=
          cat("<rect x=\"", b.x + 2 + i * bw, "\" y=\"", b.y + b.h - 5, "\" width=\"", bw - (k > 1 ? 1 : 0),
              "\" height=\"3\" fill=\"", colour_of(t, t.domain(led[static_cast<std::size_t>(i)]).level).stroke, "\"/>");
  }
  out += "</g>\n";
}

void legend(const Tree& t, const SvgLayout& l, const std::vector<int>& example, std::string& out) {
  out += "<g class=\"legend\">\n";
  for (const auto& e : l.legend) {
    int tx = e.x;
    if (e.kind == SvgLegendEntry::Kind::level) {
      const LevelInfo* info = t.level(e.level);
      out += rect(e.x, e.y + 5, kSwatchW, 12, 3, colour_of(t, e.level), info && info->is_virtual);
      tx += kSwatchW + 5;
    } else if (e.kind == SvgLegendEntry::Kind::leader) {
      rank_cell(t, {SvgBox::Kind::rank, 0, -1, e.x, e.y, l.cell_w, kCellH}, example, "legend-leader", out);
      tx += l.cell_w + 5;
    }
    out += text(tx, e.y + 15, kLegendFont, false, "#333333", e.text) + "\n";
  }
  out += "</g>\n";
}

}  // namespace

SvgLayout layout_svg(const Tree& tree, const RenderContext& ctx) {
  SvgLayout out;
  auto digits = static_cast<int>(std::to_string(std::max(0, tree.size() - 1)).size());
  out.cell_w = text_width(std::string(static_cast<std::size_t>(digits), '0'), kRankFont, true) + 16;
  Measure m{tree, out.cell_w, std::vector<Node>(tree.domains().size())};
  measure(m, 0);
  const Node& root = m.nodes.front();
  int width = std::max(root.w, kMinWidth);
  int y = layout_title(tree, ctx, width, kMargin, out);
  place(m, 0, {kMargin, y}, -1, out);
  y = layout_legend(tree, out, width, y + root.h + 12);
  for (const auto& t : out.title) width = std::max(width, text_width(t.text, t.font, t.bold));
  for (const auto& e : out.legend) width = std::max(width, e.x - kMargin + e.w);
  out.width = width + 2 * kMargin;
  out.height = y + kMargin;
  return out;
}

std::string render_svg(const Tree& tree, const RenderContext& ctx) {
  SvgLayout l = layout_svg(tree, ctx);
  auto led = led_groups(tree);
  std::string out =
      cat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", l.width,
          "\" height=\"", l.height, "\" viewBox=\"0 0 ", l.width, " ", l.height,
          "\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n<title>", esc(l.title.front().text), "</title>\n",
          "<rect class=\"background\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
  for (const auto& t : l.title) out += text(t.x, t.y, t.font, t.bold, t.bold ? "#111111" : "#444444", t.text) + "\n";
  std::vector<int> open;  // domain boxes whose <g> is not closed yet
  for (std::size_t i = 0; i < l.boxes.size(); ++i) {
    const SvgBox& b = l.boxes[i];
    for (; !open.empty() && open.back() != b.parent; open.pop_back()) out += "</g>\n";
    if (b.kind == SvgBox::Kind::domain) {
      open_domain(tree, b, out);
      open.push_back(static_cast<int>(i));
    } else {
      rank_cell(tree, b, led[static_cast<std::size_t>(b.id)], "rank", out);
    }
  }
  for (; !open.empty(); open.pop_back()) out += "</g>\n";
  legend(tree, l, led.front(), out);  // rank 0 leads the most groups
  return out + "</svg>\n";
}

}  // namespace osmp
