#include "topology/levels.hpp"

#include <cctype>

#include "core/status.hpp"
#include "core/strings.hpp"

namespace osmp {
namespace {

struct Alias {
  const char* alias;
  const char* canonical;
};

constexpr Alias kAliases[] = {
    {"machine", "Machine"}, {"node", "Machine"},      {"package", "Package"}, {"socket", "Package"},
    {"die", "Die"},         {"numanode", "NUMANode"}, {"numa", "NUMANode"},   {"l3cache", "L3Cache"},
    {"l3", "L3Cache"},      {"l2cache", "L2Cache"},   {"l2", "L2Cache"},      {"l1cache", "L1Cache"},
    {"l1", "L1Cache"},      {"l1dcache", "L1Cache"},  {"l4cache", "L4Cache"}, {"l4", "L4Cache"},
    {"l5cache", "L5Cache"}, {"l5", "L5Cache"},        {"core", "Core"},       {"pu", "PU"},
    {"hwthread", "PU"},     {"thread", "PU"},         {"group", "Group0"},
};

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

std::optional<std::string> canonical_level(std::string_view name) {
  std::string_view t = trim(name);
  for (const auto& a : kAliases)
    if (iequals(t, a.alias)) return std::string(a.canonical);
  if (t.size() > 5 && iequals(t.substr(0, 5), "group") && all_digits(t.substr(5))) {
    return cat("Group", t.substr(5));
  }
  if (is_virtual_level_name(t)) {
    auto dash = t.rfind("-v");
    auto parent = canonical_level(t.substr(0, dash));
    if (parent) return cat(*parent, t.substr(dash));
  }
  return std::nullopt;
}

int level_naming_priority(std::string_view c) {
  constexpr const char* kOrder[] = {"Machine", "Package", "Die",     "NUMANode", "L5Cache", "L4Cache",
                                    "L3Cache", "Core",    "L2Cache", "L1Cache",  "PU"};
  int i = 0;
  for (const char* n : kOrder) {
    if (c == n) return i;
    ++i;
  }
  return i;  // groups and anything else come last
}

std::string virtual_level_name(std::string_view parent_level, int nesting) { return cat(parent_level, "-v", nesting); }

bool is_virtual_level_name(std::string_view name) {
  auto dash = name.rfind("-v");
  return dash != std::string_view::npos && dash > 0 && all_digits(name.substr(dash + 2));
}

}  // namespace osmp
