#include "collectives/config.hpp"

#include "core/env.hpp"
#include "core/strings.hpp"
#include "topology/levels.hpp"

namespace osmp {

Result<BaseCase> CollectiveConfig::parse_base_case(const std::string& text) {
  std::string_view t = trim(text);
  BaseCase b;
  if (iequals(t, "auto")) return b;
  if (iequals(t, "flat")) {
    b.kind = BaseCase::Kind::flat;
    return b;
  }
  if (iequals(t.substr(0, 7), "knomial")) {
    b.kind = BaseCase::Kind::knomial;
    if (t.size() == 7) return b;
    if (t[7] == ':') {
      auto k = parse_int(t.substr(8), 2, 64, cat("k-nomial radix in '", text, "'"));
      if (!k.ok()) return k.status();
      b.radix = static_cast<int>(*k);
      return b;
    }
  }
  return Status(Errc::invalid_argument,
                cat("unknown base case '", text, "' (expected auto, flat, knomial or knomial:K)"));
}

Status CollectiveConfig::set_base_cases(const std::string& spec) {
  per_level.clear();
  default_case = {};
  for (std::string_view item : split(spec, ',')) {
    std::string_view t = trim(item);
    if (t.empty()) continue;
    auto eq = t.find('=');
    if (eq == std::string_view::npos) {
      OSMP_ASSIGN_OR_RETURN(default_case, parse_base_case(std::string(t)));
      continue;
    }
    std::string level(trim(t.substr(0, eq)));
    OSMP_ASSIGN_OR_RETURN(BaseCase b, parse_base_case(std::string(t.substr(eq + 1))));
    if (level == "*") {
      default_case = b;
      continue;
    }
    auto canon = canonical_level(level);
    if (!canon) {
      return Status(Errc::invalid_argument, cat("base case spec '", spec, "': unknown level '", level, "'"));
    }
    per_level[*canon] = b;
  }
  return {};
}

namespace {

// Every setting of the collectives: name, and whether it may differ per
// operation (the base-case choice does; the size thresholds are team-wide).
struct Known {
  const char* name;
  bool per_op;
};
constexpr Known kSettings[] = {
    {"OSMP_BASE_CASE", true},
    {"OSMP_FLAT_MAX", true},
    {"OSMP_KNOMIAL_RADIX", true},
    {"OSMP_SYMMETRIC_MAX", false},
    {"OSMP_SYMMETRIC_SLOT_MAX", false},
    {"OSMP_CMA", false},
    {"OSMP_CMA_MIN", false},
    {"OSMP_CMA_MAX", false},
    {"OSMP_CHECK", false},
    {"OSMP_ONE_PASS_MAX", false},
    {"OSMP_DIRECT", true},
    {"OSMP_STAGE", true},
    {"OSMP_STAGE_MIN", true},
};

}  // namespace

std::vector<std::string_view> CollectiveConfig::names() {
  std::vector<std::string_view> out;
  for (const auto& k : kSettings) out.emplace_back(k.name);
  return out;
}

bool CollectiveConfig::known(std::string_view name) {
  for (const auto& k : kSettings)
    if (name == k.name) return true;
  return false;
}

bool CollectiveConfig::per_op(std::string_view name) {
  for (const auto& k : kSettings)
    if (name == k.name) return k.per_op;
  return false;
}

Status CollectiveConfig::set(std::string_view name, std::string_view value) {
  const std::string what(name);
  auto number = [&](long long lo, long long hi, int& out) -> Status {
    OSMP_ASSIGN_OR_RETURN(long long v, parse_int(trim(value), lo, hi, what));
    out = static_cast<int>(v);
    return {};
  };
  auto size = [&](std::size_t& out) -> Status {
    OSMP_ASSIGN_OR_RETURN(auto v, parse_size(trim(value), what));
    out = static_cast<std::size_t>(v);
    return {};
  };
  if (name == "OSMP_BASE_CASE") return Status(set_base_cases(std::string(value))).prefix(what);
  if (name == "OSMP_FLAT_MAX") return number(1, 1 << 20, flat_max);
  if (name == "OSMP_KNOMIAL_RADIX") return number(2, 64, radix);
  if (name == "OSMP_SYMMETRIC_MAX") return number(0, 1 << 20, sym_max);
  if (name == "OSMP_SYMMETRIC_SLOT_MAX") return number(0, 1 << 20, sym_slot_max);
  if (name == "OSMP_ONE_PASS_MAX") return number(0, 1 << 20, one_pass_max);
  if (name == "OSMP_CHECK") {
    std::string_view v = trim(value);
    if (iequals(v, "lazy")) return lazy = true, Status{};
    if (iequals(v, "strict")) return lazy = false, Status{};
    return Status(Errc::invalid_argument, cat(what, ": '", value, "' is not a check mode (lazy or strict)"));
  }
  if (name == "OSMP_CMA_MIN") {
    if (iequals(trim(value), "auto")) return cma_range.min = CmaRange::kAuto, Status{};
    return size(cma_range.min);
  }
  if (name == "OSMP_CMA_MAX") return size(cma_range.max);
  auto boolean = [&](bool& out) -> Status {
    std::string_view v = trim(value);
    if (v == "1" || iequals(v, "on") || iequals(v, "yes") || iequals(v, "true")) return out = true, Status{};
    if (v == "0" || iequals(v, "off") || iequals(v, "no") || iequals(v, "false")) return out = false, Status{};
    return Status(Errc::invalid_argument, cat(what, ": '", value, "' is not a boolean (1/0, on/off)"));
  };
  if (name == "OSMP_CMA") {
    if (iequals(trim(value), "auto")) return cma = Cma::automatic, Status{};
    bool on = false;
    if (Status st = boolean(on); !st.ok())
      return Status(Errc::invalid_argument, cat(what, ": '", value, "' is not auto, 1 or 0 (on/off)"));
    return cma = on ? Cma::on : Cma::off, Status{};
  }
  if (name == "OSMP_DIRECT") return boolean(direct);
  if (name == "OSMP_STAGE") return boolean(stage);
  if (name == "OSMP_STAGE_MIN") {
    if (iequals(trim(value), "auto")) return stage_min = kAuto, Status{};
    return size(stage_min);
  }
  return Status(Errc::invalid_argument, cat("unknown collective setting '", name, "'"));
}

Result<CollectiveConfig> CollectiveConfig::from_env() {
  CollectiveConfig c;
  for (const auto& k : kSettings) {
    auto v = env_get(k.name);
    if (!v || (v->empty() && std::string_view(k.name) != "OSMP_BASE_CASE")) continue;
    Status st = c.set(k.name, *v);  // its message starts with the name
    if (!st.ok()) return Status(st.code(), cat("environment variable ", st.message()));
  }
  return c;
}

BaseCase CollectiveConfig::choose(const std::string& level, int members) const {
  BaseCase b = default_case;
  if (auto it = per_level.find(level); it != per_level.end()) b = it->second;
  if (b.kind == BaseCase::Kind::automatic) {
    b.kind = members <= flat_max ? BaseCase::Kind::flat : BaseCase::Kind::knomial;
  }
  if (b.kind == BaseCase::Kind::knomial && b.radix == 0) b.radix = radix;
  return b;
}

std::string CollectiveConfig::fingerprint() const {
  auto bc = [](const BaseCase& b) { return cat(static_cast<int>(b.kind), ":", b.radix); };
  std::string s = cat("base=", bc(default_case), ";flat_max=", flat_max, ";radix=", radix, ";sym=", sym_max,
                      ";sym_slot=", sym_slot_max, ";cma=", static_cast<int>(cma), ";cma_min=", cma_range.min,
                      ";cma_max=", cma_range.max, ";check=", lazy ? "lazy" : "strict", ";one_pass_max=", one_pass_max,
                      ";direct=", direct, ";stage=", stage, ";stage_min=", stage_min);
  for (const auto& [level, b] : per_level) s += cat(";", level, "=", bc(b));
  return s;
}

}  // namespace osmp
