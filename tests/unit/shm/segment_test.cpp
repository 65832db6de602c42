#include "shm/segment.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "shm/peers.hpp"

namespace osmp {
namespace {

class SegmentTest : public ::testing::Test {
 protected:
  std::string dir = shm_dir();
  std::uint64_t job = 0x5e6e7e8e9eaebecULL ^ static_cast<std::uint64_t>(::getpid());
  std::string name = segment_name(job, "test");
  SegmentInfo info() const {
    SegmentInfo h;
    h.kind = SegmentKind::test;
    h.job_id = job;
    h.team_id = 7;
    h.members = 3;
    h.domain = 2;
    h.params[0] = 4096;
    return h;
  }
  void TearDown() override { sweep_segments(dir, job_prefix(job)); }
  bool exists() const { return std::filesystem::exists(dir + "/" + name); }
};

TEST_F(SegmentTest, CreateAttachUnlink) {
  auto a = Segment::create(dir, name, 3 * 4096, info());
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  struct stat st {};
  ASSERT_EQ(::stat((dir + "/" + name).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  *a->at<std::uint64_t>(4096) = 42;
  SegmentInfo want = info();
  want.total_size = 3 * 4096;
  auto b = Segment::attach(dir, name, want);
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(*b->at<std::uint64_t>(4096), 42u);
  EXPECT_EQ(b->header().info.members, 3u);
  ASSERT_TRUE(a->unlink().ok());
  EXPECT_FALSE(exists());
  EXPECT_EQ(*b->at<std::uint64_t>(4096), 42u);  // the mapping outlives the name
  // A second create of the same name fails (O_EXCL) while it exists.
  auto c = Segment::create(dir, name, 4096, info());
  ASSERT_TRUE(c.ok());
  auto d = Segment::create(dir, name, 4096, info());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find(name), std::string::npos);
}

TEST_F(SegmentTest, CreatorRemovesTheNameWhenDestroyed) {
  { auto a = Segment::create(dir, name, 4096, info()); ASSERT_TRUE(a.ok()); }
  EXPECT_FALSE(exists());
}

TEST_F(SegmentTest, HeaderMismatchesAreNamed) {
  auto a = Segment::create(dir, name, 8192, info());
  ASSERT_TRUE(a.ok());
  struct Case {
    void (*change)(SegmentInfo&);
    const char* field;
  };
  for (Case c : {Case{[](SegmentInfo& h) { h.job_id ^= 1; }, "job id"},
                 Case{[](SegmentInfo& h) { h.team_id = 8; }, "team id"},
                 Case{[](SegmentInfo& h) { h.members = 4; }, "member count"},
                 Case{[](SegmentInfo& h) { h.domain = 3; }, "domain"},
                 Case{[](SegmentInfo& h) { h.kind = SegmentKind::group; }, "kind"},
                 Case{[](SegmentInfo& h) { h.params[0] = 8192; }, "layout parameter"},
                 Case{[](SegmentInfo& h) { h.total_size = 4096; }, "bytes, expected"}}) {
    SegmentInfo want = info();
    c.change(want);
    auto b = Segment::attach(dir, name, want);
    ASSERT_FALSE(b.ok()) << c.field;
    EXPECT_NE(b.status().message().find(c.field), std::string::npos) << b.status().message();
  }
}

TEST_F(SegmentTest, BadMagicAndTruncatedFile) {
  {
    std::ofstream f(dir + "/" + name);
    f << std::string(200, 'x');
  }
  auto b = Segment::attach(dir, name, info());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("magic"), std::string::npos);
  std::filesystem::resize_file(dir + "/" + name, 10);
  auto c = Segment::attach(dir, name, info());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("10 bytes"), std::string::npos);
}

TEST_F(SegmentTest, VanishedSegment) {
  auto b = Segment::attach(dir, name, info());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), Errc::not_found);
  EXPECT_NE(b.status().message().find("vanished"), std::string::npos);
}

TEST_F(SegmentTest, NoRoomIsAClearError) {
  auto free_bytes = shm_free_bytes(dir);
  ASSERT_TRUE(free_bytes.ok());
  std::size_t too_big = static_cast<std::size_t>(*free_bytes) + (std::size_t{1} << 30);
  auto a = Segment::create(dir, name, too_big, info());
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), Errc::no_space);
  EXPECT_NE(a.status().message().find("needs"), std::string::npos);
  EXPECT_NE(a.status().message().find(dir), std::string::npos);
  EXPECT_FALSE(exists());
}

TEST_F(SegmentTest, OutOfBoundsAccessAborts) {
  auto a = Segment::create(dir, name, 4096, info());
  ASSERT_TRUE(a.ok());
  EXPECT_DEATH(a->at<std::uint64_t>(4096), "outside its 4096 bytes");
  EXPECT_DEATH(a->at<std::uint64_t>(0, 513), "outside");
}

TEST(Sweep, RemovesOnlyThePrefix) {
  std::string dir = shm_dir();
  std::string keep = dir + "/osmp-sweep-test-keep-" + std::to_string(::getpid());
  std::string gone = dir + "/osmp-sweep-test-gone-" + std::to_string(::getpid());
  std::ofstream(keep) << "k";
  std::ofstream(gone) << "g";
  EXPECT_EQ(sweep_segments(dir, "osmp-sweep-test-gone-"), 1);
  EXPECT_TRUE(std::filesystem::exists(keep));
  EXPECT_FALSE(std::filesystem::exists(gone));
  std::filesystem::remove(keep);
}

TEST(PeerWatch, SeesADeadChild) {
  pid_t child = ::fork();
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  PeerWatch w({::getpid(), child});
  EXPECT_TRUE(w.alive(0));
  EXPECT_TRUE(w.alive(1));
  ::kill(child, SIGKILL);
  // Not reaped yet: a zombie must count as dead.
  for (int i = 0; i < 1000 && w.alive(1); ++i) ::usleep(1000);
  EXPECT_FALSE(w.alive(1));
  EXPECT_EQ(w.first_dead(), 1);
  ::waitpid(child, nullptr, 0);
}

}  // namespace
}  // namespace osmp
