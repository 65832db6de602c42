// A collective correctness suite usable from threads (tests/sim) and from
// real processes (tests/mp): each case fills inputs that are a function of
// (rank, index, seed), runs the operation, and checks every element against a
// sequential reference that each rank computes by itself, plus canaries
// around the buffers (nothing written outside them) and the send buffer left
// untouched.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "osmp.hpp"

namespace osmp::test {

// Where a case's buffers live: memory of the rank's own (plain), the team's
// shared heap (Team::allocate_bytes: single copy, collectives/ops/direct.cpp),
// or a mix that takes each single-copy mode and the fallbacks.
enum class Placement : std::uint8_t {
  plain,
  heap,       // every buffer in the heap
  heap_send,  // send buffers only
  heap_recv,  // receive buffers only
  mixed,      // even ranks' send buffers, odd ranks' receive buffers
};

// Where the buffers Placement puts in shared memory come from: the team's
// heap (null, the default) or a test's own allocator (memory of a shared
// region, shm/regions.hpp). Its calls may come from every rank's thread at
// once. Set it while no case runs.
struct SharedSource {
  virtual ~SharedSource() = default;
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void free(void* p) = 0;
};
void use_shared_source(SharedSource* s);

struct CollCase {
  OpKind kind = OpKind::barrier;
  Datatype type = Datatype::int32;
  Op op = Op::sum;
  std::int64_t count = 0;
  int root = 0;
  bool in_place = false;
  Placement place = Placement::plain;
  std::string name() const;
};

// One case on this rank with its buffers filled: run it blocking, or start
// it non-blocking (the buffers stay put until the request completes), then
// check the outcome ("" when right, else what went wrong, first wrong
// element first).
class PreparedCase {
 public:
  virtual ~PreparedCase() = default;
  virtual Status run(Team& team) = 0;
  virtual Request start(Team& team) = 0;
  virtual std::string check(const Status& st) = 0;
};
std::unique_ptr<PreparedCase> prepare(Team& team, const CollCase& c, std::uint32_t seed);

// How run_case() calls: blocking, start + wait, or start + test until done.
enum class Mode { blocking, wait, test_loop };

// Runs one case (collective over the team). Returns "" when right, else what
// went wrong, first wrong element first.
std::string run_case(Team& team, const CollCase& c, std::uint32_t seed, Mode mode = Mode::blocking);

// The matrix: every op x datatype x reduction op x size x root x in-place.
// `sizes` are element counts; `byte_sizes` become count = bytes / sizeof(type).
std::vector<CollCase> matrix(int nranks, const std::vector<std::int64_t>& sizes, bool all_roots = true,
                             const std::vector<std::int64_t>& byte_sizes = {});

// Every operation with its buffers in each Placement but plain: two types
// (one reduction op each), roots 0 and n-1, in place and not, `sizes` in bytes.
std::vector<CollCase> heap_matrix(int nranks, const std::vector<std::int64_t>& byte_sizes);

}  // namespace osmp::test
