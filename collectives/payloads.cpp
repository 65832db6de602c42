#include "collectives/payloads.hpp"

#include <vector>

namespace osmp {

void ReducePayload::combine(const Lane&, LaneWork& w, const int* units, int count, std::byte* out) {
  const std::byte* const* src = w.src.data();
  const void** in = w.ptrs.data();  // sized to the group once
  bool alias = false;               // `out` may be the first source, never a later one
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
  copy_bytes(out, tmp, n_ * size_of(t_));
}

namespace {
// Calls f(packed position, rank, blocks) for each run of consecutive ranks
// in packed order (a tree in rank order is one run: one copy).
template <class F>
void for_runs(const std::vector<int>& packed, F&& f) {
  for (std::size_t i = 0; i < packed.size();) {
    std::size_t j = i + 1;
    while (j < packed.size() && packed[j] == packed[j - 1] + 1) ++j;
    f(i, static_cast<std::size_t>(packed[i]), j - i);
    i = j;
  }
}
}  // namespace

void pack_blocks(const std::vector<int>& packed, std::size_t block, const std::byte* rank_order, std::byte* out) {
  for_runs(packed, [&](std::size_t at, std::size_t rank, std::size_t blocks) {
    copy_bytes(out + at * block, rank_order + rank * block, blocks * block);
  });
}

void unpack_blocks(const std::vector<int>& packed, std::size_t block, const std::byte* in, std::byte* rank_order) {
  for_runs(packed, [&](std::size_t at, std::size_t rank, std::size_t blocks) {
    copy_bytes(rank_order + rank * block, in + at * block, blocks * block);
  });
}

}  // namespace osmp
