#include "team/options.hpp"

#include "core/env.hpp"
#include "core/strings.hpp"

namespace osmp {

namespace {
constexpr std::string_view kNames[] = {"OSMP_TOPOLOGY",   "OSMP_VH",        "OSMP_WAIT",      "OSMP_SLOT_SIZE",
                                       "OSMP_BCAST_SIZE", "OSMP_SHM_LIMIT", "OSMP_HEAP_SIZE", "OSMP_PLACE"};

Result<std::size_t> size_setting(std::string_view value, std::size_t fallback, const std::string& what) {
  if (trim(value).empty()) return fallback;
  OSMP_ASSIGN_OR_RETURN(auto bytes, parse_size(value, what));
  return static_cast<std::size_t>(bytes);
}
}  // namespace

std::span<const std::string_view> TeamOptions::names() { return kNames; }

bool TeamOptions::known(std::string_view name) {
  for (std::string_view n : kNames)
    if (n == name) return true;
  return false;
}

Status TeamOptions::set(std::string_view name, std::string_view value, std::string_view source) {
  const std::string what = cat(source, " ", name);
  const std::string_view v = trim(value);
  if (name == "OSMP_TOPOLOGY") {
    topology = TopologySource::parse(v);
  } else if (name == "OSMP_VH") {
    vh = std::string(value);
  } else if (name == "OSMP_WAIT") {
    auto p = parse_wait_policy(value);
    if (!p.ok()) return Status(p.status()).prefix(what);
    wait = *p;
  } else if (name == "OSMP_SLOT_SIZE") {
    OSMP_ASSIGN_OR_RETURN(slot_bytes, size_setting(value, kDefaultSlotBytes, what));
  } else if (name == "OSMP_BCAST_SIZE") {
    OSMP_ASSIGN_OR_RETURN(bcast_bytes, size_setting(value, kDefaultBcastBytes, what));
  } else if (name == "OSMP_SHM_LIMIT") {
    OSMP_ASSIGN_OR_RETURN(shm_limit, size_setting(value, 0, what));
  } else if (name == "OSMP_HEAP_SIZE") {
    if (v.empty()) {
      heap_bytes.reset();
    } else if (iequals(v, "off")) {
      heap_bytes = 0;
    } else {
      OSMP_ASSIGN_OR_RETURN(heap_bytes, size_setting(value, 0, what));
    }
  } else if (name == "OSMP_PLACE") {
    if (value.empty()) {
      place.reset();
    } else {
      auto p = CpuSet::parse(value);
      if (!p.ok()) return Status(p.status()).prefix(what);
      place = *p;
    }
  } else {
    return Status(Errc::invalid_argument, cat(source, " ", name, ": not a team setting"));
  }
  return {};
}

Result<TeamOptions> TeamOptions::from_env() {
  TeamOptions o;
  for (std::string_view name : kNames)
    if (auto v = env_get(std::string(name).c_str())) OSMP_RETURN_IF_ERROR(o.set(name, *v, "environment variable"));
  return o;
}

}  // namespace osmp
