// Each operation described once: the arguments it takes, which buffers
// each rank reads and writes and how much of them, where MPI's in place is
// allowed, the copy a team of one makes, what the heap's single copy offers
// and stages, the walk and data shape the plan and the cost model weigh,
// and the single copies' thresholds. Each operation's row is its own header
// (collectives/ops/<name>.hpp, in the terms of description.hpp); this file
// gathers them, in osmp_ops.h's order, through collectives/ops/all.hpp,
// which the build writes from osmp_ops.h (collectives/CMakeLists.txt). The
// layers read this instead of switching on the operation: the argument
// checks (arguments.hpp), the team of one (Engine::begin, and the MPI
// glue's one-process call), the heap's single copy (ops/direct.cpp), the
// plan (plan.cpp), the cost model (tuning/model.cpp), the thresholds
// (config.hpp), and the layers that hold the operation as a value
// (engine.hpp's as_called: the MPI glue, osmp-tune). A constexpr table:
// where the operation is a constant (the common call, Engine::run_call)
// every look-up folds away.
#pragma once

#include <array>
#include <cstdint>
#include <iterator>

#include "collectives/ops/all.hpp"  // every collectives/ops/<name>.hpp (generated)
#include "collectives/ops/description.hpp"

namespace osmp {

namespace describe_detail {

// The arguments and the blocks' layout follow from the row's form in
// osmp_ops.h, from which the entry points are generated too.
enum class Form : std::uint8_t { none, buffer, uniform, gathered, scattered, shares, pairs };
#define OSMP_FORM_OF_(name, Name, NAME, key, rooted, reduces, form) Form::form,
inline constexpr Form kForms[] = {OSMP_COLLECTIVES(OSMP_FORM_OF_)};
#undef OSMP_FORM_OF_
constexpr Takes takes_of(Form f) {
  switch (f) {
    case Form::none: return {.send = false, .recv = false, .count = false};
    case Form::buffer: return {.send = false};
    case Form::uniform: return {};
    case Form::gathered:
    case Form::scattered: return {.counts = true, .displs = true};
    case Form::shares: return {.count = false, .counts = true};
    case Form::pairs: return {.count = false, .counts = true, .displs = true, .pairs = true};
  }
  return {};
}
constexpr BlockLayout layout_of(Form f) {
  switch (f) {
    case Form::gathered: return BlockLayout::gathered;
    case Form::scattered: return BlockLayout::scattered;
    case Form::shares: return BlockLayout::shares;
    case Form::pairs: return BlockLayout::pairs;
    default: return BlockLayout::uniform;
  }
}
// Each row of osmp_ops.h's: its header's Description, in the table's order.
#define OSMP_DESCRIPTION_OF_(name, Name, NAME, key, rooted, reduces, form) Description<OpKind::name>::row,
inline constexpr OpDesc kRows[] = {OSMP_COLLECTIVES(OSMP_DESCRIPTION_OF_)};
#undef OSMP_DESCRIPTION_OF_
static_assert(std::size(kRows) == kOpKindCount, "one description per row of osmp_ops.h");
static_assert(std::size(kForms) == kOpKindCount);
// What follows from the row's place and form, and from the operation it
// varies: its kind, its arguments, its blocks' layout, and (gathered,
// scattered) which ranks hold every block: those whose buffer the uniform
// operation fills, or reads, with every rank's.
constexpr std::array<OpDesc, kOpKindCount> with_forms() {
  std::array<OpDesc, kOpKindCount> t{};
  for (int i = 0; i < kOpKindCount; ++i) {
    t[i] = kRows[i];
    t[i].kind = kOpKinds[i];
    t[i].takes = takes_of(kForms[i]);
    t[i].varied.layout = layout_of(kForms[i]);
  }
  for (OpDesc& d : t) {
    const bool gathered = d.varied.layout == BlockLayout::gathered;
    if (!gathered && d.varied.layout != BlockLayout::scattered) continue;
    const OpDesc& u = t[static_cast<std::size_t>(op_index(d.varied.of))];  // varies_uniform: a row
    const ByRole<Amount>& whole = gathered ? u.buffers.recv : u.buffers.send;
    d.varied.holds = {whole.root == Amount::all, whole.other == Amount::all};
  }
  return t;
}
inline constexpr std::array<OpDesc, kOpKindCount> kTable = with_forms();

// A row leaves what with_forms() derives as it was: one source for each.
constexpr bool rows_leave_derived() {
  for (const OpDesc& r : kRows) {
    const Takes t{};
    const bool takes = r.takes.send == t.send && r.takes.recv == t.recv && r.takes.count == t.count &&
                       r.takes.counts == t.counts && r.takes.displs == t.displs && r.takes.pairs == t.pairs;
    if (r.kind != OpKind::barrier || !takes || r.varied.layout != BlockLayout::uniform || r.varied.holds.root ||
        r.varied.holds.other)
      return false;
  }
  return true;
}
static_assert(rows_leave_derived(),
              "a row sets no kind, Takes, Varied::layout or Varied::holds (describe.hpp derives them)");

// A v-variant varies a uniform operation, whose row says it is one.
constexpr bool varies_uniform() {
  for (const OpDesc& d : kTable) {
    if (d.varied.layout == BlockLayout::uniform) continue;
    const int of = op_index(d.varied.of);
    if (of < 0 || kTable[of].varied.layout != BlockLayout::uniform) return false;
  }
  return true;
}
static_assert(varies_uniform(), "a v-variant's `of` is a uniform operation");

}  // namespace describe_detail

// Every caller passes a kind of osmp_ops.h (the entries fix it, configure
// checks the user's); another reads as the first row, never out of bounds.
constexpr const OpDesc& describe(OpKind k) {
  const int i = op_index(k);
  return describe_detail::kTable[i < 0 ? 0 : i];
}

// The v-variants take per-rank counts and displacements; each varies one
// operation of uniform blocks, which every other operation is of itself.
constexpr bool is_varied(OpKind k) { return describe(k).varied.layout != BlockLayout::uniform; }
constexpr OpKind uniform_of(OpKind k) { return is_varied(k) ? describe(k).varied.of : k; }
// Whether a call moves data (a size to sweep, a buffer to hand): all but barrier.
constexpr bool moves_data(OpKind k) { return describe(k).takes.send || describe(k).takes.recv; }

}  // namespace osmp
