// The four machines of the OSMP paper (and SMT variants) as hwloc synthetic
// strings, reachable by name from the API, OSMP_TOPOLOGY and every command.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace osmp {

struct Preset {
  std::string_view name;       // "rome"
  std::string_view machine;    // "2x AMD EPYC 7742 (Rome), NPS4"
  std::string_view synthetic;  // hwloc synthetic string
};

const std::vector<Preset>& presets();
std::optional<std::string_view> preset_synthetic(std::string_view name);

}  // namespace osmp
