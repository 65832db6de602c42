#include "collectives/payloads.hpp"

#include <vector>

namespace osmp {

void ReducePayload::combine(const Lane&, LaneWork& w, const int* units, int count, std::byte* out) {
  const std::byte* const* src = w.src.data();
  const void** in = w.ptrs.data();  // sized to the group once
  bool alias = false;  // `out` may be the first source, never a later one
  in[0] = src[units[0]];
  for (int i = 1; i < count; ++i) {
    in[i] = src[units[i]];
    alias |= in[i] == out;
  }
  if (!alias) {
    kernel_.all(out, in, count, n_);
    return;
  }
  std::byte* tmp = e_.scratch(2);
  kernel_.all(tmp, in, count, n_);
  std::memcpy(out, tmp, n_ * size_of(t_));
}

void pack_blocks(const std::vector<int>& packed, std::size_t block, const std::byte* rank_order, std::byte* out) {
  for (std::size_t i = 0; i < packed.size(); ++i)
    std::memcpy(out + i * block, rank_order + static_cast<std::size_t>(packed[i]) * block, block);
}

void unpack_blocks(const std::vector<int>& packed, std::size_t block, const std::byte* in, std::byte* rank_order) {
  for (std::size_t i = 0; i < packed.size(); ++i)
    std::memcpy(rank_order + static_cast<std::size_t>(packed[i]) * block, in + i * block, block);
}

}  // namespace osmp
