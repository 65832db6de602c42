#include "shm/segment.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "shm/peers.hpp"

namespace osmp {
namespace {

int dir_entries(const std::string& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

class SegmentTest : public ::testing::Test {
 protected:
  std::string dir = shm_dir();
  std::uint64_t job = 0x5e6e7e8e9eaebecULL ^ static_cast<std::uint64_t>(::getpid());
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
  SegmentInfo sized(std::size_t bytes) const {
    SegmentInfo h = info();
    h.total_size = bytes;
    return h;
  }
};

TEST_F(SegmentTest, CreateAttachWithoutAName) {
  const int before = dir_entries(dir);
  auto a = Segment::create(dir, 3 * 4096, info());
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_EQ(dir_entries(dir), before);  // nothing anyone could find, plant or leave behind
  struct stat st {};
  ASSERT_EQ(::fstat(a->fd(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_nlink, 0u);
  *a->at<std::uint64_t>(4096) = 42;
  const SegmentHandle h = a->handle();
  ASSERT_TRUE(h.valid());
  EXPECT_EQ(h.pid, ::getpid());
  auto b = Segment::attach(h, sized(3 * 4096));
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(*b->at<std::uint64_t>(4096), 42u);
  EXPECT_EQ(b->header().info.members, 3u);
  EXPECT_FALSE(b->handle().valid());  // an attacher has no descriptor to hand on
  // Once the creator drops its descriptor, nobody can attach any more; the
  // mappings live on.
  a->close_fd();
  EXPECT_FALSE(a->handle().valid());
  auto c = Segment::attach(h, sized(3 * 4096));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Errc::not_found);
  EXPECT_NE(c.status().message().find("gone"), std::string::npos) << c.status().message();
  EXPECT_EQ(*b->at<std::uint64_t>(4096), 42u);
}

// A creator that exited before the others attached (killed between handing
// out its handle and their attach) is a dead peer, not a missing segment:
// whether it is a zombie still or reaped already.
TEST_F(SegmentTest, ACreatorThatExitedIsADeadPeer) {
  for (const bool reap : {false, true}) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      auto a = Segment::create(dir, 4096, info());
      SegmentHandle h = a.ok() ? a->handle() : SegmentHandle{};
      _exit(::write(fds[1], &h, sizeof h) == sizeof h ? 0 : 1);
    }
    ::close(fds[1]);
    SegmentHandle h;
    ASSERT_EQ(::read(fds[0], &h, sizeof h), static_cast<ssize_t>(sizeof h));
    ::close(fds[0]);
    ASSERT_TRUE(h.valid());
    int status = 0;
    if (reap) {
      ASSERT_EQ(::waitpid(child, &status, 0), child);
    } else {  // exited, not reaped: kill(pid, 0) still answers, its descriptors are gone
      siginfo_t si{};
      for (int i = 0; i < 5000; ++i, ::usleep(1000)) {
        si.si_pid = 0;
        if (::waitid(P_PID, static_cast<id_t>(child), &si, WEXITED | WNOWAIT | WNOHANG) == 0 && si.si_pid == child)
          break;
      }
      ASSERT_EQ(si.si_pid, child) << "the child did not exit";
    }
    auto b = Segment::attach(h, info());
    ASSERT_FALSE(b.ok()) << (reap ? "reaped" : "zombie");
    EXPECT_EQ(b.status().code(), Errc::peer_dead) << b.status().to_string();
    EXPECT_NE(b.status().message().find("exited"), std::string::npos) << b.status().message();
    if (!reap) {
      ASSERT_EQ(::waitpid(child, &status, 0), child);
    }
  }
}

TEST_F(SegmentTest, AttachChecksTheAnnouncedFile) {
  auto a = Segment::create(dir, 4096, info());
  auto other = Segment::create(dir, 4096, info());
  ASSERT_TRUE(a.ok() && other.ok());
  SegmentHandle h = a->handle();
  h.fd = other->fd();  // the right pid, another descriptor
  auto b = Segment::attach(h, info());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("not the file that was announced"), std::string::npos) << b.status().message();
  SegmentHandle none;
  EXPECT_FALSE(Segment::attach(none, info()).ok());
}

TEST_F(SegmentTest, HeaderMismatchesAreNamed) {
  auto a = Segment::create(dir, 8192, info());
  ASSERT_TRUE(a.ok());
  struct Case {
    void (*change)(SegmentInfo&);
    const char* field;
  };
  for (Case c :
       {Case{[](SegmentInfo& h) { h.job_id ^= 1; }, "job id"}, Case{[](SegmentInfo& h) { h.team_id = 8; }, "team id"},
        Case{[](SegmentInfo& h) { h.members = 4; }, "member count"},
        Case{[](SegmentInfo& h) { h.domain = 3; }, "domain"},
        Case{[](SegmentInfo& h) { h.kind = SegmentKind::group; }, "kind"},
        Case{[](SegmentInfo& h) { h.params[0] = 8192; }, "layout parameter"},
        Case{[](SegmentInfo& h) { h.total_size = 4096; }, "bytes, expected"}}) {
    SegmentInfo want = info();
    c.change(want);
    auto b = Segment::attach(a->handle(), want);
    ASSERT_FALSE(b.ok()) << c.field;
    EXPECT_NE(b.status().message().find(c.field), std::string::npos) << b.status().message();
  }
}

// A file that merely looks like a segment: right header, but a name, or
// another mode. Handed over as if it were one, it is refused.
TEST_F(SegmentTest, RefusesNamedFilesAndLooseModes) {
  auto real = Segment::create(dir, 4096, info());
  ASSERT_TRUE(real.ok());
  std::string path = dir + "/osmp-segment-test-" + std::to_string(::getpid());
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, real->base(), 4096), 4096);
  auto named = Segment::adopt(::dup(fd), info());
  ASSERT_FALSE(named.ok());
  EXPECT_NE(named.status().message().find("has a name"), std::string::npos) << named.status().message();
  ::unlink(path.c_str());
  ::fchmod(fd, 0644);
  auto loose = Segment::adopt(fd, info());
  ASSERT_FALSE(loose.ok());
  EXPECT_NE(loose.status().message().find("mode is not 0600"), std::string::npos) << loose.status().message();
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  ::close(pipefd[1]);
  auto odd = Segment::adopt(pipefd[0], info());
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.status().message().find("not a regular file"), std::string::npos);
}

TEST_F(SegmentTest, AdoptAnInheritedDescriptor) {
  auto a = Segment::create(dir, 4096, info());
  ASSERT_TRUE(a.ok());
  *a->at<std::uint32_t>(1024) = 7;
  auto b = Segment::adopt(::dup(a->fd()), info());
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(*b->at<std::uint32_t>(1024), 7u);
  EXPECT_FALSE(b->handle().valid());
}

// Another user cannot open our segments: /proc/<pid>/fd is closed to it.
TEST_F(SegmentTest, AnotherUserCannotAttach) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to become another user";
  auto mine = Segment::create(dir, 4096, info());
  ASSERT_TRUE(mine.ok());
  pid_t child = ::fork();
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(10);
    auto stolen = Segment::attach(mine->handle(), info());
    if (stolen.ok()) ::_exit(11);
    ::_exit(stolen.status().message().find("Permission denied") != std::string::npos ? 0 : 12);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "another user could attach (11), or the error did not say why (12)";
}

// A segment of another user's, handed to us as if it were a peer's: root
// can open it, and must refuse it.
TEST_F(SegmentTest, AnotherUsersSegmentIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to become another user";
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  pid_t child = ::fork();
  if (child == 0) {
    ::close(pipefd[0]);
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(10);
    auto theirs = Segment::create(dir, 4096, info());  // a perfect look-alike
    if (!theirs.ok()) ::_exit(13);
    SegmentHandle h = theirs->handle();
    if (::write(pipefd[1], &h, sizeof h) != static_cast<ssize_t>(sizeof h)) ::_exit(14);
    ::pause();
    ::_exit(0);
  }
  ::close(pipefd[1]);
  SegmentHandle h;
  ASSERT_EQ(::read(pipefd[0], &h, sizeof h), static_cast<ssize_t>(sizeof h));
  auto theirs = Segment::attach(h, info());
  EXPECT_FALSE(theirs.ok());
  EXPECT_NE(theirs.status().message().find("belongs to another user"), std::string::npos) << theirs.status().message();
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(pipefd[0]);
}

TEST_F(SegmentTest, NoRoomIsAClearError) {
  auto free_bytes = shm_free_bytes(dir);
  ASSERT_TRUE(free_bytes.ok());
  std::size_t too_big = static_cast<std::size_t>(*free_bytes) + (std::size_t{1} << 30);
  auto a = Segment::create(dir, too_big, info());
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), Errc::no_space);
  EXPECT_NE(a.status().message().find("needs"), std::string::npos);
  EXPECT_NE(a.status().message().find(dir), std::string::npos);
}

TEST_F(SegmentTest, ADirectoryThatIsNoFileSystemDirectory) {
  auto a = Segment::create("/nonexistent-osmp-dir", 4096, info());
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("/nonexistent-osmp-dir"), std::string::npos) << a.status().message();
}

TEST_F(SegmentTest, OutOfBoundsAccessAborts) {
  auto a = Segment::create(dir, 4096, info());
  ASSERT_TRUE(a.ok());
  EXPECT_DEATH(a->at<std::uint64_t>(4096), "outside its 4096 bytes");
  EXPECT_DEATH(a->at<std::uint64_t>(0, 513), "outside");
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

TEST(Ancestry, OwnLineOnly) {
  EXPECT_TRUE(descends_from(::getpid()));
  EXPECT_TRUE(descends_from(::getppid()));
  EXPECT_EQ(parent_of(::getpid()), ::getppid());
  EXPECT_FALSE(descends_from(0));
  // A sibling is not an ancestor.
  pid_t sibling = ::fork();
  if (sibling == 0) {
    ::pause();
    ::_exit(0);
  }
  pid_t child = ::fork();
  if (child == 0) ::_exit(descends_from(::getppid()) && !descends_from(sibling) ? 0 : 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ::kill(sibling, SIGKILL);
  ::waitpid(sibling, nullptr, 0);
}

}  // namespace
}  // namespace osmp
