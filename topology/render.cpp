#include "topology/render.hpp"

#include <sstream>

#include "core/strings.hpp"

namespace osmp {
namespace {

std::string json_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string json_ints(const std::vector<int>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += cat(i ? "," : "", v[i]);
  return out + "]";
}

std::string group_text(const Domain& d) {
  std::string out;
  for (int r : d.group) out += cat(out.empty() ? "" : " ", r, r == d.leader ? "*" : "");
  return out;
}

void text_domain(const Tree& t, int id, int indent, std::ostringstream& out) {
  const Domain& d = t.domain(id);
  if (!d.has_group() && d.parent >= 0) return;
  out << std::string(static_cast<std::size_t>(indent) * 2, ' ') << d.level << (d.is_virtual ? " V#" : " L#")
      << d.logical_index;
  if (d.aliases.size() > 1) {
    std::string others;
    for (const auto& a : d.aliases)
      if (a.name != d.level) others += cat(others.empty() ? "" : "+", a.name);
    out << " (+" << others << ")";
  }
  if (d.is_virtual) out << " (virtual)";
  out << "  ranks " << rank_list(d.members);
  if (d.has_group()) out << "  group[" << d.group.size() << "] " << group_text(d);
  out << "\n";
  for (int c : d.children) text_domain(t, c, indent + 1, out);
}

}  // namespace

std::string render_text(const Tree& tree, const RenderContext& ctx) {
  std::ostringstream out;
  out << "topology: " << ctx.topology << "\n";
  out << "processes: " << tree.size();
  if (!ctx.placement.empty()) out << " (" << ctx.placement << ")";
  out << "\n";
  if (!ctx.spec.empty()) out << "virtual hierarchy: " << ctx.spec << "\n";
  for (const auto& note : ctx.spec_notes) out << "  note: " << note << "\n";
  out << "levels:";
  for (const auto& l : tree.levels()) {
    if (l.groups == 0) continue;
    out << "  " << l.name << (l.is_virtual ? "(v)" : "") << " " << l.groups << "x";
    out << (l.min_group == l.max_group ? cat(l.max_group) : cat(l.min_group, "-", l.max_group));
  }
  out << "   (groups x members)\n";
  text_domain(tree, 0, 0, out);
  return out.str();
}

std::string render_json(const Tree& tree, const RenderContext& ctx) {
  std::ostringstream out;
  out << "{\n  \"topology\": \"" << json_escape(ctx.topology) << "\",\n";
  out << "  \"placement\": \"" << json_escape(ctx.placement) << "\",\n";
  out << "  \"spec\": \"" << json_escape(ctx.spec) << "\",\n  \"spec_notes\": [";
  for (std::size_t i = 0; i < ctx.spec_notes.size(); ++i)
    out << (i ? ", " : "") << "\"" << json_escape(ctx.spec_notes[i]) << "\"";
  out << "],\n";
  out << "  \"nprocs\": " << tree.size() << ",\n  \"levels\": [";
  for (std::size_t i = 0; i < tree.levels().size(); ++i) {
    const auto& l = tree.levels()[i];
    out << (i ? ",\n" : "\n") << "    {\"name\": \"" << json_escape(l.name)
        << "\", \"virtual\": " << (l.is_virtual ? "true" : "false") << ", \"domains\": " << l.domains
        << ", \"groups\": " << l.groups << ", \"min_group\": " << l.min_group << ", \"max_group\": " << l.max_group
        << "}";
  }
  out << "\n  ],\n  \"domains\": [";
  for (std::size_t i = 0; i < tree.domains().size(); ++i) {
    const Domain& d = tree.domains()[i];
    out << (i ? ",\n" : "\n") << "    {\"id\": " << i << ", \"level\": \"" << json_escape(d.level)
        << "\", \"aliases\": [";
    for (std::size_t a = 0; a < d.aliases.size(); ++a)
      out << (a ? ", " : "") << "\"" << json_escape(d.aliases[a].name) << "\"";
    out << "], \"virtual\": " << (d.is_virtual ? "true" : "false") << ", \"logical_index\": " << d.logical_index
        << ", \"depth\": " << d.depth << ", \"cpuset\": \"" << d.cpuset.to_string() << "\", \"parent\": " << d.parent
        << ", \"children\": " << json_ints(d.children) << ", \"members\": " << json_ints(d.members)
        << ", \"leader\": " << d.leader << ", \"group\": " << json_ints(d.group) << "}";
  }
  out << "\n  ],\n  \"ranks\": [";
  for (int r = 0; r < tree.size(); ++r) {
    out << (r ? ",\n" : "\n") << "    {\"rank\": " << r << ", \"place\": \"" << tree.place(r).to_string()
        << "\", \"leaf\": " << tree.leaf(r) << ", \"path\": " << json_ints(tree.path(r)) << "}";
  }
  out << "\n  ]\n}\n";
  return out.str();
}

}  // namespace osmp
