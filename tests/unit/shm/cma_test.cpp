// cma_slowdown (shm/cma.hpp): measured once per process, a positive ratio
// where the kernel lets this process read itself, the same on every call.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>

#include "shm/cma.hpp"

namespace osmp {
namespace {

TEST(CmaSlowdown, MeasuredOnceWhereTheKernelAllowsTheCopy) {
  std::uint64_t word = 42, got = 0;
  const bool allowed = cma_read(::getpid(), &got, reinterpret_cast<std::uint64_t>(&word), sizeof word).ok();
  const double first = cma_slowdown();
  if (!allowed) {
    EXPECT_EQ(first, 0.0);
    GTEST_SKIP() << "the kernel refuses process_vm_readv here";
  }
  EXPECT_EQ(got, 42u);
  EXPECT_GT(first, 0.0);
  EXPECT_LT(first, 1000.0);          // a copy of a MiB, not a timing of something else
  EXPECT_EQ(cma_slowdown(), first);  // cached: one measurement per process
}

}  // namespace
}  // namespace osmp
