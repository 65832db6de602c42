// The data exchange a team needs while it is being created: an allgather and
// a broadcast among the processes of the job, nothing more. Injected, so that
// the same team creation runs over osmprun's job segment (ShmBootstrap), over
// MPI (mpi_glue/), and over threads in one process (ThreadBootstrap, tests).
//
// Every call is collective over all ranks of the job, with the same arguments.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace osmp {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Identifies the job on this machine; part of every segment name, so two
  // jobs never collide. The same on every rank.
  virtual std::uint64_t job_id() const = 0;
  // Every rank gives `len` bytes; `out` gets size() * len bytes in rank order.
  virtual Status allgather(const void* in, std::size_t len, void* out) = 0;
  // `len` bytes of `root`'s `buf` reach every rank's `buf`.
  virtual Status broadcast(void* buf, std::size_t len, int root) = 0;
  // The launcher's job-wide abort word, when there is one.
  virtual const std::atomic<std::uint64_t>* job_abort() const { return nullptr; }

  Status barrier() { return allgather(nullptr, 0, nullptr); }

  // Broadcasts a string of any length from `root`.
  Status broadcast_string(std::string& s, int root);
  // Every rank gives a string of any length; all get every rank's, in rank order.
  Result<std::vector<std::string>> allgather_strings(const std::string& mine);

  // Every rank passes its local outcome; all get the same answer: ok, or the
  // first failing rank's error ("rank 3: ..."). Lets a failing rank still take
  // part, so nobody waits for it forever (docs/design.md, rule 4).
  Status agree(const Status& local);
};

}  // namespace osmp
