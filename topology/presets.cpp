#include "topology/presets.hpp"

#include "core/strings.hpp"

namespace osmp {

// Strings from shared/topologies/README.md, verified there with hwloc 2.9.
const std::vector<Preset>& presets() {
  static const std::vector<Preset> kPresets = {
      {"rome", "2x AMD EPYC 7742 (Rome), NPS4: 4 NUMA x 4 CCX x 4 cores per socket",
       "Package:2 Group:4 [NUMANode] L3Cache:4(size=16MiB) L2Cache:4(size=512KiB) "
       "L1dCache:1(size=32KiB) L1iCache:1(size=32KiB) Core:1 PU:1"},
      {"rome-smt", "2x AMD EPYC 7742 (Rome), NPS4, SMT2",
       "Package:2 Group:4 [NUMANode] L3Cache:4(size=16MiB) L2Cache:4(size=512KiB) "
       "L1dCache:1(size=32KiB) L1iCache:1(size=32KiB) Core:1 PU:2"},
      {"cascadelake", "2x Intel Xeon Platinum 8280 (Cascade Lake), 28 cores per socket",
       "Package:2 [NUMANode] L3Cache:1(size=39424KiB) L2Cache:28(size=1MiB) "
       "L1dCache:1(size=32KiB) L1iCache:1(size=32KiB) Core:1 PU:1"},
      {"cascadelake-ht", "2x Intel Xeon Platinum 8280 (Cascade Lake), Hyper-Threading",
       "Package:2 [NUMANode] L3Cache:1(size=39424KiB) L2Cache:28(size=1MiB) "
       "L1dCache:1(size=32KiB) L1iCache:1(size=32KiB) Core:1 PU:2"},
      {"power9", "2x IBM POWER9, 22 cores per socket, SMT4",
       "Package:2 [NUMANode] L3Cache:11(size=10MiB) L2Cache:1(size=512KiB) "
       "L1dCache:2(size=32KiB) L1iCache:1(size=32KiB) Core:1 PU:4"},
      {"a64fx", "Fujitsu A64FX, 4 CMG x 12 cores",
       "Package:1 L2Cache:4(size=8MiB) [NUMANode] L1dCache:12(size=64KiB) "
       "L1iCache:1(size=64KiB) Core:1 PU:1"},
  };
  return kPresets;
}

std::optional<std::string_view> preset_synthetic(std::string_view name) {
  for (const auto& p : presets())
    if (iequals(name, p.name)) return p.synthetic;
  return std::nullopt;
}

}  // namespace osmp
