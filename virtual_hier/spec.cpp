#include "virtual_hier/spec.hpp"

#include "core/env.hpp"
#include "core/strings.hpp"
#include "topology/levels.hpp"

namespace osmp {
namespace {

constexpr long long kMaxDegree = 1 << 20;

Status bad(std::string_view spec, std::string_view token, std::string_view why) {
  return Status(Errc::invalid_argument, cat("virtual-hierarchy spec '", spec, "': bad item '", token, "': ", why,
                                            " (expected LEVEL:DEGREE, LEVEL?MAX, ?MAX or auto)"));
}

Result<SpecItem> parse_item(std::string_view spec, std::string_view token) {
  SpecItem item;
  item.token = std::string(token);
  if (iequals(token, "auto")) {
    item.kind = SpecItem::Kind::max_members;
    item.value = kAutoMaxMembers;
    return item;
  }
  std::size_t pos = token.find_first_of(":?");
  if (pos == std::string_view::npos) return bad(spec, token, "no ':' or '?'");
  item.kind = token[pos] == ':' ? SpecItem::Kind::degree : SpecItem::Kind::max_members;
  std::string_view name = trim(token.substr(0, pos));
  std::string_view number = token.substr(pos + 1);
  long long lo = item.kind == SpecItem::Kind::degree ? 1 : 2;
  auto v = parse_int(number, lo, kMaxDegree, item.kind == SpecItem::Kind::degree ? "degree" : "maximum group size");
  if (!v.ok()) return bad(spec, token, v.status().message());
  item.value = static_cast<int>(*v);
  if (name.empty()) {
    if (item.kind == SpecItem::Kind::degree) return bad(spec, token, "a degree needs a level name");
    return item;
  }
  // Unknown names are kept as written; apply_spec() reports them with the
  // level names of the actual topology.
  auto canon = canonical_level(name);
  item.level = canon ? *canon : std::string(name);
  return item;
}

}  // namespace

Result<VhSpec> parse_spec(std::string_view text) {
  VhSpec spec;
  spec.text = std::string(trim(text));
  if (spec.text.empty() || iequals(spec.text, "none")) return spec;
  for (std::string_view raw : split(spec.text, ',')) {
    std::string_view token = trim(raw);
    if (token.empty()) return bad(spec.text, raw, "empty item");
    OSMP_ASSIGN_OR_RETURN(SpecItem item, parse_item(spec.text, token));
    for (const auto& other : spec.items) {
      if (other.level == item.level && other.kind == item.kind) {
        return bad(spec.text, token,
                   cat("level '", item.level.empty() ? "(every level)" : item.level, "' is given twice"));
      }
    }
    spec.items.push_back(std::move(item));
  }
  return spec;
}

Result<VhSpec> spec_from_env() {
  auto v = env_get("OSMP_VH");
  if (!v) return VhSpec{};
  auto spec = parse_spec(*v);
  if (!spec.ok()) return Status(spec.status()).prefix("environment variable OSMP_VH");
  return spec;
}

}  // namespace osmp
