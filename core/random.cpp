#include "core/random.hpp"

#include <sys/random.h>

#include <chrono>
#include <random>

namespace osmp {
namespace {

// getrandom() blocks only before the kernel's pool is initialised (early boot);
// if it ever fails, std::random_device and the clock still give distinct ids.
void fill(void* out, std::size_t n) {
  auto* p = static_cast<unsigned char*>(out);
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::getrandom(p + got, n - got, 0);
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  if (got == n) return;
  std::random_device rd;
  std::uint64_t mix = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  for (std::size_t i = got; i < n; ++i) p[i] = static_cast<unsigned char>(rd() ^ (mix >> (8 * (i % 8))));
}

}  // namespace

std::uint64_t random_id() {
  std::uint64_t v = 0;
  fill(&v, sizeof v);
  return v ? v : 1;
}

std::string random_hex(std::size_t bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string raw(bytes, '\0');
  fill(raw.data(), bytes);
  std::string hex;
  hex.reserve(2 * bytes);
  for (unsigned char c : raw) {
    hex += kDigits[c >> 4];
    hex += kDigits[c & 15];
  }
  return hex;
}

}  // namespace osmp
