#include "core/env.hpp"

#include <cstdlib>
#include <limits>

#include "core/strings.hpp"

namespace osmp {

std::optional<std::string> env_get(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

Result<long long> env_int(const char* name, long long fallback, long long lo, long long hi) {
  auto v = env_get(name);
  if (!v || trim(*v).empty()) return fallback;
  return parse_int(*v, lo, hi, cat("environment variable ", name));
}

Result<bool> env_bool(const char* name, bool fallback) {
  auto v = env_get(name);
  if (!v || trim(*v).empty()) return fallback;
  std::string_view t = trim(*v);
  for (const char* yes : {"1", "yes", "true", "on"})
    if (iequals(t, yes)) return true;
  for (const char* no : {"0", "no", "false", "off"})
    if (iequals(t, no)) return false;
  return Status(Errc::invalid_argument,
                cat("environment variable ", name, "='", *v, "' is not a boolean (1/0, yes/no)"));
}

Result<unsigned long long> env_size(const char* name, unsigned long long fallback) {
  auto v = env_get(name);
  if (!v || trim(*v).empty()) return fallback;
  return parse_size(*v, cat("environment variable ", name));
}

}  // namespace osmp
