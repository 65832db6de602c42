// One step of an operation on this rank: the walk up its groups, then down
// (STYLE.md item 3: drivers that walk levels). Operations plug in through
// Payload: what goes up and how it combines, what comes down and where it goes.
// The executor (step_impl.hpp) is a template over the payload class, so the
// hooks below are not virtual: a payload hides the defaults it replaces.
// Defaults that use other hooks live in the executor (they must see the
// payload's own hooks, which a base-class body would not).
#pragma once

#include <cstddef>
#include <cstdint>

#include "collectives/engine.hpp"

namespace osmp {

// What an operation moves in a step; the engine moves it.
class Payload {
 public:
  // Concatenating payloads (gather) need every unit in unit order: flat only.
  bool flat_only() const { return false; }
  // Up: bytes unit `u` of lane `l` sends (0: nothing goes up).
  std::size_t up_len(const Lane& /*l*/, int /*u*/) const { return 0; }
  // The same for every unit and lane, when it is (saves a call per unit):
  // kVaries otherwise.
  static constexpr std::size_t kVaries = ~std::size_t{0};
  std::size_t uniform_up_len() const { return 0; }
  // My own contribution at the bottom of the walk.
  const std::byte* own_up() { return nullptr; }
  // A local root combines the contributions of `units` (in that order; src[u]
  // is unit u's data) into `out`.
  void combine(Lane& /*l*/, const std::byte* const* /*src*/, const int* /*units*/, int /*n*/,
                       std::byte* /*out*/) {}
  // Where the top local root puts the result of the last combine (nullptr:
  // the engine's scratch; `down_area` is the top lane's down area, for
  // operations whose up result is also what comes down).
  std::byte* top_up_out(std::byte* /*down_area*/) { return nullptr; }
  // Called on the top local root with the full up result.
  void at_top(const std::byte* /*result*/) {}

  // The symmetric top (small groups, one-step operations with inline data):
  // every top member publishes and reads every other's line, then computes the
  // result itself, in unit order, so all get the same bits.
  bool symmetric_ok() const { return false; }
  // Whether data too large for a line may go symmetric through the slots
  // (OSMP_SYMMETRIC_SLOT_MAX): where every member needs the whole result.
  bool sym_slots_ok() const { return false; }
  // May add sym_len(lane, u), what unit u publishes at the top (default: up_len).
  // What this rank publishes there.
  // May add sym_max_len(top lane): the largest sym_len (default: asks each unit).
  const std::byte* sym_mine(const std::byte* mine) { return mine; }
  // May add sym_down(top lane, src, scratch): what comes down from the top;
  // by default every unit's data combined in unit order (into the top output,
  // else `scratch`), then top_down() of it.

  // Slices (StepKind::slices): combine elements [off, off + n) of every
  // unit's data in unit order into `out`. Reductions only.
  void combine_slice(Lane& /*l*/, const std::byte* const* /*src*/, std::size_t /*off*/, std::size_t /*n*/,
                     std::byte* /*out*/) {}
  std::size_t elements() const { return 0; }
  std::size_t element_size() const { return 1; }

  // Down: bytes the local root of lane `l` sends (0: only the verdict).
  std::size_t down_len(const Lane& /*l*/) const { return 0; }
  // What the top local root sends down (may be the up result it just built).
  const std::byte* top_down(const std::byte* up_result) { return up_result; }
  // A payload may add: forward(parent, child, from, out), which fills lane
  // `child`'s down area from what reached this rank one level up (`parent`
  // null at the top; default: the same down_len(child) bytes).
  // The down data as seen at lane `lane` (k = the top, where `l` is null);
  // called top-down for every lane this rank takes part in.
  void deliver(int /*lane*/, const Lane* /*l*/, const std::byte* /*data*/) {}
};

struct StepKind {
  bool header = false;  // headers go up and the verdict comes down (first step of an op)
  bool only = false;    // the whole operation is this one step (the symmetric top needs it)
  // A reduction chunk: at a small top group, reduce-scatter then allgather
  // among its members instead of one local root doing all the work.
  bool slices = false;
  bool up = false;      // an up phase
  bool down = false;    // a down phase
  // Chunk steps after the first: up-only steps need the local root's ack
  // before a slot is reused, down-only steps the members' acks.
  std::uint64_t first_chunk = 0;  // the op's first chunk step (0: none)
};

// run_step<P>(engine, payload, kind, step, header, local, root) runs one step
// (step_impl.hpp). `header` is this rank's view of the op, `local` its own
// argument check. Returns the verdict (header steps) or ok.

// The error every rank reports for a verdict (for a mismatch, only until
// Engine::run() has every rank's header to say who differs).
Status verdict_error(StatusWord w, const OpHeader& h, int me);

}  // namespace osmp
