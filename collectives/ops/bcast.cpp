// bcast = down the tree from the root (the root's path leads): in the first
// step when it fits the broadcast areas, else in pipelined chunks (plan.hpp).
#include <cstring>

#include "collectives/ops/common.hpp"

namespace osmp {
namespace {

class BcastPayload : public Payload {
 public:
  BcastPayload(std::byte* buf, std::size_t len, bool root, int root_rank)
      : buf_(buf), len_(len), root_(root), root_rank_(root_rank) {}
  // Symmetric top: the root's unit publishes the data, everyone takes it.
  std::size_t sym_len(const Lane& l, int u) const { return u == l.lroot(root_rank_) ? len_ : 0; }
  const std::byte* sym_mine(const std::byte*) { return root_ ? buf_ : nullptr; }
  const std::byte* sym_down(const Lane& l, LaneWork& w, std::byte*) {
    return w.src[static_cast<std::size_t>(l.lroot(root_rank_))];
  }
  void set_chunk(std::byte* buf, std::size_t len) {
    buf_ = buf;
    len_ = len;
    delivered_ = false;
  }
  std::size_t down_len(const Lane&) const { return len_; }
  const std::byte* top_down(const std::byte*) { return buf_; }
  void deliver(int, const Lane*, const std::byte* data) {
    if (!root_ && !delivered_ && len_) copy_bytes(buf_, data, len_);
    delivered_ = true;
  }

 private:
  std::byte* buf_;
  std::size_t len_;
  bool root_;
  int root_rank_;
  bool delivered_ = false;
};

static_assert(PayloadHooks<BcastPayload>);

}  // namespace

namespace {

struct Bcast {
  static constexpr OpKind kKind = OpKind::bcast;
  static BcastPayload one_step(Engine& e, const CollArgs& a, StatusWord local) {
    const std::size_t bytes = static_cast<std::size_t>(a.count) * size_of(a.dtype);
    return BcastPayload(static_cast<std::byte*>(a.recv), local ? 0 : bytes, e.team().rank() == a.root, a.root);
  }
  static Task steps(Engine& e, CollArgs a, StatusWord local, Plan plan) {
    auto* buf = static_cast<std::byte*>(a.recv);
    const std::size_t bytes = static_cast<std::size_t>(a.count) * size_of(a.dtype);
    const bool root = e.team().rank() == a.root;
    DirectCall d(e, a, local, plan, {root ? buf : nullptr, bytes, buf, bytes}, &DirectCall::bcast);
    OSMP_CO_RETURN_IF_ERROR(co_await header_step(e, a, local, plan));
    if (DirectMode m = d.mode(); m != DirectMode::none) co_return co_await d.run(m);
    if (plan.rest == Rest::cma) co_return co_await cma_bcast(e, buf, bytes, a.root);
    BcastPayload p(buf, plan.chunk_bytes, e.team().rank() == a.root, a.root);
    co_return co_await chunk_steps(e, plan, bytes, a.root, p,
                                   [&](std::size_t off, std::size_t len) { p.set_chunk(buf + off, len); });
  }
};

}  // namespace

template <>
const OpEntry Ops<OpKind::bcast>::entry = entry_of<Bcast>();

}  // namespace osmp
