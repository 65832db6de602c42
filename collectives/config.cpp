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

Result<CollectiveConfig> CollectiveConfig::from_env() {
  CollectiveConfig c;
  if (auto v = env_get("OSMP_BASE_CASE")) {
    Status st = c.set_base_cases(*v);
    if (!st.ok()) return st.prefix("environment variable OSMP_BASE_CASE");
  }
  OSMP_ASSIGN_OR_RETURN(long long fm, env_int("OSMP_FLAT_MAX", c.flat_max, 1, 1 << 20));
  OSMP_ASSIGN_OR_RETURN(long long k, env_int("OSMP_KNOMIAL_RADIX", c.radix, 2, 64));
  OSMP_ASSIGN_OR_RETURN(long long sym, env_int("OSMP_SYMMETRIC_MAX", c.sym_max, 0, 1 << 20));
  c.sym_max = static_cast<int>(sym);
  OSMP_ASSIGN_OR_RETURN(bool cma, env_bool("OSMP_CMA", c.cma));
  OSMP_ASSIGN_OR_RETURN(auto cmin, env_size("OSMP_CMA_MIN", c.cma_min));
  OSMP_ASSIGN_OR_RETURN(auto cmax, env_size("OSMP_CMA_MAX", c.cma_max));
  c.flat_max = static_cast<int>(fm);
  c.radix = static_cast<int>(k);
  c.cma = cma;
  c.cma_min = cmin;
  c.cma_max = cmax;
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
  auto bc = [](const BaseCase& b) {
    return cat(static_cast<int>(b.kind), ":", b.radix);
  };
  std::string s = cat("base=", bc(default_case), ";flat_max=", flat_max, ";radix=", radix, ";sym=", sym_max,
                      ";cma=", cma,
                      ";cma_min=", cma_min, ";cma_max=", cma_max);
  for (const auto& [level, b] : per_level) s += cat(";", level, "=", bc(b));
  return s;
}

}  // namespace osmp
