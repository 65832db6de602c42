// Every real machine in tests/data/topologies (hwloc test material), with one
// process per core and with the first half of the cores.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "support/machines.hpp"

namespace osmp {
namespace {

struct Expect {
  const char* file;
  const char* full;  // one process per core
  const char* half;  // the first half of the cores
};

const Expect kExpect[] = {
    {"amd-epyc7451-naples-2x24c-8numa.xml", "Machine 1x2 Package 2x4 NUMANode 8x2 L3Cache 16x3",
     "Machine 1x4 NUMANode 4x2 L3Cache 8x3"},
    {"amd-epyc7763-milan-2x64c.xml", "Machine 1x2 Package 2x8 L3Cache 16x8", "Machine 1x8 L3Cache 8x8"},
    {"arm-kunpeng920-2x64c-4numa-clusters.xml", "Machine 1x2 Package 2x2 NUMANode 4x8 Group0 32x4",
     "Machine 1x2 NUMANode 2x8 Group0 16x4"},
    {"arm-nvidia-gb10-hybrid-10x925-10a725.xml", "Machine 1x2 L3Cache 2x10", "Machine 1x10"},
    {"ibm-power9-2p-smt4-v100-gpumem-numa.xml", "Machine 1x2 Package 2x2 L3Cache 4x2", "Machine 1x2 L3Cache 2x2"},
    {"intel-cascadelake-2x20c-gold6230-snc2-memcache.xml", "Machine 1x2 Package 2x2 NUMANode 4x10",
     "Machine 1x2 NUMANode 2x10"},
    // Asymmetric: package 0 has 9 cores and no NUMA node, package 1 has 8.
    {"intel-haswell-2x-e5-2680v3-offline-cpu0-node0.xml", "Machine 1x2 Package 2x8-9", "Machine 1x8"},
    {"intel-knl-mini-fake-snc4-hybrid-mcdram.xml", "Machine 1x4 NUMANode 4x2 L2Cache 8x2",
     "Machine 1x2 NUMANode 2x2 L2Cache 4x2"},
    {"intel-knl-xeonphi7210-64c-cpuid.xml", "Machine 1x32 L2Cache 32x2", "Machine 1x16 L2Cache 16x2"},
    // Hybrid: 6 P-cores with their own L2, 8 E-cores in two L2 clusters of 4.
    {"intel-raptorlake-i7-1370p-hybrid-6p8e.xml", "Machine 1x8 L2Cache 2x4", "Machine 1x7"},
    {"intel-sandybridge-2x8c-e5-2680-io-nvme-ib-pmem.xml", "Machine 1x2 Package 2x8", "Machine 1x8"},
    {"intel-skylake-2x18c-gold6140-cpuid-nonuma.xml", "Machine 1x2 Package 2x18", "Machine 1x18"},
    {"intel-skylake-2x8c-silver4108-8ve-io.xml", "Machine 1x2 Package 2x8", "Machine 1x8"},
    {"sgi-uv2000-24x8c-e5-4640-12groups.xml", "Machine 1x12 Group0 12x2 Package 24x8",
     "Machine 1x6 Group0 6x2 Package 12x8"},
};

class XmlFiles : public ::testing::TestWithParam<Expect> {};

TEST_P(XmlFiles, OnePerCoreAndHalf) {
  const Expect& e = GetParam();
  Topology topo = test::load(test::data_path(std::string("topologies/") + e.file));
  EXPECT_FALSE(topo.is_this_system());
  int cores = static_cast<int>(topo.machine().cores().size());
  Tree full = test::tree_for(topo.machine(), cores);
  EXPECT_EQ(test::level_summary(full), e.full);
  Tree half = test::tree_for(topo.machine(), cores / 2);
  EXPECT_EQ(test::level_summary(half), e.half);
  // Scattered and unbound placements must build valid trees too.
  test::tree_for(topo.machine(), cores, MapBy::scatter);
  test::tree_for(topo.machine(), cores / 2, MapBy::numa);
  test::tree_for(topo.machine(), 7, MapBy::core, BindTo::none, "auto");
}

INSTANTIATE_TEST_SUITE_P(AllFiles, XmlFiles, ::testing::ValuesIn(kExpect), [](const auto& param_info) {
  std::string n = param_info.param.file;
  n = n.substr(0, n.size() - 4);
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});

// A new file in the folder must get an expectation here.
TEST(XmlFilesList, EveryFileIsCovered) {
  std::map<std::string, bool> covered;
  for (const auto& e : kExpect) covered[e.file] = true;
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::data_path("topologies"))) {
    if (entry.path().extension() != ".xml") continue;
    ++n;
    EXPECT_TRUE(covered.count(entry.path().filename().string())) << entry.path();
  }
  EXPECT_EQ(n, static_cast<int>(std::size(kExpect)));
}

}  // namespace
}  // namespace osmp
