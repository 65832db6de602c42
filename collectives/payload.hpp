// What an operation moves in a step, as hooks the base cases call
// (collectives/base/). The stages are templates over the payload class, so
// no hook is virtual: a payload derives from Payload, hides the defaults it
// replaces, and may add the optional hooks below; PayloadHooks checks that a
// class has them all with the right signatures. Whether a step runs the
// symmetric top, slices or flat groups is the plan's (plan.hpp), not the
// payload's.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "collectives/engine.hpp"
#include "shm/copy.hpp"

namespace osmp {

class Payload {
 public:
  // Up: bytes unit `u` of lane `l` sends (0: nothing goes up).
  std::size_t up_len(const Lane& /*l*/, int /*u*/) const { return 0; }
  // The same for every unit and lane, when it is (saves a call per unit):
  // kVaries otherwise.
  static constexpr std::size_t kVaries = ~std::size_t{0};
  std::size_t uniform_up_len() const { return 0; }
  // My own contribution at the bottom of the walk.
  const std::byte* own_up() { return nullptr; }
  // A local root combines the contributions of `units` (in that order;
  // w.src[u] is unit u's data) into `out`.
  void combine(const Lane& /*l*/, LaneWork& /*w*/, const int* /*units*/, int /*n*/, std::byte* /*out*/) {}
  // Where the top local root puts the result of the last combine (nullptr:
  // the engine's scratch; `down_area` is the top lane's down area, for
  // operations whose up result is also what comes down).
  std::byte* top_up_out(std::byte* /*down_area*/) { return nullptr; }
  // Called on the top local root with the full up result.
  void at_top(const std::byte* /*result*/) {}
  // Symmetric top: what this rank publishes there.
  const std::byte* sym_mine(const std::byte* mine) { return mine; }
  // Slices: combine elements [off, off + n) of every unit's data (w.src) in
  // unit order into `out`. Reductions only.
  void combine_slice(const Lane& /*l*/, LaneWork& /*w*/, std::size_t /*off*/, std::size_t /*n*/, std::byte* /*out*/) {}
  std::size_t elements() const { return 0; }
  std::size_t element_size() const { return 1; }
  // Down: bytes the local root of lane `l` sends (0: only the verdict).
  std::size_t down_len(const Lane& /*l*/) const { return 0; }
  // What the top local root sends down (may be the up result it just built).
  const std::byte* top_down(const std::byte* up_result) { return up_result; }
  // The down data as seen at lane `lane` (k = the top, where `l` is null);
  // called top-down for every lane this rank takes part in.
  void deliver(int /*lane*/, const Lane* /*l*/, const std::byte* /*data*/) {}

  // Optional hooks (defaults in the functions below):
  //   sym_len(lane, u): what unit u publishes at a symmetric top (default up_len).
  //   sym_down(top lane, work, scratch): what comes down from a symmetric top
  //     (default: every unit's data combined in unit order, into the top output
  //     or `scratch`, then top_down() of it).
  //   forward(parent, child, from, out): fills lane `child`'s down area from
  //     what reached this rank one level up (`parent` null at the top; default:
  //     the same down_len(child) bytes).
  //   put_up(area, mine, len): writes this rank's own `len` bytes up into its
  //     line or slot `area` at the bottom of the walk (default: a copy of
  //     `mine`, own_up()): a payload whose own contribution is not one piece
  //     of memory (the lazy gatherv's row: its length, then its block).
  //   data_error(): what the data of a one-pass step showed to be wrong, as a
  //     status word (0: nothing; default 0): the lazy gatherv's root or
  //     scatterv's receivers, whose rows carry each rank's length
  //     (ops/rows.cpp). Read once the step's data moved, before its ack
  //     (take_data_error).
};

// The hooks every payload has (from Payload or its own), checked at compile time.
template <class P>
concept PayloadHooks =
    std::derived_from<P, Payload> &&
    requires(P& p, const P& cp, const Lane& l, LaneWork& w, const int* units, std::byte* out, const std::byte* in) {
      { cp.up_len(l, 0) } -> std::same_as<std::size_t>;
      { cp.uniform_up_len() } -> std::same_as<std::size_t>;
      { p.own_up() } -> std::convertible_to<const std::byte*>;
      p.combine(l, w, units, 0, out);
      { p.top_up_out(out) } -> std::convertible_to<std::byte*>;
      p.at_top(in);
      { p.sym_mine(in) } -> std::convertible_to<const std::byte*>;
      p.combine_slice(l, w, std::size_t{0}, std::size_t{0}, out);
      { cp.elements() } -> std::same_as<std::size_t>;
      { cp.element_size() } -> std::same_as<std::size_t>;
      { cp.down_len(l) } -> std::same_as<std::size_t>;
      { p.top_down(in) } -> std::convertible_to<const std::byte*>;
      p.deliver(0, &l, in);
    };

template <class P>
concept HasSymLen = requires(const P& p, const Lane& l) {
  { p.sym_len(l, 0) } -> std::same_as<std::size_t>;
};
template <class P>
concept HasSymDown = requires(P& p, const Lane& l, LaneWork& w, std::byte* s) {
  { p.sym_down(l, w, s) } -> std::convertible_to<const std::byte*>;
};
template <class P>
concept HasForward = requires(P& p, const Lane* parent, const Lane& child, const std::byte* from, std::byte* out) {
  p.forward(parent, child, from, out);
};

template <class P>
concept HasPutUp = requires(P& p, std::byte* area, const std::byte* mine) { p.put_up(area, mine, std::size_t{0}); };
template <class P>
concept HasDataError = requires(const P& p) {
  { p.data_error() } -> std::same_as<StatusWord>;
};
// Counts a blocking step's cross-rank waits: every flag of another rank's
// that the step must see (StepState::need), reached yet or not, so the
// count is the schedule's whatever the timing (a step resumed by hand asks
// again for a flag not reached); not the acks that free the lines for
// reuse. No operation's payload has it (it costs nothing there): a test's
// (tests/unit/collectives/base_cases_test.cpp).
template <class P>
concept CountsWaits = requires(P& p) { p.waited(0); };

// The optional hooks with their defaults, calling P's own hooks directly.
template <PayloadHooks P>
std::size_t sym_len(const P& p, const Lane& l, int u) {
  if constexpr (HasSymLen<P>) return p.sym_len(l, u);
  return p.up_len(l, u);
}

template <PayloadHooks P>
const std::byte* sym_down(P& p, const Lane& l, LaneWork& w, std::byte* scratch) {
  if constexpr (HasSymDown<P>) {
    return p.sym_down(l, w, scratch);
  } else {
    std::byte* out = p.top_up_out(nullptr);
    if (!out) out = scratch;
    w.all_units(l.n());
    p.combine(l, w, w.order.data(), l.n(), out);
    p.at_top(out);
    return p.top_down(out);
  }
}

template <PayloadHooks P>
void put_up(P& p, std::byte* area, const std::byte* mine, std::size_t len) {
  if constexpr (HasPutUp<P>) {
    p.put_up(area, mine, len);
  } else {
    copy_to_shared(area, mine, len);
  }
}

template <PayloadHooks P>
void forward(P& p, const Lane* parent, const Lane& child, const std::byte* from, std::byte* out) {
  if constexpr (HasForward<P>) {
    p.forward(parent, child, from, out);
  } else {
    std::size_t len = p.down_len(child);
    if (len && from != out) copy_to_shared(out, from, len);
  }
}

}  // namespace osmp
