#include "team/options.hpp"

#include "core/env.hpp"
#include "core/strings.hpp"

namespace osmp {

Result<TeamOptions> TeamOptions::from_env() {
  TeamOptions o;
  o.topology = TopologySource::from_env();
  if (auto vh = env_get("OSMP_VH")) o.vh = *vh;
  if (auto w = env_get("OSMP_WAIT")) {
    auto p = parse_wait_policy(*w);
    if (!p.ok()) return Status(p.status()).prefix("environment variable OSMP_WAIT");
    o.wait = *p;
  }
  OSMP_ASSIGN_OR_RETURN(auto slot, env_size("OSMP_SLOT_SIZE", kDefaultSlotBytes));
  OSMP_ASSIGN_OR_RETURN(auto bcast, env_size("OSMP_BCAST_SIZE", kDefaultBcastBytes));
  OSMP_ASSIGN_OR_RETURN(auto limit, env_size("OSMP_SHM_LIMIT", 0));
  o.slot_bytes = slot;
  o.bcast_bytes = bcast;
  o.shm_limit = limit;
  if (auto heap = env_get("OSMP_HEAP_SIZE"); heap && !trim(*heap).empty()) {
    if (iequals(trim(*heap), "off")) {
      o.heap_bytes = 0;
    } else {
      OSMP_ASSIGN_OR_RETURN(auto bytes, parse_size(*heap, "environment variable OSMP_HEAP_SIZE"));
      o.heap_bytes = static_cast<std::size_t>(bytes);
    }
  }
  if (auto place = env_get("OSMP_PLACE"); place && !place->empty()) {
    auto p = CpuSet::parse(*place);
    if (!p.ok()) return Status(p.status()).prefix("environment variable OSMP_PLACE");
    o.place = *p;
  }
  return o;
}

}  // namespace osmp
