// Handing a segment's descriptor to another process of the same user.
//
// - send_fd()/recv_fd(): one descriptor and a few bytes over a connected unix
//   socket (SCM_RIGHTS). osmprun gives its watchdog the job segment this way.
// - Rendezvous: how ranks that a launcher other than osmprun started (they
//   know only OSMP_JOB_ID, OSMP_RANK, OSMP_SIZE) find their job segment.
//   Rank 0 listens on an abstract unix socket named
//   "osmp-<uid>-<job>-<32 random hex digits>"; the others look for that
//   prefix in /proc/net/unix, connect, and take the descriptor only from a
//   listener of their own user (SO_PEERCRED, which the kernel fills in and
//   nobody can forge). Rank 0 serves only peers of its own user. An abstract
//   name is not a file: the kernel removes it when its socket closes or its
//   owner dies, so it can never be left behind; the random part means nobody
//   can take it first.
// - Once every rank has joined, rank 0 closes its rendezvous and listens on
//   a marker instead, "osmp-<uid>-<job>-started-<32 hex>", which never
//   accepts: a process that comes later with the job's id (a taken rank, or
//   a second rank 0) connects, finds a listener of its own user there, and
//   is refused at once instead of waiting for a rank 0 that will not serve.
// - Connections of other users are refused; rank 0 says so for the first
//   kRefusalsShown and counts the rest, said once when the rendezvous
//   closes: another user cannot fill a job's stderr.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace osmp {

struct PeerCred {
  pid_t pid = 0;
  uid_t uid = 0;
};
// Who is at the other end of a connected unix socket (as the kernel saw it at
// connect() or listen() time).
Result<PeerCred> peer_cred(int sock);

// Sends `fd` with `len` bytes of `data` (at least 1 byte) as one message.
Status send_fd(int sock, int fd, const void* data, std::size_t len);
// Receives one message carrying exactly one descriptor (close-on-exec) and
// exactly `len` bytes; waits up to `timeout_ms` (-1: forever).
Result<int> recv_fd(int sock, void* data, std::size_t len, int timeout_ms);

// "osmp-<uid>-<job hex>-": the part of every rendezvous name of a job that
// can be predicted.
std::string rendezvous_prefix(std::uint64_t job_id);
// The marker of a job whose ranks have all joined: rendezvous_prefix +
// "started-".
std::string started_prefix(std::uint64_t job_id);

// The listening side (rank 0).
class Rendezvous {
 public:
  // Listens on rendezvous_prefix(job_id) + 32 random hex digits (`started`:
  // on started_prefix(job_id) + 32 random hex digits, a marker that is
  // never served).
  static Result<Rendezvous> listen(std::uint64_t job_id, int backlog, bool started = false);
  static constexpr int kRefusalsShown = 3;
  Rendezvous() = default;
  Rendezvous(Rendezvous&& o) noexcept;
  Rendezvous& operator=(Rendezvous&& o) noexcept;
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;
  ~Rendezvous() { close(); }

  // Waits up to `wait_ms` for connections; gives each one from this user
  // `fd` with `data`, and drops the others (the first kRefusalsShown said
  // with a warning each, the rest counted). Returns how many it served.
  int serve(int fd, const void* data, std::size_t len, int wait_ms);
  // Removes the name (the kernel does it too if this process dies), and
  // says how many refusals were not shown.
  void close();
  int refused() const { return refused_; }
  bool open() const { return sock_ >= 0; }
  const std::string& name() const { return name_; }

 private:
  int sock_ = -1;
  std::string name_;
  int refused_ = 0;  // connections of other users, all of them
};

// Abstract socket names (without the leading '@') in /proc/net/unix that
// start with `prefix`.
std::vector<std::string> abstract_sockets(const std::string& prefix);

// Connects to the abstract socket `name` without blocking; returns the
// connected socket, or an error if it is gone or not listening.
Result<int> connect_abstract(const std::string& name);

}  // namespace osmp
