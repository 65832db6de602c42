#include "collectives/payloads.hpp"

#include <vector>

namespace osmp {

void ReducePayload::combine(const Lane&, const std::byte* const* src, const int* units, int count,
                            std::byte* out) {
  std::vector<const void*> in(static_cast<std::size_t>(count));
  bool alias = false;  // `out` may be the first source, never a later one
  for (int i = 0; i < count; ++i) {
    in[static_cast<std::size_t>(i)] = src[units[i]];
    alias |= i > 0 && src[units[i]] == out;
  }
  if (!alias) {
    combine_all(out, in.data(), count, n_, t_, op_);
    return;
  }
  std::byte* tmp = e_.scratch(2);
  combine_all(tmp, in.data(), count, n_, t_, op_);
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
