// Random identifiers from the kernel's generator (getrandom): job and team
// ids, and the unguessable part of rendezvous names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace osmp {

// A fresh random 64-bit id, never 0.
std::uint64_t random_id();
// `bytes` random bytes as lowercase hex (2 * bytes characters).
std::string random_hex(std::size_t bytes);

}  // namespace osmp
