// The blocking step of a team whose tree is one group (the teams with unit
// acks: Engine::unit_acks), for the four kinds of step their small calls
// take (OneGroupKind): one pass down (bcast, scatter), one pass up over a
// flat group (reduce, gather), one pass through the prefix top (scan,
// exscan), a round trip through the symmetric top (barrier, allreduce,
// allgather, reduce_scatter_block, alltoall). It is the protocol of the
// Walk's stages for one flat lane whose units are ranks (take_release,
// start_down, release_lane; flat_sources, Collect, the top's output,
// reached_top; the symmetric and prefix tops), in their order, through the
// same line helpers (base/stage.hpp: publish_line, line_status,
// publish_release, release_status), so ranks on either meet in a step (a
// rank whose call takes the general path runs the Walk;
// BaseCases.OneGroupStepMeetsTheWalk runs them mixed). What it leaves out
// is the Walk's bookkeeping for resuming and for trees of several lanes,
// and the stages' state in memory, which every acquire load made the
// compiler reload: about a third of a small call's instructions
// (callcost.sh).
#pragma once

#include "collectives/base/fan_in.hpp"
#include "collectives/base/fan_out.hpp"
#include "collectives/base/prefix.hpp"
#include "collectives/base/stage.hpp"
#include "collectives/base/symmetric.hpp"

namespace osmp {

// What a one-group step of kind K found, by the names StepState gives them
// (step_to_raise and inline_step_result read it, walk.hpp).
template <OneGroupKind K>
struct OneGroupFound {
  static constexpr FixedStep<K> plan{};
  static constexpr bool unit_acks = true;
  const OpHeader& header;  // this rank's view of the op
  StatusWord verdict = 0;
  StatusWord found = 0;
  OpHeader seen{};  // the header that differed from mine, of rank seen_rank
  int seen_rank = -1;
};

// A step of kind K on this rank, blocking: one function with every wait in
// place and its state in locals.
template <PayloadHooks P, OneGroupKind K>
class OneGroupStep {
 public:
  OneGroupStep(Engine& e, P& p, const StepPlan&, std::uint64_t step, const OpHeader& header, StatusWord local, int root)
      : e_(e), p_(p), step_(step), local_(local), root_(root), found_{header} {}

  // The step on this rank: ok, or why a wait failed (a dead peer, an abort,
  // a timeout, an error raised elsewhere); state() says what it found.
  Status run() { return step(e_, p_, step_, found_.header, local_, root_, found_); }
  const OneGroupFound<K>& state() const { return found_; }

  // The step itself, out of line and with everything it works with in
  // locals: nothing to reload after an acquire, and a frame of its own
  // (inlined into a call, its state was spilled around every wait).
  [[gnu::noinline]] static Status step(Engine& e, P& p, std::uint64_t step, const OpHeader& header, StatusWord local,
                                       int root, OneGroupFound<K>& out) {
    StatusWord status = local, decided = 0, finding = 0;  // out's verdict and found, set at the end
    const std::byte* result = nullptr;                    // what the top produced
    Lane& l = e.lanes().front();
    LaneWork& w = e.work().front();
    Waiter& waiter = e.team().waiter();
    const bool sleepy = waiter.may_sleep();
    const int me = l.g->me, n = l.n();
    CtrlLine* const* lines = l.member[parity(step)].data();
    const int* ranks = l.g->members.data();  // who writes unit u's lines: its rank
    WaitStatus ws = WaitStatus::ok;
    // Waits in place for unit u's flag `f` to reach `target`; a wait past
    // its first poll watches my header (Engine::watch_step: a long wait's
    // peek() compares it with the others' call records).
    auto wait = [&](const Flag& f, std::uint64_t target, int u) {
      e.watch_step(&header);
      ws = waiter.wait(f, target, ranks[u]);
      e.watch_step(nullptr);
      return ws == WaitStatus::ok;
    };
    auto need = [&](const Flag& f, std::uint64_t target, int u) {
      if constexpr (CountsWaits<P>) p.waited(ranks[u]);
      return poll(f, target) || wait(f, target, u);
    };
    // StepState::check: unit u's status, or its header against `against`.
    auto take = [&](const CtrlLine& line, const OpHeader& against, int u) {
      if (status != 0) return;
      if (const StatusWord s = line_status(line, against, ranks[u]); s != 0) [[unlikely]] {
        status = s;
        if (line.ready.word == 0) saw(out, line, ranks[u]);  // a header that differed
      }
    };
    // StepState::reuse_one_lane: every unit acked the step two before, which
    // used these lines and areas; then stop_if_raised.
    if (step >= 2 && !reached(l.done_all, step - 2)) {
      for (int u = 0; u < n; ++u) {
        if (u == me || poll(lines[u]->ack, step - 2)) continue;
        if (!wait(lines[u]->ack, step - 2, u)) return e.team().fail(ws);
      }
      l.done_all = step - 2;
    }
    if (e.error_pending()) [[unlikely]]
      return e.team().fail(WaitStatus::stale);
    CtrlLine& mine = *lines[me];
    const int lroot = l.lroot(root);
    if constexpr (K == OneGroupKind::down) {
      // One pass down (take_release, start_down, release_lane): my header in
      // my line first, unread otherwise (a peer on another plan may wait for
      // it, and compare: Walk::progress).
      publish_line(mine, header, status, step, sleepy);
      CtrlLine& rel = rel_line(l, step);
      const std::size_t len = p.down_len(l);
      if (me != lroot) {
        if (!need(rel.ready, step, lroot)) return e.team().fail(ws);
        l.up_ok = step;  // released: everything up to this step was consumed
        decided = rel.ready.word;
        if (decided == 0) {
          // check_release: a one-pass member compares its lane's root's header.
          if (const StatusWord s = release_status(rel, header, e.team().rank()); s != 0) [[unlikely]] {
            decided = s;
            saw_release(e, out, rel, l);
          } else {
            decided = status;
          }
          finding = decided;
        }
        if (decided == 0) p.deliver(0, &l, len ? down_ptr(l, len, step) : nullptr);
      } else {
        decided = status;
        std::byte* area = len ? down_ptr(l, len, step) : nullptr;
        if (decided == 0) {
          const std::byte* from = p.top_down(p.own_up());
          p.deliver(1, nullptr, from);
          if (area) forward(p, nullptr, l, from, area);
        }
        l.up_ok = step;
        publish_release(rel, decided, header, step, sleepy);  // after the data
        if (decided == 0) p.deliver(0, &l, area);
      }
    } else if constexpr (K == OneGroupKind::up) {
      // One pass up a flat lane (RootUp, MemberUp and the top, for one lane).
      if (me != lroot) {
        const std::size_t len = up_len(p, l, me);
        if (len) put_up(p, up_ptr(l, len, me, step), p.own_up(), len);
        publish_line(mine, header, status, step, sleepy);  // after the data
      } else {
        // My header too, for peers that (disagreeing on the count) took the
        // symmetric top and wait for my line (RootUp).
        publish_line(mine, header, status, step, sleepy);
        flat_sources(n, me, true, w);
        for (const int u : w.from) {
          CtrlLine& line = *lines[u];
          if (!need(line.ready, step, u)) return e.team().fail(ws);
          take(line, header, u);
          w.src[static_cast<std::size_t>(u)] = up_ptr(l, up_len(p, l, u), u, step);
        }
        w.src[static_cast<std::size_t>(me)] = p.own_up();
        if (!reached(l.done_all, step - 1)) l.done_all = step - 1;  // all_finished_before
        // The top's output (up_out at the top: never waits).
        const std::size_t down = p.down_len(l);
        std::byte* area = down_ptr(l, down, step);
        std::byte* top = p.top_up_out(area);
        const UpOut o{top ? top : e.scratch(0), top == area && down > kInlineBytes ? down : 0};
        if (status == 0) combine_flat(e, p, l, w, o);
        l.up_ok = step;
        decided = finding = status;
        if (status == 0) p.at_top(o.out);
      }
    } else {
      // The symmetric top (SymmetricTop) or the prefix top (PrefixTop): my
      // data in my line or slot, my header and status, then the others' lines.
      const std::size_t len = sym_len(p, l, me);
      const std::byte* own = K == OneGroupKind::prefix ? p.own_up() : p.sym_mine(p.own_up());
      std::byte* dst = up_ptr(l, len, me, step);
      if (len && own != dst) {
        if (len > kInlineBytes) {
          copy_to_shared(dst, own, len);
        } else {
          copy_small(dst, own, len);
        }
      }
      publish_line(mine, header, status, step, sleepy);  // after the data
      if constexpr (K == OneGroupKind::prefix) {
        // Against my own header, each rank before mine (in rank order).
        const int my_rank = ranks[me];
        for (int u = 0; u < n; ++u) {
          w.src[static_cast<std::size_t>(u)] = up_ptr(l, sym_len(p, l, u), u, step);
          if (u == me || ranks[u] > my_rank) continue;
          CtrlLine& line = *lines[u];
          if (!need(line.ready, step, u)) return e.team().fail(ws);
          take(line, header, u);
        }
        decided = finding = status;
        if (decided == 0) p.prefix(l, w);
      } else {
        // Every unit in unit order, each header against unit 0's, so that
        // the verdict comes out the same everywhere; mine is in my line.
        status = 0;
        const OpHeader& first = *header_of(*lines[0]);
        for (int u = 0; u < n; ++u) {
          CtrlLine& line = *lines[u];
          if (u != me && !need(line.ready, step, u)) return e.team().fail(ws);
          w.src[static_cast<std::size_t>(u)] = up_ptr(l, sym_len(p, l, u), u, step);
          take(line, first, u);
        }
        decided = status;
        if (decided == 0) result = sym_down(p, l, w, e.scratch(2));
        l.up_ok = step;                                             // every line of this step was read by everyone
        if (!reached(l.done_all, step - 1)) l.done_all = step - 1;  // all_finished_before
        // For peers that (disagreeing on the count) took the local-root
        // path, the release they wait for, with the verdict.
        if (me == lroot) publish_release(rel_line(l, step), decided, header, step, sleepy);
        if (decided == 0) p.deliver(0, &l, result);
      }
    }
    if constexpr (HasDataError<P>) {
      if (FixedStep<K>::one_pass && decided == 0) {  // take_data_error
        if (const StatusWord d = p.data_error()) decided = finding = d;
      }
    }
    out.verdict = decided;
    out.found = finding;
    // What others may not have goes out before my ack (Engine::raise_found).
    if (const StatusWord r = step_to_raise(out)) [[unlikely]]
      e.raise_found(r);
    // Done with everything of this step: its lines and areas may be written
    // again two steps on.
    publish(mine.ack, step, sleepy);
    return {};
  }

 private:
  static std::size_t up_len(const P& p, const Lane& l, int u) {
    const std::size_t uniform = p.uniform_up_len();
    return uniform != Payload::kVaries ? uniform : p.up_len(l, u);
  }
  static void saw(OneGroupFound<K>& out, const CtrlLine& line, int who) {
    out.seen = *header_of(line);
    out.seen_rank = who;
  }
  // The writer of a release whose header differed (check_release).
  static void saw_release(Engine& e, OneGroupFound<K>& out, const CtrlLine& rel, const Lane& l) {
    const int r = header_of(rel)->root;
    const bool here = r >= 0 && r < e.team().size() && l.g->unit_of_rank[static_cast<std::size_t>(r)] >= 0;
    saw(out, rel, here ? r : l.g->actor(0, -1));
  }
  static void combine_flat(Engine& e, P& p, const Lane& l, LaneWork& w, const UpOut& o) {
    std::byte* into = o.shared_len >= nt_threshold() ? e.staging() : o.out;
    p.combine(l, w, w.order.data(), static_cast<int>(w.order.size()), into);
    if (into != o.out) copy_to_shared(o.out, into, o.shared_len);
  }

  Engine& e_;
  P& p_;
  std::uint64_t step_;
  StatusWord local_;
  int root_;
  OneGroupFound<K> found_;
};

}  // namespace osmp
