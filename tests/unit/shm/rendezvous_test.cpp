#include "shm/rendezvous.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "core/random.hpp"

namespace osmp {
namespace {

bool listed(const std::string& prefix, const std::string& name) {
  auto all = abstract_sockets(prefix);
  return std::find(all.begin(), all.end(), name) != all.end();
}

TEST(PassFd, OneDescriptorAndItsBytes) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const std::uint64_t hello = 0x1234;
  ASSERT_TRUE(send_fd(sv[0], p[1], &hello, sizeof hello).ok());
  std::uint64_t got = 0;
  auto fd = recv_fd(sv[1], &got, sizeof got, 1000);
  ASSERT_TRUE(fd.ok()) << fd.status().to_string();
  EXPECT_EQ(got, hello);
  EXPECT_EQ(::fcntl(*fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
  ASSERT_EQ(::write(*fd, "x", 1), 1);  // the same pipe
  char c = 0;
  ASSERT_EQ(::read(p[0], &c, 1), 1);
  EXPECT_EQ(c, 'x');
  // A message without a descriptor, or of the wrong size, is refused.
  ASSERT_EQ(::send(sv[0], &hello, sizeof hello, 0), static_cast<ssize_t>(sizeof hello));
  auto none = recv_fd(sv[1], &got, sizeof got, 1000);
  EXPECT_FALSE(none.ok());
  ASSERT_TRUE(send_fd(sv[0], p[1], &hello, 4).ok());
  auto short_one = recv_fd(sv[1], &got, sizeof got, 1000);
  EXPECT_FALSE(short_one.ok());
  auto late = recv_fd(sv[1], &got, sizeof got, 10);
  EXPECT_EQ(late.status().code(), Errc::timeout);
  for (int f : {sv[0], sv[1], p[0], p[1], *fd}) ::close(f);
}

TEST(Rendezvous, ServesItsOwnUserAndVanishes) {
  const std::uint64_t job = random_id();
  const std::string prefix = rendezvous_prefix(job);
  EXPECT_EQ(prefix.rfind("osmp-" + std::to_string(::geteuid()) + "-", 0), 0u);
  auto r = Rendezvous::listen(job, 4);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->name().rfind(prefix, 0), 0u);
  EXPECT_EQ(r->name().size(), prefix.size() + 32);  // 128 random bits
  EXPECT_TRUE(listed(prefix, r->name()));
  auto s = connect_abstract(r->name());
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto who = peer_cred(*s);
  ASSERT_TRUE(who.ok());
  EXPECT_EQ(who->uid, ::geteuid());
  EXPECT_EQ(who->pid, ::getpid());
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const std::uint32_t data = 77;
  EXPECT_EQ(r->serve(p[1], &data, sizeof data, 1000), 1);
  std::uint32_t got = 0;
  auto fd = recv_fd(*s, &got, sizeof got, 1000);
  ASSERT_TRUE(fd.ok()) << fd.status().to_string();
  EXPECT_EQ(got, 77u);
  r->close();
  EXPECT_FALSE(listed(prefix, r->name()));
  EXPECT_FALSE(connect_abstract(r->name()).ok());
  for (int f : {*s, *fd, p[0], p[1]}) ::close(f);
}

TEST(Rendezvous, NameDiesWithItsProcess) {
  const std::uint64_t job = random_id();
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  if (child == 0) {
    auto r = Rendezvous::listen(job, 4);
    char c = r.ok() ? 1 : 0;
    if (::write(ready[1], &c, 1) != 1) ::_exit(1);
    ::pause();
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 1);
  EXPECT_EQ(abstract_sockets(rendezvous_prefix(job)).size(), 1u);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_TRUE(abstract_sockets(rendezvous_prefix(job)).empty());  // the kernel removed it
  ::close(ready[0]);
  ::close(ready[1]);
}

// Another user connecting to our rendezvous gets nothing; and its own
// listener under our prefix is seen for what it is.
TEST(Rendezvous, AnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to become another user";
  const std::uint64_t job = random_id();
  auto r = Rendezvous::listen(job, 4);
  ASSERT_TRUE(r.ok());
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  pid_t child = ::fork();
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(10);
    auto s = connect_abstract(r->name());
    if (!s.ok()) ::_exit(11);
    std::uint32_t got = 0;
    auto fd = recv_fd(*s, &got, sizeof got, 2000);
    ::_exit(fd.ok() ? 12 : 0);
  }
  const std::uint32_t data = 1;
  int served = 0;
  int status = 0;
  while (::waitpid(child, &status, WNOHANG) == 0) served += r->serve(p[1], &data, sizeof data, 10);
  EXPECT_EQ(served, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "11: could not connect, 12: got the descriptor";
  ::close(p[0]);
  ::close(p[1]);
}

// The marker of a started job: its own prefix, under the job's.
TEST(Rendezvous, StartedMarkerIsNamedApart) {
  const std::uint64_t job = random_id();
  auto m = Rendezvous::listen(job, 4, true);
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  EXPECT_EQ(m->name().rfind(started_prefix(job), 0), 0u);
  EXPECT_EQ(m->name().size(), started_prefix(job).size() + 32);
  EXPECT_TRUE(listed(rendezvous_prefix(job), m->name()));  // what a latecomer looks through
  auto s = connect_abstract(m->name());                    // it never accepts: the connection queues
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto who = peer_cred(*s);
  ASSERT_TRUE(who.ok());
  EXPECT_EQ(who->pid, ::getpid());
  ::close(*s);
}

// Another user connecting many times: the first kRefusalsShown refusals are
// said, the rest counted and said in one line when the rendezvous closes.
TEST(Rendezvous, RefusalsAreCountedNotEachSaid) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to become another user";
  const std::uint64_t job = random_id();
  auto r = Rendezvous::listen(job, 64);
  ASSERT_TRUE(r.ok());
  constexpr int kTries = 40;
  pid_t child = ::fork();
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(10);
    for (int i = 0; i < kTries; ++i) {
      auto s = connect_abstract(r->name());
      if (!s.ok()) ::_exit(11);
      ::close(*s);
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "11: could not connect";
  char path[] = "/tmp/osmp-refusals-XXXXXX";
  const int log = ::mkstemp(path);
  ASSERT_GE(log, 0);
  const int saved = ::dup(2);
  ::dup2(log, 2);
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const std::uint32_t data = 1;
  EXPECT_EQ(r->serve(p[1], &data, sizeof data, 100), 0);
  EXPECT_EQ(r->refused(), kTries);
  r->close();
  ::dup2(saved, 2);
  ::close(saved);
  std::string text(4096, '\0');
  text.resize(static_cast<std::size_t>(std::max<ssize_t>(0, ::pread(log, text.data(), text.size(), 0))));
  ::close(log);
  ::unlink(path);
  int said = 0;
  for (std::size_t at = 0; (at = text.find("refused a connection", at)) != std::string::npos; ++at) ++said;
  EXPECT_EQ(said, Rendezvous::kRefusalsShown) << text;
  EXPECT_NE(text.find("refused " + std::to_string(kTries - Rendezvous::kRefusalsShown) + " more connections"),
            std::string::npos)
      << text;
  ::close(p[0]);
  ::close(p[1]);
}

}  // namespace
}  // namespace osmp
