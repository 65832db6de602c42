// allreduce = reduce up + bcast down of the same chunks; the top local root
// combines straight into the top group's broadcast area.
#include <cstring>

#include "collectives/ops/common.hpp"

namespace osmp {
namespace {

class AllreducePayload : public ReducePayload {
 public:
  AllreducePayload(Engine& e, std::size_t n, Datatype t, Op op, const std::byte* in, std::byte* out)
      : ReducePayload(e, n, t, op), in_(in), out_(out) {}
  void set_chunk(std::size_t off, std::size_t n) {
    n_ = n;
    at_ = off;
    delivered_ = false;
  }
  const std::byte* own_up() { return in_ + at_ * size_of(t_); }
  // Symmetric top: every member combines all of them, in unit order, straight
  // into its own result (the inputs are in lines or slots by now, so in place
  // is safe).
  bool sym_slots_ok() const { return true; }
  const std::byte* sym_down(Lane& l, const std::byte* const* src, std::byte*) {
    std::byte* out = out_ + at_ * size_of(t_);
    l.order.resize(static_cast<std::size_t>(l.n()));
    for (int u = 0; u < l.n(); ++u) l.order[static_cast<std::size_t>(u)] = u;
    combine(l, src, l.order.data(), l.n(), out);
    delivered_ = true;
    return out;
  }
  std::byte* top_up_out(std::byte* down_area) { return down_area; }
  std::size_t down_len(const Lane&) const { return n_ * size_of(t_); }
  void deliver(int, const Lane*, const std::byte* data) {
    if (!delivered_ && n_) std::memcpy(out_ + at_ * size_of(t_), data, n_ * size_of(t_));
    delivered_ = true;
  }

 private:
  const std::byte* in_;
  std::byte* out_;
  std::size_t at_ = 0;
  bool delivered_ = false;
};

}  // namespace

Status run_allreduce(Engine& e, const CollArgs& a, StatusWord local) {
  auto* out = static_cast<std::byte*>(a.recv);
  auto* in = static_cast<const std::byte*>(a.send == kInPlace ? a.recv : a.send);
  const std::size_t n = static_cast<std::size_t>(a.count);
  const std::size_t area = std::min(e.slot_bytes(), e.bcast_bytes());
  if (n * size_of(a.dtype) <= area) {
    AllreducePayload p(e, local ? 0 : n, a.dtype, a.op, in, out);
    return first_step(e, p, a, local);
  }
  NoPayload none;
  OSMP_RETURN_IF_ERROR(first_step(e, none, a, local, false));
  const std::size_t chunk = area / size_of(a.dtype);
  AllreducePayload p(e, chunk, a.dtype, a.op, in, out);
  return chunk_steps(e, ceil_div(n, chunk), true, true, -1, p, [&](std::size_t c) {
    p.set_chunk(c * chunk, std::min(chunk, n - c * chunk));
  }, /*slices=*/true);
}

}  // namespace osmp
