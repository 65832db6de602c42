// copy_small and copy_bytes: every length below and around 64 bytes, at
// every alignment, copies exactly those bytes and writes nothing beside them.
#include "shm/copy.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace osmp {
namespace {

template <class Copy>
void every_length(Copy copy, std::size_t most) {
  for (std::size_t n = 0; n <= most; ++n) {
    for (std::size_t at = 0; at < 8; ++at) {
      std::array<std::uint8_t, 160> src{}, dst{};
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i * 7 + 1);
      dst.fill(0xee);
      copy(dst.data() + 16 + at, src.data() + 8 + at, n);
      for (std::size_t i = 0; i < dst.size(); ++i) {
        const bool in = i >= 16 + at && i < 16 + at + n;
        const std::uint8_t want = in ? src[i - 16 + 8] : std::uint8_t{0xee};
        ASSERT_EQ(dst[i], want) << n << " bytes at offset " << at << ", byte " << i;
      }
    }
  }
}

TEST(CopySmall, ExactlyTheBytesOfEveryLengthBelow64) {
  every_length([](void* d, const void* s, std::size_t n) { copy_small(d, s, n); }, 63);
}

TEST(CopyBytes, ExactlyTheBytesSmallAndLarge) {
  every_length([](void* d, const void* s, std::size_t n) { copy_bytes(d, s, n); }, 130);
}

TEST(MoveBytes, OverlappingBytesOfEveryLength) {
  for (std::size_t n = 0; n <= 130; ++n) {
    for (int shift : {-9, -1, 1, 9}) {
      std::array<std::uint8_t, 200> buf{}, want{};
      for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<std::uint8_t>(i * 5 + 3);
      want = buf;
      std::memmove(want.data() + 40 + shift, want.data() + 40, n);
      move_bytes(buf.data() + 40 + shift, buf.data() + 40, n);
      ASSERT_EQ(buf, want) << n << " bytes moved by " << shift;
    }
  }
}

}  // namespace
}  // namespace osmp
