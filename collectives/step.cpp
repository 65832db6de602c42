#include "collectives/step.hpp"

#include <algorithm>
#include <cstring>

namespace osmp {
namespace {

std::byte* up_ptr(const Lane& l, std::size_t len, int u, std::uint64_t step) {
  return len <= kInlineBytes ? inline_of(l.g->member_line(u)) : l.g->slot(static_cast<int>(step % kBuffers), u);
}

std::byte* down_ptr(const Lane& l, std::size_t len, std::uint64_t step) {
  return len <= kInlineBytes ? inline_of(l.g->leader_line(0)) : l.g->bcast_area(static_cast<int>(step % kBuffers));
}

Status wait_flag(Engine& e, const Flag& f, std::uint64_t target, int peer) {
  WaitStatus ws = e.team().waiter().wait(f, target, peer);
  return ws == WaitStatus::ok ? Status{} : e.team().fail(ws);
}

// The k-nomial tree over a group's units, relabelled so the local root is 0.
struct Knomial {
  int n, k, root;
  int rel(int u) const { return (u - root + n) % n; }
  int unit(int v) const { return (v + root) % n; }
  // Children of relabelled v, ascending: v+1..v+k-1, then v+k, v+2k, ...
  std::vector<int> children(int v) const {
    std::vector<int> out;
    for (long p = 1; p < n; p *= k) {
      if (v % (p * k) != 0) break;
      for (int d = 1; d < k; ++d) {
        long c = v + d * p;
        if (c < n) out.push_back(static_cast<int>(c));
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

class StepRun {
 public:
  StepRun(Engine& e, Payload& p, const StepKind& kind, std::uint64_t step, const OpHeader& h,
          StatusWord local, int root)
      : e_(e), p_(p), kind_(kind), step_(step), header_(h), status_(local), root_(root),
        lanes_(e.lanes()), k_(static_cast<int>(lanes_.size())) {}

  Status run() {
    find_role();
    const std::byte* mine = p_.own_up();
    if (kind_.up) OSMP_RETURN_IF_ERROR(up(mine));
    if (kind_.down) OSMP_RETURN_IF_ERROR(down(mine));
    return {};
  }

  StatusWord verdict() const { return verdict_; }

 private:
  // Local root of lanes 0..m-1, an ordinary member of lane m (m == k: the top).
  void find_role() {
    m_ = 0;
    while (m_ < k_ && lanes_[static_cast<std::size_t>(m_)].g->me == lanes_[static_cast<std::size_t>(m_)].lroot(root_)) ++m_;
  }

  int actor(const Lane& l, int u) const { return l.g->actor(u, root_); }

  // Waits for the units this rank collects from in lane l (all others for a
  // flat local root; its k-nomial children otherwise), checks their headers,
  // and returns the units to combine, in order, with src[] filled.
  Status collect(Lane& l, bool lroot, std::vector<int>& order, std::vector<const std::byte*>& src) {
    const int n = l.n(), me = l.g->me, lr = l.lroot(root_);
    std::vector<int> from;
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
      for (int v : t.children(t.rel(me))) {
        order.push_back(t.unit(v));
        from.push_back(t.unit(v));
      }
    }
    src.assign(static_cast<std::size_t>(n), nullptr);
    for (int u : from) {
      CtrlLine& line = l.g->member_line(u);
      OSMP_RETURN_IF_ERROR(wait_flag(e_, line.ready, step_, actor(l, u)));
      if (kind_.header && status_ == 0) {
        // Acquired with `ready`: the header and status word were written before it.
        if (line.ready.reserved != 0) {
          status_ = line.ready.reserved;
        } else if (Field f = compare(*header_of(line), header_); f != Field::none) {
          status_ = make_status(Errc::mismatch, f, actor(l, u));
        }
      }
      src[static_cast<std::size_t>(u)] = up_ptr(l, p_.up_len(l, u), u, step_);
    }
    return {};
  }

  // Before a slot of lane l is written again, its local root must have
  // consumed what was written there two steps ago. A release seen since says
  // so; after up-only steps (chunked reduce), whose writers move on without
  // waiting, only the local root's ack does.
  Status slot_free(Lane& l, std::size_t len) {
    if (len <= kInlineBytes || step_ < 2 || reached(l.up_ok, step_ - 2)) return {};
    OSMP_RETURN_IF_ERROR(wait_flag(e_, l.g->leader_line(0).ack, step_ - 2, actor(l, l.lroot(root_))));
    l.up_ok = step_ - 2;
    return {};
  }

  Status up(const std::byte*& mine) {
    for (int j = 0; j < m_; ++j) {  // local root
      Lane& l = lanes_[static_cast<std::size_t>(j)];
      std::vector<int> order;
      std::vector<const std::byte*> src;
      OSMP_RETURN_IF_ERROR(collect(l, true, order, src));
      src[static_cast<std::size_t>(l.g->me)] = mine;
      std::byte* out = nullptr;
      if (j + 1 < m_) {
        out = e_.scratch(j % 2);
      } else if (m_ < k_) {  // j + 1 == m_: straight into my area in the next lane
        Lane& parent = lanes_[static_cast<std::size_t>(m_)];
        std::size_t len = p_.up_len(parent, parent.g->me);
        OSMP_RETURN_IF_ERROR(slot_free(parent, len));
        out = up_ptr(parent, len, parent.g->me, step_);
      } else {
        const Lane& top = lanes_.back();
        out = p_.top_up_out(down_ptr(top, p_.down_len(top), step_));
        if (!out) out = e_.scratch(j % 2);
      }
      if (status_ == 0 || !kind_.header) {
        p_.combine(l, src.data(), order.data(), static_cast<int>(order.size()), out);
      }
      // Consumed: the slots of this step may be written again (slot_free()).
      publish(l.g->leader_line(0).ack, step_, e_.team().waiter().may_sleep());
      l.up_ok = step_;
      mine = out;
    }
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
      std::memcpy(area, mine, len);
    }
    if (l.base.kind == BaseCase::Kind::knomial && !p_.flat_only()) {
      std::vector<int> order;
      std::vector<const std::byte*> src;
      OSMP_RETURN_IF_ERROR(collect(l, false, order, src));
      if (order.size() > 1 && (status_ == 0 || !kind_.header)) {
        src[static_cast<std::size_t>(me)] = area;
        p_.combine(l, src.data(), order.data(), static_cast<int>(order.size()), area);
      }
    }
    CtrlLine& line = l.g->member_line(me);
    if (kind_.header) {
      *header_of(line) = header_;
      line.ready.reserved = status_;
    }
    publish(line.ready, step_, e_.team().waiter().may_sleep());  // after data, header, status
    return {};
  }

  Status down(const std::byte* up_result) {
    const std::byte* from = nullptr;
    const Lane* from_lane = nullptr;
    if (m_ < k_) {
      Lane& l = lanes_[static_cast<std::size_t>(m_)];
      CtrlLine& rel = l.g->leader_line(0);
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
    for (int j = std::min(m_, k_) - 1; j >= 0; --j) {  // release the groups I lead, top-down
      Lane& l = lanes_[static_cast<std::size_t>(j)];
      std::size_t len = p_.down_len(l);
      std::byte* area = len ? down_ptr(l, len, step_) : nullptr;
      if (len > kInlineBytes && !kind_.up && kind_.first_chunk && step_ >= kind_.first_chunk + 2) {
        // Down-only chunk step: the members must be done with two steps ago.
        for (int u = 0; u < l.n(); ++u) {
          if (u == l.g->me) continue;
          OSMP_RETURN_IF_ERROR(wait_flag(e_, l.g->member_line(u).ack, step_ - 2, actor(l, u)));
        }
      }
      if (area && (verdict_ == 0 || !kind_.header)) p_.forward(from_lane, l, from, area);
      CtrlLine& rel = l.g->leader_line(0);
      if (!kind_.up) {  // the ack moves on every step, so that slot_free() never waits on a gap
        publish(rel.ack, step_, e_.team().waiter().may_sleep());
        l.up_ok = step_;
      }
      if (kind_.header) rel.ready.reserved = verdict_;
      publish(rel.ready, step_, e_.team().waiter().may_sleep());  // after the data and the verdict
      if (verdict_ == 0 || !kind_.header) p_.deliver(j, &l, area);
      from = area;
      from_lane = &l;
    }
    if (m_ < k_ && !kind_.up) {  // down-only chunk step: tell my local root I am done
      publish(lanes_[static_cast<std::size_t>(m_)].g->member_line(lanes_[static_cast<std::size_t>(m_)].g->me).ack,
              step_, e_.team().waiter().may_sleep());
    }
    return {};
  }

  Engine& e_;
  Payload& p_;
  StepKind kind_;
  std::uint64_t step_;
  OpHeader header_;
  StatusWord status_;
  int root_;
  std::vector<Lane>& lanes_;
  int k_;
  int m_ = 0;
  StatusWord verdict_ = 0;
  const std::byte* result_ = nullptr;
};

}  // namespace

void Payload::forward(const Lane* /*parent*/, const Lane& child, const std::byte* from, std::byte* out) {
  std::size_t len = down_len(child);
  if (len && from != out) std::memcpy(out, from, len);
}

Status run_step(Engine& e, Payload& p, const StepKind& kind, std::uint64_t step, const OpHeader& header,
                StatusWord local, int root) {
  StepRun r(e, p, kind, step, header, local, root);
  OSMP_RETURN_IF_ERROR(r.run());
  if (kind.header && r.verdict() != 0) {
    return verdict_error(r.verdict(), header, e.team().rank());
  }
  return {};
}

Status verdict_error(StatusWord w, const OpHeader& h, int me) {
  const char* op = to_string(static_cast<OpKind>(h.kind));
  int rank = status_rank(w);
  Errc code = status_code(w);
  switch (status_field(w)) {
    case Field::args:
      return Status(code, rank == me ? cat(op, ": invalid arguments")
                                     : cat(op, ": rank ", rank, " passed invalid arguments"));
    case Field::none: return Status(code, cat(op, ": failed on rank ", rank));
    default: break;
  }
  const char* field = "";
  switch (status_field(w)) {
    case Field::kind: field = "operation"; break;
    case Field::dtype: field = "datatype"; break;
    case Field::op: field = "reduction op"; break;
    case Field::count: field = "count"; break;
    case Field::root: field = "root"; break;
    default: break;
  }
  return Status(code, cat(op, ": ranks disagree on the ", field, " (rank ", rank,
                          " differs from its group's root); every rank must pass the same"));
}

}  // namespace osmp
