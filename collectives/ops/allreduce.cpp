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
  const std::byte* sym_down(const Lane& l, LaneWork& w, std::byte*) {
    std::byte* out = out_ + at_ * size_of(t_);
    w.all_units(l.n());
    combine(l, w, w.order.data(), l.n(), out);
    delivered_ = true;
    return out;
  }
  std::byte* top_up_out(std::byte* down_area) { return down_area; }
  std::size_t down_len(const Lane&) const { return n_ * size_of(t_); }
  void deliver(int, const Lane*, const std::byte* data) {
    if (!delivered_ && n_) copy_bytes(out_ + at_ * size_of(t_), data, n_ * size_of(t_));
    delivered_ = true;
  }

 private:
  const std::byte* in_;
  std::byte* out_;
  std::size_t at_ = 0;
  bool delivered_ = false;
};

static_assert(PayloadHooks<AllreducePayload>);

}  // namespace

namespace {

struct Allreduce {
  static constexpr OpKind kKind = OpKind::allreduce;
  static const std::byte* input(const CollArgs& a) {
    return static_cast<const std::byte*>(a.send == kInPlace ? a.recv : a.send);
  }
  static AllreducePayload one_step(Engine& e, const CollArgs& a, StatusWord local) {
    return AllreducePayload(e, local ? 0 : static_cast<std::size_t>(a.count), a.dtype, a.op, input(a),
                            static_cast<std::byte*>(a.recv));
  }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    const std::size_t n = static_cast<std::size_t>(a.count), es = size_of(a.dtype);
    DirectCall d(e, a, local, plan, {input(a), n * es, static_cast<std::byte*>(a.recv), n * es}, &DirectCall::reduce);
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    if (DirectMode m = d.mode(); m != DirectMode::none) co_return co_await d.run(m);
    if (plan.rest == Rest::cma)
      co_return co_await cma_allreduce(e, input(a), static_cast<std::byte*>(a.recv), n, a.dtype, a.op);
    AllreducePayload p(e, plan.chunk_bytes / es, a.dtype, a.op, input(a), static_cast<std::byte*>(a.recv));
    co_return co_await chunk_steps(e, plan, n * es, -1, p,
                                   [&](std::size_t off, std::size_t len) { p.set_chunk(off / es, len / es); });
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::allreduce>::entry = entry_of<Allreduce>();

}  // namespace osmp
