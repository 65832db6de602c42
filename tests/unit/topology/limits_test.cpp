// Topology sources over osmp's limits are refused before hwloc builds them.
// The inputs here would take hwloc and osmp minutes (or run out of memory)
// if they were loaded: a refusal that comes late shows as a CTest timeout.
#include "topology/limits.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "topology/presets.hpp"
#include "topology/topology.hpp"

namespace osmp {
namespace {

void expect_refused(const TopologySource& src, const std::string& words) {
  auto t = Topology::load(src);
  ASSERT_FALSE(t.ok()) << src.describe() << " was accepted";
  EXPECT_EQ(t.status().code(), Errc::unsupported) << t.status().to_string();
  EXPECT_NE(t.status().message().find(words), std::string::npos) << t.status().message();
}

// hwloc XML of `packages` x `cores` x 1 PU, nested `extra` groups deeper.
std::string xml(int packages, int cores, int extra = 0) {
  std::string s =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
      "<topology version=\"2.0\">\n<object type=\"Machine\" os_index=\"0\">\n";
  int pu = 0;
  for (int p = 0; p < packages; ++p) {
    s += "<object type=\"Package\" os_index=\"" + std::to_string(p) + "\">\n";
    for (int g = 0; g < extra; ++g) s += "<object type=\"Group\">\n";
    for (int c = 0; c < cores; ++c, ++pu)
      s += "<object type=\"Core\"><object type=\"PU\" os_index=\"" + std::to_string(pu) + "\"/></object>\n";
    for (int g = 0; g < extra; ++g) s += "</object>\n";
    s += "</object>\n";
  }
  return s + "</object>\n</topology>\n";
}

TEST(TopologyLimits, SyntheticSizeReadsLikeHwloc) {
  auto size = synthetic_size("Package:2 [NUMANode] L3Cache:4(size=16MiB) Core:8 PU:2");
  EXPECT_EQ(size.pus, 128u);
  EXPECT_EQ(size.depth, 6);                      // Machine, Package, [NUMANode], L3, Core, PU
  size = synthetic_size("(memory=1GiB) 2 3 4");  // root attributes; counts without types
  EXPECT_EQ(size.pus, 24u);
  EXPECT_EQ(size.depth, 4);
  EXPECT_EQ(synthetic_size("pack:0x10 core:010 pu:1").pus, 16u * 8u);  // strtoul base 0, as hwloc
  EXPECT_EQ(synthetic_size("pack:2 [numa(memory=1GB indexes=0,1)] pu:3(indexes=0,1,2,3,4,5)").pus, 6u);
  EXPECT_EQ(synthetic_size("pack:99999 core:99999 pu:2").pus, 19999600002ull);
  EXPECT_EQ(synthetic_size("pack:4294967295 core:4294967295 pu:4294967295 pu:4294967295").pus, ~0ull);
}

TEST(TopologyLimits, XmlSizeCountsPusAndNesting) {
  auto size = xml_size(xml(2, 3, 2));
  EXPECT_EQ(size.pus, 6u);
  EXPECT_EQ(size.depth, 6);  // Machine, Package, Group, Group, Core, PU
  // Quoted '>' and "/>" and comments do not fool the count.
  size = xml_size(
      "<object type='Machine' name='a/>b'><!-- <object type=\"PU\"> -->"
      "<object type = \"pu\" os_index=\"0\"/></object>");
  EXPECT_EQ(size.pus, 1u);
  EXPECT_EQ(size.depth, 2);
}

TEST(TopologyLimits, EveryPresetIsInside) {
  for (const auto& p : presets()) {
    EXPECT_TRUE(check_size(synthetic_size(p.synthetic), p.name).ok()) << p.name;
    EXPECT_TRUE(Topology::load(TopologySource::parse(p.name)).ok()) << p.name;
  }
  EXPECT_TRUE(Topology::load(TopologySource::synthetic("pack:32 core:128 pu:2")).ok());  // exactly 8192
}

TEST(TopologyLimits, HugeSyntheticIsRefusedNamingTheLimit) {
  expect_refused(TopologySource::synthetic("pack:99999 core:99999 pu:2"),
                 "has 19999600002 PUs; osmp takes at most 8192 (numbered 0-8191)");
  expect_refused(TopologySource::parse("pack:2 core:4097 pu:1"), "8194 PUs");
  expect_refused(TopologySource::synthetic("pack:4294967295 core:4294967295 pu:4294967295 pu:2"), "over 2^64 PUs");
}

TEST(TopologyLimits, DeepSyntheticIsRefusedNamingTheLimit) {
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "group:1 ";
  expect_refused(TopologySource::synthetic(deep + "pu:1"),
                 "42 levels (Machine to PU, memory included); osmp takes at most 32");
  std::string numa;  // memory children are levels too: each adds a NUMA node per parent
  for (int i = 0; i < 40; ++i) numa += "[numa] ";
  expect_refused(TopologySource::synthetic("pack:1024 " + numa + "pu:8"), "levels");
}

TEST(TopologyLimits, PuNumbersAboveTheLimitAreRefused) {
  expect_refused(TopologySource::synthetic("pack:1 core:2 pu:1(indexes=0,9000)"), "PU number 9000");
}

TEST(TopologyLimits, XmlOverTheLimitsIsRefused) {
  expect_refused(TopologySource::xml_buffer(xml(64, 200), false), "12800 PUs; osmp takes at most 8192");
  expect_refused(TopologySource::xml_buffer(xml(1, 2, 40), false), "levels");
  char path[] = "/tmp/osmp-limits-test-XXXXXX.xml";
  int fd = ::mkstemps(path, 4);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::ofstream(path) << xml(10, 1000);
  expect_refused(TopologySource::xml_file(path), "10000 PUs");
  // Larger than any machine's XML: refused by its size, before it is read.
  ASSERT_EQ(::truncate(path, static_cast<off_t>(kMaxXmlBytes + 1)), 0);
  expect_refused(TopologySource::xml_file(path), "osmp takes topology XML of at most 16 MiB");
  std::remove(path);
}

}  // namespace
}  // namespace osmp
