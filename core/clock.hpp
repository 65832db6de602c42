// Monotonic time for timeouts and benchmarks.
#pragma once

#include <chrono>
#include <cstdint>

namespace osmp {

inline std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace osmp
