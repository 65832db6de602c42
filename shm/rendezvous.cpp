#include "shm/rendezvous.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>

#include "core/log.hpp"
#include "core/random.hpp"

namespace osmp {
namespace {

std::string errno_text(int e) { return std::strerror(e); }

// An abstract address: sun_path[0] = '\0', then the name (no terminator).
Result<std::pair<sockaddr_un, socklen_t>> abstract_address(const std::string& name) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (name.size() + 1 > sizeof a.sun_path) return Status(Errc::internal, cat("socket name too long: ", name));
  std::memcpy(a.sun_path + 1, name.data(), name.size());
  return std::pair{a, static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size())};
}

}  // namespace

Result<PeerCred> peer_cred(int sock) {
  ucred c{};
  socklen_t len = sizeof c;
  if (::getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &c, &len) != 0) {
    return Status(Errc::system, cat("cannot read the peer's credentials: ", errno_text(errno)));
  }
  return PeerCred{c.pid, c.uid};
}

Status send_fd(int sock, int fd, const void* data, std::size_t len) {
  iovec iov{const_cast<void*>(data), len};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  ssize_t n;
  do {
    n = ::sendmsg(sock, &msg, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(len)) {
    return Status(Errc::system, cat("cannot pass a descriptor: ", n < 0 ? errno_text(errno) : "short send"));
  }
  return {};
}

Result<int> recv_fd(int sock, void* data, std::size_t len, int timeout_ms) {
  pollfd p{sock, POLLIN, 0};
  int rc;
  do {
    rc = ::poll(&p, 1, timeout_ms);
  } while (rc < 0 && errno == EINTR);
  if (rc == 0) return Status(Errc::timeout, cat("no descriptor arrived within ", timeout_ms, " ms"));
  iovec iov{data, len};
  // Room for more descriptors than we take: any extra is closed, not leaked.
  alignas(cmsghdr) char control[CMSG_SPACE(8 * sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return Status(Errc::system, cat("cannot receive a descriptor: ", errno_text(errno)));
  std::vector<int> fds;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    std::size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < k; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      fds.push_back(fd);
    }
  }
  const bool ok = fds.size() == 1 && n == static_cast<ssize_t>(len) && !(msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC));
  if (!ok) {
    for (int fd : fds) ::close(fd);
    return Status(Errc::mismatch, cat("malformed descriptor message (", fds.size(), " descriptors, ", n,
                                      " bytes, expected 1 and ", len, ")"));
  }
  return fds[0];
}

std::string rendezvous_prefix(std::uint64_t job_id) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "osmp-%u-%016" PRIx64 "-", static_cast<unsigned>(::geteuid()), job_id);
  return buf;
}

std::string started_prefix(std::uint64_t job_id) { return rendezvous_prefix(job_id) + "started-"; }

Result<Rendezvous> Rendezvous::listen(std::uint64_t job_id, int backlog, bool started) {
  Rendezvous r;
  r.sock_ = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (r.sock_ < 0) return Status(Errc::system, cat("cannot create the rendezvous socket: ", errno_text(errno)));
  // 128 random bits: nobody can bind the name first; retry on the
  // impossible collision rather than assume it away.
  for (int attempt = 0;; ++attempt) {
    r.name_ = (started ? started_prefix(job_id) : rendezvous_prefix(job_id)) + random_hex(16);
    OSMP_ASSIGN_OR_RETURN(auto addr, abstract_address(r.name_));
    if (::bind(r.sock_, reinterpret_cast<sockaddr*>(&addr.first), addr.second) == 0) break;
    if (errno != EADDRINUSE || attempt == 8) {
      return Status(Errc::system, cat("cannot bind the rendezvous socket @", r.name_, ": ", errno_text(errno)));
    }
  }
  if (::listen(r.sock_, backlog) != 0) {
    return Status(Errc::system, cat("cannot listen on @", r.name_, ": ", errno_text(errno)));
  }
  return r;
}

Rendezvous::Rendezvous(Rendezvous&& o) noexcept
    : sock_(std::exchange(o.sock_, -1)), name_(std::move(o.name_)), refused_(std::exchange(o.refused_, 0)) {}

Rendezvous& Rendezvous::operator=(Rendezvous&& o) noexcept {
  if (this != &o) {
    close();
    sock_ = std::exchange(o.sock_, -1);
    name_ = std::move(o.name_);
    refused_ = std::exchange(o.refused_, 0);
  }
  return *this;
}

void Rendezvous::close() {
  if (sock_ >= 0) ::close(sock_);
  sock_ = -1;
  if (refused_ > kRefusalsShown) {
    log(LogLevel::warn, "rendezvous @", name_, ": refused ", refused_ - kRefusalsShown,
        " more connections from other users (", refused_, " in all)");
  }
  refused_ = 0;
}

int Rendezvous::serve(int fd, const void* data, std::size_t len, int wait_ms) {
  if (sock_ < 0) return 0;
  pollfd p{sock_, POLLIN, 0};
  if (::poll(&p, 1, wait_ms) <= 0) return 0;
  int served = 0;
  for (;;) {
    int c = ::accept4(sock_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) break;  // EAGAIN: nothing more waiting
    auto who = peer_cred(c);
    if (!who.ok() || who->uid != ::geteuid()) {
      if (++refused_ <= kRefusalsShown) {
        log(LogLevel::warn, "rendezvous @", name_, ": refused a connection from uid ",
            who.ok() ? static_cast<long>(who->uid) : -1L, " pid ", who.ok() ? who->pid : 0,
            refused_ == kRefusalsShown ? " (further refusals are counted, said when it closes)" : "");
      }
    } else if (Status st = send_fd(c, fd, data, len); !st.ok()) {
      log(LogLevel::debug, "rendezvous @", name_, ": pid ", who->pid, ": ", st.message());
    } else {
      ++served;
    }
    ::close(c);
  }
  return served;
}

std::vector<std::string> abstract_sockets(const std::string& prefix) {
  // Lines: "Num RefCount Protocol Flags Type St Inode Path"; abstract paths
  // start with '@'.
  std::vector<std::string> names;
  std::ifstream in("/proc/net/unix");
  std::string line;
  const std::string want = "@" + prefix;
  while (std::getline(in, line)) {
    auto at = line.find(want);
    if (at == std::string::npos || (at > 0 && line[at - 1] != ' ')) continue;
    std::string name = line.substr(at + 1);
    while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
    bool seen = false;
    for (const auto& n : names) seen = seen || n == name;
    if (!seen) names.push_back(name);
  }
  return names;
}

Result<int> connect_abstract(const std::string& name) {
  OSMP_ASSIGN_OR_RETURN(auto addr, abstract_address(name));
  int s = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s < 0) return Status(Errc::system, cat("cannot create a socket: ", errno_text(errno)));
  // Non-blocking: a listener that never accepts and has a full backlog
  // (a hostile one) gets EAGAIN here instead of stalling us.
  if (::connect(s, reinterpret_cast<sockaddr*>(&addr.first), addr.second) != 0) {
    int e = errno;
    ::close(s);
    return Status(e == ECONNREFUSED || e == ENOENT ? Errc::not_found : Errc::system,
                  cat("cannot connect to @", name, ": ", errno_text(e)));
  }
  return s;
}

}  // namespace osmp
