#include "shm/futex.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <ctime>

#include "shm/flag.hpp"

namespace osmp {

void futex_wait(const std::uint32_t* word, std::uint32_t expected, std::uint64_t timeout_ns) noexcept {
  timespec ts{};
  timespec* tp = nullptr;
  if (timeout_ns) {
    ts.tv_sec = static_cast<time_t>(timeout_ns / 1'000'000'000ULL);
    ts.tv_nsec = static_cast<long>(timeout_ns % 1'000'000'000ULL);
    tp = &ts;
  }
  // Not FUTEX_PRIVATE_FLAG: the word lives in memory shared between processes.
  ::syscall(SYS_futex, word, FUTEX_WAIT, expected, tp, nullptr, 0);
}

void futex_wake_all(const std::uint32_t* word) noexcept {
  ::syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

void wake_sleepers(Flag& f) noexcept {
  // The futex word is the low half of the value (little-endian, asserted in flag.hpp).
  futex_wake_all(reinterpret_cast<const std::uint32_t*>(&f.value));
}

}  // namespace osmp
