// The process's topologies (topology/shared.hpp): loaded once per source,
// found again by the digest of their XML, an XML file read at every call.
#include "topology/shared.hpp"

#include "core/strings.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace osmp {
namespace {

TEST(SharedTopology, ASourceLoadsOnce) {
  auto a = shared_topology(TopologySource::synthetic("Package:2 Core:3 PU:1"));
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  auto b = shared_topology(TopologySource::synthetic("Package:2 Core:3 PU:1"));
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(a->topology.get(), b->topology.get());
  EXPECT_EQ(a->digest, b->digest);
  EXPECT_EQ(a->digest, topology_digest(a->xml));
  EXPECT_EQ(a->topology->machine().pu_count(), 6u);
  auto other = shared_topology(TopologySource::synthetic("Package:2 Core:2 PU:1"));
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->topology.get(), a->topology.get());
  EXPECT_NE(other->digest, a->digest);
  EXPECT_EQ(other->topology->machine().pu_count(), 4u);
}

// What another process exports is found by its digest and import flag, and
// imported once.
TEST(SharedTopology, FoundByTheDigestOfItsXml) {
  auto a = shared_topology(TopologySource::synthetic("Package:1 Core:5 PU:2"));
  ASSERT_TRUE(a.ok());
  auto found = shared_topology_named(a->digest, false);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->topology.get(), a->topology.get());
  EXPECT_FALSE(shared_topology_named(a->digest, true).has_value());  // not this machine's
  EXPECT_FALSE(shared_topology_named(a->digest ^ 1, false).has_value());
  // An XML text from elsewhere: imported, then found by its digest.
  std::string xml = a->xml;
  auto imported = shared_topology(TopologySource::xml_buffer(xml, false));
  ASSERT_TRUE(imported.ok());
  EXPECT_EQ(imported->digest, a->digest);
  auto again = shared_topology(TopologySource::xml_buffer(xml, false));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->topology.get(), imported->topology.get());
  EXPECT_EQ(again->topology->machine().pu_count(), 10u);
}

// A file may change between two teams: read again each time.
TEST(SharedTopology, AnXmlFileIsReadEveryTime) {
  auto small = shared_topology(TopologySource::synthetic("Package:1 Core:2 PU:1"));
  auto large = shared_topology(TopologySource::synthetic("Package:1 Core:7 PU:1"));
  ASSERT_TRUE(small.ok() && large.ok());
  char path[] = "/tmp/osmp-shared-topology-XXXXXX.xml";
  int fd = ::mkstemps(path, 4);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::ofstream(path) << small->xml;
  auto first = shared_topology(TopologySource::xml_file(path));
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  EXPECT_EQ(first->topology->machine().pu_count(), 2u);
  std::ofstream(path, std::ios::trunc) << large->xml;
  auto second = shared_topology(TopologySource::xml_file(path));
  ::unlink(path);
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  EXPECT_EQ(second->topology->machine().pu_count(), 7u);
}

// Bounded: past kSharedTopologies sources the oldest goes, and those held
// by a caller stay valid.
TEST(SharedTopology, HoldsAtMostItsBound) {
  auto first = shared_topology(TopologySource::synthetic("Package:1 Core:1 PU:3"));
  ASSERT_TRUE(first.ok());
  for (std::size_t i = 0; i < kSharedTopologies + 2; ++i)
    ASSERT_TRUE(shared_topology(TopologySource::synthetic(cat("Package:1 Core:", i + 11, " PU:1"))).ok());
  EXPECT_FALSE(shared_topology_named(first->digest, false).has_value());
  EXPECT_EQ(first->topology->machine().pu_count(), 3u);  // still ours
}

// Threads (the ranks of a thread team) load one source together.
TEST(SharedTopology, ThreadsAgreeOnOne) {
  const TopologySource s = TopologySource::synthetic("Package:3 Core:2 PU:1");
  std::vector<const Topology*> seen(4, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i)
    threads.emplace_back([&, i] {
      auto t = shared_topology(s);
      if (t.ok()) seen[i] = t->topology.get();
    });
  for (auto& t : threads) t.join();
  for (const Topology* t : seen) EXPECT_EQ(t, seen[0]);
  EXPECT_NE(seen[0], nullptr);
}

}  // namespace
}  // namespace osmp
