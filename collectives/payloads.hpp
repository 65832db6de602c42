// What the reductions and gathers move through the tree (payload.hpp).
#pragma once

#include <cstring>
#include <vector>

#include "collectives/kernels.hpp"
#include "collectives/payload.hpp"

namespace osmp {

// Reductions: every unit sends a vector of `n` elements; local roots combine
// them left to right in unit order (k-nomial: own, then children).
class ReducePayload : public Payload {
 public:
  ReducePayload(Engine& e, std::size_t n, Datatype t, Op op)
      : e_(e), n_(n), t_(t), op_(op), kernel_(Combiner::make(t, op)) {}
  std::size_t up_len(const Lane&, int) const { return n_ * kernel_.esize; }
  std::size_t uniform_up_len() const { return n_ * kernel_.esize; }
  void combine(const Lane& l, LaneWork& w, const int* units, int count, std::byte* out);
  void combine_slice(const Lane& l, LaneWork& w, std::size_t off, std::size_t n, std::byte* out) {
    const void** in = w.ptrs.data();
    for (int u = 0; u < l.n(); ++u) in[u] = w.src[static_cast<std::size_t>(u)] + off * kernel_.esize;
    kernel_.all(out, in, l.n(), n);
  }
  std::size_t elements() const { return n_; }
  std::size_t element_size() const { return kernel_.esize; }

 protected:
  Engine& e_;
  std::size_t n_;
  Datatype t_;
  Op op_;
  Combiner kernel_;
};

// Gathers: unit u sends the blocks of its ranks in packed order; local roots
// concatenate them in unit order.
// Concatenates the data of `units` (w.src[u], len_of(u) bytes each) in
// that order into `out`: the gathers' combine.
template <class LenOf>
void concatenate(LaneWork& w, const int* units, int count, std::byte* out, LenOf len_of) {
  std::size_t off = 0;
  for (int i = 0; i < count; ++i) {
    const std::size_t len = len_of(units[i]);
    const std::byte* from = w.src[static_cast<std::size_t>(units[i])];
    if (len && from != out + off) move_bytes(out + off, from, len);  // (in place: there already)
    off += len;
  }
}

// Whether every unit of lane `l` is a single rank: at a symmetric top, then,
// nobody below waits for a result, and each rank may take what it needs
// straight from every unit's line or slot (w.src) into its own buffers.
inline bool single_ranks(const Lane& l) { return l.packed.size() == static_cast<std::size_t>(l.n()); }

// Copies `len` bytes to `dst` unless they are there already (in place).
inline void place_block(std::byte* dst, const std::byte* src, std::size_t len) {
  if (dst != src) copy_bytes(dst, src, len);
}

// At a symmetric top whose units are single ranks (every rank reads every
// unit's data where it lies: w.src, by unit, unit u being rank packed[u]):
// each rank's data by rank, through a table only where the units are not
// in rank order.
class ByRank {
 public:
  ByRank(const Lane& l, const LaneWork& w, bool in_rank_order) : src_(w.src) {
    if (in_rank_order) return;
    placed_.resize(l.packed.size());
    for (std::size_t u = 0; u < placed_.size(); ++u) placed_[static_cast<std::size_t>(l.packed[u])] = w.src[u];
  }
  template <class Rank>
  const std::byte* operator()(Rank rank) const {
    const auto r = static_cast<std::size_t>(rank);
    return placed_.empty() ? src_[r] : placed_[r];
  }

 private:
  const std::vector<const std::byte*>& src_;
  std::vector<const std::byte*> placed_;
};

class GatherPayload : public Payload {
 public:
  explicit GatherPayload(std::size_t block) : block_(block) {}
  std::size_t uniform_up_len() const { return kVaries; }
  std::size_t up_len(const Lane& l, int u) const {
    return static_cast<std::size_t>(l.unit_size[static_cast<std::size_t>(u)]) * block_;
  }
  // Every unit in unit order (the plan makes concatenating steps flat).
  void combine(const Lane& l, LaneWork& w, const int* units, int count, std::byte* out) {
    concatenate(w, units, count, out, [&](int u) { return up_len(l, u); });
  }

 protected:
  std::size_t block_;
};

// The down half of the scattering payloads (scatter, alltoall, scan): the
// data at a lane is its domain's per-rank blocks of `block` bytes, in
// packed order. forward: lane `child`'s part of what reached this rank one
// level up (`parent` null at the top); deliver: this rank's own block, at
// lane 0 (where it is a unit itself).
inline void forward_part(std::size_t block, const Lane* parent, const Lane& child, const std::byte* from,
                         std::byte* out) {
  const std::size_t off = parent ? parent->unit_off[static_cast<std::size_t>(parent->g->me)] * block : 0;
  if (block) copy_to_shared(out, from + off, child.packed.size() * block);
}
inline void deliver_part(std::size_t block, int lane, const Lane* l, const std::byte* data, std::byte* recv) {
  if (lane != 0 || !recv || !block) return;
  const std::size_t off = l ? l->unit_off[static_cast<std::size_t>(l->g->me)] * block : 0;
  copy_bytes(recv, data + off, block);
}

// Packs rank-ordered blocks into the team's packed order, and back.
void pack_blocks(const std::vector<int>& packed, std::size_t block, const std::byte* rank_order, std::byte* out);
void unpack_blocks(const std::vector<int>& packed, std::size_t block, const std::byte* in, std::byte* rank_order);

}  // namespace osmp
