// Flags in shared memory: a 64-bit sequence number that only grows.
//
// A writer publishes "I have reached step s" by storing s after the data the
// step produced; a reader waits until the value has reached s and may then read
// that data. Values never reset, so consecutive collectives need no extra
// barrier and there is no ABA. reached() compares with unsigned subtraction, so
// it stays right when the counter wraps (after 2^64 steps, in theory).
//
// Memory ordering: publish() stores with release after the payload; every
// reader loads with acquire before touching the payload. The `sleepers` count
// lets a writer skip the futex wake syscall when nobody sleeps: a waiter
// increments it and then re-reads the value before sleeping; a writer that may
// have sleepers swaps the value in and then reads `sleepers`. All four are
// seq_cst, so in their single total order either the writer sees the sleeper
// or the sleeper sees the new value (no lost wake-up). On x86 the swap is one
// locked instruction, cheaper than a release store followed by a full fence.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>

namespace osmp {

static_assert(std::atomic<std::uint64_t>::is_always_lock_free);
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);
static_assert(std::endian::native == std::endian::little, "the futex word is the low half of the 64-bit flag value");

// True when `value` has reached `target`: value - target, as a signed
// distance, is >= 0. Correct across wraparound for distances below 2^63.
constexpr bool reached(std::uint64_t value, std::uint64_t target) noexcept {
  return static_cast<std::int64_t>(value - target) >= 0;
}

// 16 bytes; lives inside a cache line owned by its single writer.
struct Flag {
  std::atomic<std::uint64_t> value{0};     // written by the owner only (release)
  std::atomic<std::uint32_t> sleepers{0};  // futex waiters; incremented/decremented by waiters
  // A word the owner writes before it publishes `value` and readers read
  // after their acquire of `value`, like the payload beside the flag. The
  // collectives carry a status word in it (collectives/protocol.hpp: a
  // member's errors going up, the verdict coming down; docs/protocol.md says
  // why no reader can see it change under it).
  std::uint32_t word = 0;
};
static_assert(sizeof(Flag) == 16 && alignof(Flag) == 8);

// Wakes every thread sleeping on `f` (futex), if any. Call after the release
// store of a new value when the team's wait policy may sleep.
void wake_sleepers(Flag& f) noexcept;

// Publishes `v` after the data it guards.
inline void publish(Flag& f, std::uint64_t v, bool may_have_sleepers) noexcept {
  if (!may_have_sleepers) {
    f.value.store(v, std::memory_order_release);  // pairs with the acquire load in poll()/Waiter
    return;
  }
  // seq_cst swap then seq_cst read: pairs with the waiter's seq_cst
  // increment of `sleepers` and re-read of `value` (see header comment).
  f.value.exchange(v, std::memory_order_seq_cst);
  if (f.sleepers.load(std::memory_order_seq_cst) != 0) wake_sleepers(f);
}

inline bool poll(const Flag& f, std::uint64_t target) noexcept {
  return reached(f.value.load(std::memory_order_acquire), target);  // pairs with publish()
}

// Spin-loop hint: PAUSE on x86, YIELD on Arm.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

}  // namespace osmp
