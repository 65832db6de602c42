// Loading topologies from every source, XML export/import, and bad input.
#include "topology/topology.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "support/machines.hpp"
#include "topology/presets.hpp"

namespace osmp {
namespace {

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/osmp-topology-test-XXXXXX.xml";
  int fd = ::mkstemps(path, 4);
  EXPECT_GE(fd, 0);
  ::close(fd);
  std::ofstream(path) << text;
  return path;
}

TEST(Topology, NativeIsThisSystem) {
  auto t = Topology::load(TopologySource::native());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_TRUE(t->is_this_system());
  EXPECT_GE(t->machine().pu_count(), 1u);
  EXPECT_EQ(t->machine().root().level, "Machine");
  EXPECT_EQ(t->describe(), "this system");
  auto b = t->current_binding();
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_FALSE(b->empty());
  EXPECT_TRUE(b->is_subset_of(t->machine().pus()));
}

TEST(Topology, SyntheticIsNotThisSystem) {
  Topology t = test::load("Package:2 [NUMANode] L3Cache:2 Core:4 PU:2");
  EXPECT_FALSE(t.is_this_system());
  EXPECT_EQ(t.machine().pu_count(), 32u);
  EXPECT_NE(t.describe().find("not this system: bindings are virtual"), std::string::npos);
  EXPECT_EQ(t.machine().nodes_of_level("L3Cache").size(), 4u);
  EXPECT_EQ(t.machine().nodes_of_level("NUMANode").size(), 2u);
  EXPECT_EQ(t.machine().cores().size(), 16u);
  EXPECT_FALSE(t.bind_process(CpuSet::single(0)).ok());
  EXPECT_FALSE(t.current_binding().ok());
}

TEST(Topology, PresetsLoad) {
  for (const auto& p : presets()) {
    auto t = Topology::load(TopologySource::parse(p.name));
    ASSERT_TRUE(t.ok()) << p.name << ": " << t.status().to_string();
    EXPECT_GT(t->machine().pu_count(), 0u);
  }
  EXPECT_EQ(test::load("rome").machine().pu_count(), 128u);
  EXPECT_EQ(test::load("rome-smt").machine().pu_count(), 256u);
  EXPECT_EQ(test::load("cascadelake").machine().pu_count(), 56u);
  EXPECT_EQ(test::load("power9").machine().pu_count(), 176u);
  EXPECT_EQ(test::load("a64fx").machine().pu_count(), 48u);
}

TEST(Topology, SourceParsing) {
  EXPECT_EQ(TopologySource::parse("").kind, TopologySource::Kind::native);
  EXPECT_EQ(TopologySource::parse("native").kind, TopologySource::Kind::native);
  EXPECT_EQ(TopologySource::parse("/x/y.xml").kind, TopologySource::Kind::xml_file);
  EXPECT_EQ(TopologySource::parse("Package:2 PU:2").kind, TopologySource::Kind::synthetic);
  auto rome = TopologySource::parse("ROME");
  EXPECT_EQ(rome.kind, TopologySource::Kind::synthetic);
  EXPECT_NE(rome.text.find("Group:4"), std::string::npos);
  ::setenv("OSMP_TOPOLOGY", "cascadelake", 1);
  EXPECT_EQ(TopologySource::from_env().kind, TopologySource::Kind::synthetic);
  ::unsetenv("OSMP_TOPOLOGY");
  EXPECT_EQ(TopologySource::from_env().kind, TopologySource::Kind::native);
}

// One process discovers and exports; the others import the same machine.
TEST(Topology, XmlRoundTripKeepsTheMachine) {
  const std::vector<std::string> sources{
      "rome", "power9", test::data_path("topologies/intel-haswell-2x-e5-2680v3-offline-cpu0-node0.xml")};
  for (const std::string& src : sources) {
    Topology a = test::load(src);
    auto xml = a.export_xml();
    ASSERT_TRUE(xml.ok()) << xml.status().to_string();
    EXPECT_NE(xml->find("<topology"), std::string::npos);
    auto b = Topology::load(TopologySource::xml_buffer(*xml, false));
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    const auto& ma = a.machine().nodes;
    const auto& mb = b->machine().nodes;
    ASSERT_EQ(ma.size(), mb.size()) << src;
    for (std::size_t i = 0; i < ma.size(); ++i) {
      EXPECT_EQ(ma[i].level, mb[i].level);
      EXPECT_EQ(ma[i].cpuset, mb[i].cpuset);
      EXPECT_EQ(ma[i].logical_index, mb[i].logical_index);
      EXPECT_EQ(ma[i].children, mb[i].children);
    }
  }
}

TEST(Topology, NativeExportImportsAsThisSystem) {
  Topology a = test::load("native");
  auto xml = a.export_xml();
  ASSERT_TRUE(xml.ok());
  auto b = Topology::load(TopologySource::xml_buffer(*xml, true));
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_TRUE(b->is_this_system());
  EXPECT_EQ(b->machine().pus(), a.machine().pus());
}

// A cgroup (or Slurm, or taskset on the launcher) restricts the allowed PUs:
// the others are not part of the machine osmp sees.
TEST(Topology, HonoursTheAllowedCpuset) {
  auto xml = test::load("Package:2 [NUMANode] Core:4 PU:1").export_xml();
  ASSERT_TRUE(xml.ok());
  std::string text = *xml;
  const std::string all = "allowed_cpuset=\"0x000000ff\"";
  auto pos = text.find(all);
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, all.size(), "allowed_cpuset=\"0x0000003c\"");  // PUs 2-5 only
  auto t = Topology::load(TopologySource::xml_buffer(text, false));
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(t->machine().pus().to_string(), "2-5");
  EXPECT_EQ(t->machine().cores().size(), 4u);
  Tree tree = test::tree_for(t->machine(), 4);
  EXPECT_EQ(test::level_summary(tree), "Machine 1x2 Package 2x2");
  EXPECT_EQ(tree.place(0).to_string(), "2");
}

TEST(Topology, UnreadableXmlFile) {
  auto t = Topology::load(TopologySource::xml_file("/nonexistent/machine.xml"));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Errc::topology);
  EXPECT_NE(t.status().message().find("/nonexistent/machine.xml"), std::string::npos);
  EXPECT_NE(t.status().message().find("No such file"), std::string::npos);
}

TEST(Topology, MalformedXmlFile) {
  for (const std::string& text :
       std::vector<std::string>{"<topology version=\"2.0\"><object type=\"Machine\"", "this is not xml at all", ""}) {
    std::string path = write_temp(text);
    auto t = Topology::load(TopologySource::xml_file(path));
    EXPECT_FALSE(t.ok()) << "accepted: " << text;
    if (!t.ok()) {
      EXPECT_NE(t.status().message().find(path), std::string::npos);
    }
    ::unlink(path.c_str());
  }
}

TEST(Topology, MalformedXmlBuffer) {
  auto t = Topology::load(TopologySource::xml_buffer("<topology><bogus", false));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Errc::topology);
}

TEST(Topology, MalformedSyntheticString) {
  for (const char* s : {"Package:2 Blah:3", "Package:x", "Core:0 PU:1", "::"}) {
    auto t = Topology::load(TopologySource::synthetic(s));
    ASSERT_FALSE(t.ok()) << s;
    EXPECT_NE(t.status().message().find("synthetic"), std::string::npos);
    EXPECT_NE(t.status().message().find(s), std::string::npos);
  }
}

}  // namespace
}  // namespace osmp
