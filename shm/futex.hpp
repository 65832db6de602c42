// Thin wrappers over FUTEX_WAIT / FUTEX_WAKE on a shared (not private) word.
#pragma once

#include <cstdint>

namespace osmp {

// Sleeps while *word == expected, at most timeout_ns (0: no limit). Returns
// early on a wake, a signal, or a changed value; the caller re-checks.
void futex_wait(const std::uint32_t* word, std::uint32_t expected, std::uint64_t timeout_ns) noexcept;
// Wakes every sleeper on `word`.
void futex_wake_all(const std::uint32_t* word) noexcept;

}  // namespace osmp
