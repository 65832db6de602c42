// The step executor (step.hpp), a template over the operation's payload:
// each operation instantiates it with its own final payload class, so every
// hook call is direct and small ones inline (the hot path of small
// collectives is a few hundred instructions).
#pragma once

#include <algorithm>
#include <cstring>

#include "collectives/step.hpp"
#include "shm/copy.hpp"

namespace osmp {
namespace step_detail {


inline int parity(std::uint64_t step) { return static_cast<int>(step % kBuffers); }

inline CtrlLine& mline(const Lane& l, int u, std::uint64_t step) {
  return *l.member[parity(step)][static_cast<std::size_t>(u)];
}

inline std::byte* up_ptr(const Lane& l, std::size_t len, int u, std::uint64_t step) {
  return len <= kInlineBytes ? inline_of(mline(l, u, step)) : l.slot[parity(step)][static_cast<std::size_t>(u)];
}

inline std::byte* down_ptr(const Lane& l, std::size_t len, std::uint64_t step) {
  return len <= kInlineBytes ? inline_of(*l.release) : l.bcast[parity(step)];
}

inline Status wait_flag(Engine& e, const Flag& f, std::uint64_t target, int peer) {
  WaitStatus ws = e.team().waiter().wait(f, target, peer);
  return ws == WaitStatus::ok ? Status{} : e.team().fail(ws);
}

// The k-nomial tree over a group's units, relabelled so the local root is 0.
struct Knomial {
  int n, k, root;
  int rel(int u) const { return (u - root + n) % n; }
  int unit(int v) const { return (v + root) % n; }
  // Calls f for each child of relabelled v, ascending: v+1..v+k-1, then
  // v+k, v+2k, ..., then v+k^2, ... (each run starts past the last).
  template <class F>
  void children(int v, F&& f) const {
    for (long p = 1; p < n; p *= k) {
      if (v % (p * k) != 0) break;
      for (int d = 1; d < k; ++d) {
        long c = v + d * p;
        if (c < n) f(static_cast<int>(c));
      }
    }
  }
};

template <class P>
class StepRun {
 public:
  StepRun(Engine& e, P& p, const StepKind& kind, std::uint64_t step, const OpHeader& h,
          StatusWord local, int root)
      : e_(e), p_(p), kind_(kind), step_(step), header_(h), status_(local), root_(root),
        lanes_(e.lanes()), k_(static_cast<int>(lanes_.size())), sleepy_(e.team().waiter().may_sleep()),
        uniform_(p.uniform_up_len()) {}

  Status run() {
    find_role();
    const std::byte* mine = p_.own_up();
    if (kind_.up) OSMP_RETURN_IF_ERROR(up(mine));
    if (kind_.down) OSMP_RETURN_IF_ERROR(down(mine));
    return {};
  }

  StatusWord verdict() const { return verdict_; }

 private:
  // Local root of lanes 0..m-1, an ordinary member of lane m (m == k: the
  // top). With a symmetric top there is no local root at the top lane: every
  // rank that reaches it is a top member.
  void find_role() {
    m_ = 0;
    while (m_ < k_ && lanes_[static_cast<std::size_t>(m_)].g->me == lanes_[static_cast<std::size_t>(m_)].lroot(root_)) ++m_;
    sym_ = symmetric();
    slices_ = !sym_ && kind_.slices && kind_.up && kind_.down && k_ > 0 &&
              lanes_.back().n() <= e_.config().sym_max;
    sym_ = sym_ || slices_;
    top_member_ = sym_ && m_ >= k_ - 1;
    lroots_ = sym_ ? std::min(m_, k_ - 1) : m_;
  }

  bool symmetric() const {
    if (!kind_.only || !kind_.header || !kind_.up || !kind_.down || !p_.symmetric_ok()) return false;
    const Lane& top = lanes_.back();
    if (top.n() > e_.config().sym_max) return false;
    const std::size_t most = sym_max_len(top);
    if (most <= kInlineBytes) return true;
    return p_.sym_slots_ok() && top.n() <= e_.config().sym_slot_max && most <= e_.slot_bytes();
  }

  int actor(const Lane& l, int u) const { return l.g->actor(u, root_); }

  // Takes a unit's header and status into the running status.
  void check(const CtrlLine& line, const OpHeader& against, int who) {
    if (!kind_.header || status_ != 0) return;
    // Acquired with `ready`: the header and status word were written before it.
    if (line.ready.reserved != 0) {
      status_ = line.ready.reserved;
    } else if (Field f = compare(*header_of(const_cast<CtrlLine&>(line)), against); f != Field::none) {
      status_ = make_status(Errc::mismatch, f, who);
    }
  }

  // Waits for the units this rank collects from in lane l (all others for a
  // flat local root; its k-nomial children otherwise), checks their headers,
  // and leaves the units to combine, in order, in l.order with l.src filled.
  Status collect(Lane& l, bool lroot) {
    const int n = l.n(), me = l.g->me, lr = l.lroot(root_);
    std::vector<int>& order = l.order;
    std::vector<int>& from = l.from;
    order.clear();
    from.clear();
    if (l.base.kind == BaseCase::Kind::flat || p_.flat_only()) {
      if (lroot) {
        for (int u = 0; u < n; ++u) order.push_back(u);
        for (int u = 0; u < n; ++u)
          if (u != me) from.push_back(u);
      } else {
        order.push_back(me);
      }
    } else {
      Knomial t{n, std::max(2, l.base.radix), lr};
      order.push_back(me);
      t.children(t.rel(me), [&](int v) {
        order.push_back(t.unit(v));
        from.push_back(t.unit(v));
      });
    }
    for (int u : from) {
      CtrlLine& line = mline(l, u, step_);
      OSMP_RETURN_IF_ERROR(wait_flag(e_, line.ready, step_, actor(l, u)));
      check(line, header_, actor(l, u));
      std::size_t len = uniform_ != Payload::kVaries ? uniform_ : p_.up_len(l, u);
      l.src[static_cast<std::size_t>(u)] = up_ptr(l, len, u, step_);
    }
    return {};
  }

  // Before a slot of lane l is written again, its local root must have
  // consumed what was written there two steps ago. A release seen since says
  // so; after up-only steps (chunked reduce), whose writers move on without
  // waiting, only the local root's ack does.
  Status slot_free(Lane& l, std::size_t len) {
    if (len <= kInlineBytes || step_ < 2 || reached(l.up_ok, step_ - 2)) return {};
    OSMP_RETURN_IF_ERROR(wait_flag(e_, l.release->ack, step_ - 2, actor(l, l.lroot(root_))));
    l.up_ok = step_ - 2;
    return {};
  }

  // Where the combine of lroot lane j writes (shared_out_, out_len_: into
  // shared memory, and how much).
  Result<std::byte*> up_out(int j) {
    shared_out_ = false;
    if (j + 1 < lroots_) return e_.scratch(j % 2);
    if (j + 1 < k_) {  // straight into my area in the next lane (a member or symmetric top there)
      Lane& next = lanes_[static_cast<std::size_t>(j + 1)];
      std::size_t len = sym_ && !slices_ ? sym_len(next, next.g->me) : p_.up_len(next, next.g->me);
      OSMP_RETURN_IF_ERROR(slot_free(next, len));
      shared_out_ = len > kInlineBytes;
      out_len_ = len;
      return up_ptr(next, len, next.g->me, step_);
    }
    const Lane& top = lanes_.back();
    std::size_t down = p_.down_len(top);
    std::byte* area = down_ptr(top, down, step_);
    std::byte* out = p_.top_up_out(area);
    if (out == area && down > kInlineBytes) {
      shared_out_ = true;
      out_len_ = down;
    }
    return out ? out : e_.scratch(j % 2);
  }

  Status up(const std::byte*& mine) {
    for (int j = 0; j < lroots_; ++j) {  // local root
      Lane& l = lanes_[static_cast<std::size_t>(j)];
      if (j == k_ - 1 && kind_.header) {
        // Ranks that disagree on the count may disagree on using the
        // symmetric top too; publishing my header lets such peers see the
        // mismatch instead of waiting for a line I would not write.
        CtrlLine& line = mline(l, l.g->me, step_);
        *header_of(line) = header_;
        line.ready.reserved = status_;
        publish(line.ready, step_, sleepy_);
      }
      OSMP_RETURN_IF_ERROR(collect(l, true));
      l.src[static_cast<std::size_t>(l.g->me)] = mine;
      OSMP_ASSIGN_OR_RETURN(std::byte* out, up_out(j));
      if (status_ == 0 || !kind_.header) {
        // A large result bound for shared memory is built in private memory
        // and streamed there (shm/copy.hpp).
        std::size_t bytes = shared_out_ ? out_len_ : 0;
        std::byte* into = bytes >= nt_threshold() ? e_.staging() : out;
        p_.combine(l, l.src.data(), l.order.data(), static_cast<int>(l.order.size()), into);
        if (into != out) copy_to_shared(out, into, bytes);
      }
      // Consumed: the slots of this step may be written again (slot_free()).
      publish(l.release->ack, step_, sleepy_);
      l.up_ok = step_;
      mine = out;
    }
    if (top_member_) return slices_ ? symmetric_slices(mine) : symmetric_top(mine);
    if (m_ < k_) return arrive(lanes_[static_cast<std::size_t>(m_)], mine);
    result_ = mine;
    verdict_ = status_;
    if (verdict_ == 0 || !kind_.header) p_.at_top(mine);
    return {};
  }

  // As an ordinary member of lane l: (k-nomial: gather my children first) publish.
  Status arrive(Lane& l, const std::byte* mine) {
    const int me = l.g->me;
    const std::size_t len = p_.up_len(l, me);
    std::byte* area = up_ptr(l, len, me, step_);
    if (m_ == 0 && len) {  // the bottom: my own contribution goes in
      OSMP_RETURN_IF_ERROR(slot_free(l, len));
      copy_to_shared(area, mine, len);
    }
    if (l.base.kind == BaseCase::Kind::knomial && !p_.flat_only()) {
      OSMP_RETURN_IF_ERROR(collect(l, false));
      if (l.order.size() > 1 && (status_ == 0 || !kind_.header)) {
        l.src[static_cast<std::size_t>(me)] = area;
        p_.combine(l, l.src.data(), l.order.data(), static_cast<int>(l.order.size()), area);
      }
    }
    CtrlLine& line = mline(l, me, step_);
    if (kind_.header) {
      *header_of(line) = header_;
      line.ready.reserved = status_;
    }
    publish(line.ready, step_, sleepy_);  // after data, header, status
    return {};
  }

  // Every top member publishes its line, reads all the others', and works out
  // the same verdict and result as every other top member. Lines are
  // double-buffered by parity; a one-step operation is always followed by a
  // step with a down phase, so nobody still reads a line when it comes round.
  // Data too large for the line (allreduce, OSMP_SYMMETRIC_SLOT_MAX) goes in
  // my slot of this parity. The same holds for it: every member reads all
  // slots before it publishes anything of the next step, and I write this
  // slot again only two steps on, after seeing what every member (or the
  // local root for all of them) published in the step between.
  Status symmetric_top(const std::byte* mine) {
    Lane& top = lanes_.back();
    const int n = top.n(), me = top.g->me;
    CtrlLine& line = mline(top, me, step_);
    const std::size_t len = sym_len(top, me);
    const std::byte* own = p_.sym_mine(mine);
    std::byte* dst = up_ptr(top, len, me, step_);  // my line, or my slot for larger data
    if (len && own != dst) {
      if (len > kInlineBytes) {
        OSMP_RETURN_IF_ERROR(slot_free(top, len));
        copy_to_shared(dst, own, len);
      } else {
        std::memcpy(dst, own, len);
      }
    }
    *header_of(line) = header_;
    line.ready.reserved = status_;
    // Release, after the data (line or slot: copy_to_shared fences its
    // streamed stores), the header and the status; pairs with the acquire in
    // the others' wait_flag() on my `ready` below.
    publish(line.ready, step_, sleepy_);
    // The verdict must come out the same everywhere: look at every unit in
    // unit order, each header against unit 0's.
    status_ = 0;  // mine is in my line now; everyone reads all of them back
    const OpHeader* first = nullptr;
    for (int u = 0; u < n; ++u) {
      CtrlLine& other = mline(top, u, step_);
      if (u != me) OSMP_RETURN_IF_ERROR(wait_flag(e_, other.ready, step_, actor(top, u)));
      top.src[static_cast<std::size_t>(u)] = up_ptr(top, sym_len(top, u), u, step_);
      // Checked while the line is fresh in cache, each against unit 0's.
      if (u == 0) first = header_of(other);
      check(other, *first, actor(top, u));
    }
    verdict_ = status_;
    if (verdict_ == 0) result_ = sym_down(top, top.src.data(), e_.scratch(2));
    top.up_ok = step_;  // every line of this step was read by everyone
    if (me == top.lroot(root_)) {
      // The ack moves on every step (slot_free() must not wait on a gap);
      // and for peers that (disagreeing on the count) took the local-root
      // path, the release they wait for, with the verdict.
      CtrlLine& rel = *top.release;
      publish(rel.ack, step_, sleepy_);
      rel.ready.reserved = verdict_;
      publish(rel.ready, step_, sleepy_);
    }
    return {};
  }

  // A reduction chunk at a small top group, every member doing a share:
  // each puts its chunk in its slot; member i combines slice i of all of
  // them (unit order, so the bits match a single combine) into the top's
  // broadcast area; when every slice is there, all read the whole result.
  // Slots and areas come round two steps later, after every member has
  // waited for every other's arrival and ack of this step.
  Status symmetric_slices(const std::byte* mine) {
    Lane& top = lanes_.back();
    const int n = top.n(), me = top.g->me;
    const std::size_t len = p_.up_len(top, me), es = p_.element_size(), elems = p_.elements();
    std::byte* slot = up_ptr(top, len, me, step_);
    if (lroots_ == 0 && len) {  // nothing below me: my own data goes in
      OSMP_RETURN_IF_ERROR(slot_free(top, len));
      copy_to_shared(slot, mine, len);
    }
    CtrlLine& line = mline(top, me, step_);
    publish(line.ready, step_, sleepy_);  // after my chunk
    for (int u = 0; u < n; ++u) {
      if (u != me) OSMP_RETURN_IF_ERROR(wait_flag(e_, mline(top, u, step_).ready, step_, actor(top, u)));
      top.src[static_cast<std::size_t>(u)] = up_ptr(top, len, u, step_);
    }
    const std::size_t per = (elems + static_cast<std::size_t>(n) - 1) / static_cast<std::size_t>(n);
    const std::size_t first = std::min(elems, per * static_cast<std::size_t>(me));
    const std::size_t count = std::min(elems - first, per);
    std::byte* area = top.bcast[parity(step_)];
    if (count) {
      std::byte* into = count * es >= nt_threshold() ? e_.staging() : area + first * es;
      p_.combine_slice(top, top.src.data(), first, count, into);
      if (into != area + first * es) copy_to_shared(area + first * es, into, count * es);
    }
    publish(line.ack, step_, sleepy_);  // after my slice
    for (int u = 0; u < n; ++u) {
      if (u != me) OSMP_RETURN_IF_ERROR(wait_flag(e_, mline(top, u, step_).ack, step_, actor(top, u)));
    }
    top.up_ok = step_;
    if (me == top.lroot(root_)) publish(top.release->ack, step_, sleepy_);  // the ack moves on every step
    result_ = area;
    return {};
  }

  Status down(const std::byte* up_result) {
    const std::byte* from = nullptr;
    const Lane* from_lane = nullptr;
    if (top_member_) {  // received at the top lane, as a member receives a release
      from = result_;
      from_lane = &lanes_.back();
      if (verdict_ == 0) p_.deliver(k_ - 1, from_lane, from);
    } else if (m_ < k_) {
      Lane& l = lanes_[static_cast<std::size_t>(m_)];
      CtrlLine& rel = *l.release;
      OSMP_RETURN_IF_ERROR(wait_flag(e_, rel.ready, step_, actor(l, l.lroot(root_))));
      l.up_ok = step_;  // released: everything up to this step was consumed
      if (kind_.header) verdict_ = rel.ready.reserved;  // acquired with `ready`
      std::size_t len = p_.down_len(l);
      from = len ? down_ptr(l, len, step_) : nullptr;
      from_lane = &l;
      if (verdict_ == 0 || !kind_.header) p_.deliver(m_, &l, from);
    } else {
      from = (verdict_ == 0 || !kind_.header) ? p_.top_down(up_result ? up_result : result_) : nullptr;
      if (verdict_ == 0 || !kind_.header) p_.deliver(k_, nullptr, from);
    }
    for (int j = lroots_ - 1; j >= 0; --j) {  // release the groups I lead, top-down
      Lane& l = lanes_[static_cast<std::size_t>(j)];
      std::size_t len = p_.down_len(l);
      std::byte* area = len ? down_ptr(l, len, step_) : nullptr;
      if (len > kInlineBytes && !kind_.up && kind_.first_chunk && step_ >= kind_.first_chunk + 2) {
        // Down-only chunk step: the members must be done with two steps ago.
        for (int u = 0; u < l.n(); ++u) {
          if (u == l.g->me) continue;
          OSMP_RETURN_IF_ERROR(wait_flag(e_, mline(l, u, step_).ack, step_ - 2, actor(l, u)));
        }
      }
      if (area && (verdict_ == 0 || !kind_.header)) forward(from_lane, l, from, area);
      CtrlLine& rel = *l.release;
      if (!kind_.up) {  // the ack moves on every step, so that slot_free() never waits on a gap
        publish(rel.ack, step_, sleepy_);
        l.up_ok = step_;
      }
      if (kind_.header) rel.ready.reserved = verdict_;
      publish(rel.ready, step_, sleepy_);  // after the data and the verdict
      if (verdict_ == 0 || !kind_.header) p_.deliver(j, &l, area);
      from = area;
      from_lane = &l;
    }
    if (m_ < k_ && !top_member_ && !kind_.up) {  // down-only chunk step: tell my local root I am done
      Lane& l = lanes_[static_cast<std::size_t>(m_)];
      publish(mline(l, l.g->me, step_).ack, step_, sleepy_);
    }
    return {};
  }

  // The compositions of hooks, here so that they call P's hooks directly.
  std::size_t sym_len(const Lane& l, int u) const {
    if constexpr (requires { p_.sym_len(l, u); }) return p_.sym_len(l, u);
    return p_.up_len(l, u);
  }

  std::size_t sym_max_len(const Lane& l) const {
    if constexpr (requires { p_.sym_max_len(l); }) return p_.sym_max_len(l);
    std::size_t most = 0;
    for (int u = 0; u < l.n(); ++u) most = std::max(most, sym_len(l, u));
    return most;
  }

  const std::byte* sym_down(Lane& l, const std::byte* const* src, std::byte* scratch) {
    if constexpr (requires { p_.sym_down(l, src, scratch); }) {
      return p_.sym_down(l, src, scratch);
    } else {
      std::byte* out = p_.top_up_out(nullptr);
      if (!out) out = scratch;
      l.order.resize(static_cast<std::size_t>(l.n()));
      for (int u = 0; u < l.n(); ++u) l.order[static_cast<std::size_t>(u)] = u;
      p_.combine(l, src, l.order.data(), l.n(), out);
      p_.at_top(out);
      return p_.top_down(out);
    }
  }

  void forward(const Lane* parent, const Lane& child, const std::byte* from, std::byte* out) {
    if constexpr (requires { p_.forward(parent, child, from, out); }) {
      p_.forward(parent, child, from, out);
    } else {
      std::size_t len = p_.down_len(child);
      if (len && from != out) copy_to_shared(out, from, len);
    }
  }

  Engine& e_;
  P& p_;
  StepKind kind_;
  std::uint64_t step_;
  OpHeader header_;
  StatusWord status_;
  int root_;
  std::vector<Lane>& lanes_;
  int k_;
  bool sleepy_;
  std::size_t uniform_;
  bool shared_out_ = false;
  std::size_t out_len_ = 0;
  int m_ = 0;
  int lroots_ = 0;
  bool sym_ = false;
  bool slices_ = false;
  bool top_member_ = false;
  StatusWord verdict_ = 0;
  const std::byte* result_ = nullptr;
};


}  // namespace step_detail

template <class P>
Status run_step(Engine& e, P& p, const StepKind& kind, std::uint64_t step, const OpHeader& header,
                StatusWord local, int root) {
  step_detail::StepRun<P> r(e, p, kind, step, header, local, root);
  OSMP_RETURN_IF_ERROR(r.run());
  if (kind.header && r.verdict() != 0) {
    return verdict_error(r.verdict(), header, e.team().rank());
  }
  return {};
}

}  // namespace osmp
