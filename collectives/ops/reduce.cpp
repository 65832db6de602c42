// reduce = combine up the tree to the root (the root's path leads), in the
// first step when it fits the slots, else in pipelined chunks.
#include <cstring>

#include "collectives/ops/common.hpp"

namespace osmp {
namespace {

class ReduceToRoot : public ReducePayload {
 public:
  ReduceToRoot(Engine& e, std::size_t n, Datatype t, Op op, const std::byte* in, std::byte* out)
      : ReducePayload(e, n, t, op), in_(in), out_(out) {}
  void set_chunk(std::size_t off, std::size_t n) {
    n_ = n;
    at_ = off;
  }
  const std::byte* own_up() { return in_ + at_ * size_of(t_); }
  std::byte* top_up_out(std::byte*) { return out_ ? out_ + at_ * size_of(t_) : nullptr; }
  void at_top(const std::byte* result) {
    std::byte* dst = out_ + at_ * size_of(t_);
    if (out_ && result != dst) copy_bytes(dst, result, n_ * size_of(t_));
  }

 private:
  const std::byte* in_;
  std::byte* out_;
  std::size_t at_ = 0;
};

static_assert(PayloadHooks<ReduceToRoot>);

}  // namespace

namespace {

struct Reduce {
  static constexpr OpKind kKind = OpKind::reduce;
  static const std::byte* input(const CollArgs& a) {
    return static_cast<const std::byte*>(a.send == kInPlace ? a.recv : a.send);
  }
  static std::byte* output(Engine& e, const CollArgs& a) {
    return e.team().rank() == a.root ? static_cast<std::byte*>(a.recv) : nullptr;
  }
  static ReduceToRoot one_step(Engine& e, const CollArgs& a, StatusWord local) {
    return ReduceToRoot(e, local ? 0 : static_cast<std::size_t>(a.count), a.dtype, a.op, input(a), output(e, a));
  }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    const std::size_t n = static_cast<std::size_t>(a.count), es = size_of(a.dtype);
    DirectCall d(e, a, local, plan, {input(a), n * es, output(e, a), n * es}, &DirectCall::reduce);
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    if (DirectMode m = d.mode(); m != DirectMode::none) co_return co_await d.run(m);
    ReduceToRoot p(e, plan.chunk_bytes / es, a.dtype, a.op, input(a), output(e, a));
    co_return co_await chunk_steps(e, plan, n * es, a.root, p,
                                   [&](std::size_t off, std::size_t len) { p.set_chunk(off / es, len / es); });
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::reduce>::entry = entry_of<Reduce>();

}  // namespace osmp
