// One step of an operation on this rank: the walk up its groups, then down
// (STYLE.md item 3: drivers that walk levels). Operations plug in through
// Payload: what goes up and how it combines, what comes down and where it goes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "collectives/engine.hpp"

namespace osmp {

// What an operation moves in a step; the engine moves it.
class Payload {
 public:
  virtual ~Payload() = default;
  // Concatenating payloads (gather) need every unit in unit order: flat only.
  virtual bool flat_only() const { return false; }
  // Up: bytes unit `u` of lane `l` sends (0: nothing goes up).
  virtual std::size_t up_len(const Lane& /*l*/, int /*u*/) const { return 0; }
  // My own contribution at the bottom of the walk.
  virtual const std::byte* own_up() { return nullptr; }
  // A local root combines the contributions of `units` (in that order; src[u]
  // is unit u's data) into `out`.
  virtual void combine(const Lane& /*l*/, const std::byte* const* /*src*/, const int* /*units*/, int /*n*/,
                       std::byte* /*out*/) {}
  // Where the top local root puts the result of the last combine (nullptr:
  // the engine's scratch; `down_area` is the top lane's down area, for
  // operations whose up result is also what comes down).
  virtual std::byte* top_up_out(std::byte* /*down_area*/) { return nullptr; }
  // Called on the top local root with the full up result.
  virtual void at_top(const std::byte* /*result*/) {}

  // Down: bytes the local root of lane `l` sends (0: only the verdict).
  virtual std::size_t down_len(const Lane& /*l*/) const { return 0; }
  // What the top local root sends down (may be the up result it just built).
  virtual const std::byte* top_down(const std::byte* up_result) { return up_result; }
  // Fills lane `child`'s down area from what reached this rank one level up
  // (`parent` is null at the top). Default: the same bytes.
  virtual void forward(const Lane* parent, const Lane& child, const std::byte* from, std::byte* out);
  // The down data as seen at lane `lane` (k = the top, where `l` is null);
  // called top-down for every lane this rank takes part in.
  virtual void deliver(int /*lane*/, const Lane* /*l*/, const std::byte* /*data*/) {}
};

struct StepKind {
  bool header = false;  // headers go up and the verdict comes down (first step of an op)
  bool up = false;      // an up phase
  bool down = false;    // a down phase
  // Chunk steps after the first: up-only steps need the local root's ack
  // before a slot is reused, down-only steps the members' acks.
  std::uint64_t first_chunk = 0;  // the op's first chunk step (0: none)
};

// Runs one step. `header` is this rank's view of the op, `local` its own
// argument check. Returns the verdict (header steps) or ok.
Status run_step(Engine& e, Payload& p, const StepKind& kind, std::uint64_t step, const OpHeader& header,
                StatusWord local, int root);

// The error every rank reports for a verdict.
Status verdict_error(StatusWord w, const OpHeader& h, int me);

}  // namespace osmp
