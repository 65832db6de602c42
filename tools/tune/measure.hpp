// What osmp-tune times, on every rank of the team (collective calls).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "osmp.hpp"
#include "tuning/costs.hpp"

namespace osmp::tune {

// Send and receive buffers large enough for every op at `max_bytes` per rank.
class Buffers {
 public:
  Buffers(int ranks, std::size_t max_bytes);
  void* send() { return send_.data(); }
  void* recv() { return recv_.data(); }

 private:
  std::vector<std::byte> send_, recv_;
};

// One call of `op` with `bytes` per rank (float sum for the reductions,
// bytes otherwise; root 0).
Status call(Team& t, OpKind op, std::size_t bytes, Buffers& b);

// Microseconds per call of `op`: the whole loop timed (honest when ranks
// outnumber cores), the slowest rank's time, the best of `reps` loops. The
// loop length is agreed so that a loop takes about `target_us`. Every rank
// returns the same number.
Result<double> time_op(Team& t, OpKind op, std::size_t bytes, Buffers& b, double target_us, int reps);

// Per-level alpha and beta between two processes whose lowest shared domain
// is each level of the team's tree (flag ping-pong and copies through the
// control segment), gamma from the reduction kernel, CMA's cost per call
// and per KiB between the top level's two ranks (its `source` says whether
// measured); the contention of concurrent readers of one line stays the
// typical figure. Collective.
Result<Calibration> calibrate(Team& t);

}  // namespace osmp::tune
