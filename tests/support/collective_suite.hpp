// A collective correctness suite usable from threads (tests/sim) and from
// real processes (tests/mp): each case fills inputs that are a function of
// (rank, index, seed), runs the operation, and checks every element against a
// sequential reference that each rank computes by itself, plus canaries
// around the buffers (nothing written outside them) and the send buffer left
// untouched.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "osmp.hpp"

namespace osmp::test {

struct CollCase {
  OpKind kind = OpKind::barrier;
  Datatype type = Datatype::int32;
  Op op = Op::sum;
  std::int64_t count = 0;
  int root = 0;
  bool in_place = false;
  std::string name() const;
};

// Runs one case (collective over the team). Returns "" when right, else what
// went wrong, first wrong element first.
std::string run_case(Team& team, const CollCase& c, std::uint32_t seed);

// The matrix: every op x datatype x reduction op x size x root x in-place.
// `sizes` are element counts; `byte_sizes` become count = bytes / sizeof(type).
std::vector<CollCase> matrix(int nranks, const std::vector<std::int64_t>& sizes, bool all_roots = true,
                             const std::vector<std::int64_t>& byte_sizes = {});

}  // namespace osmp::test
