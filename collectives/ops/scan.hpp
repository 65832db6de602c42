// scan's description, read by every layer through describe.hpp (what each
// field means: description.hpp). Its unit: collectives/ops/scan.cpp.
#pragma once

#include "collectives/ops/description.hpp"

namespace osmp {

// Scan and exscan go through the tree in one step (every input up, the top
// folding them in rank order, every result down) while all the inputs
// together are at most this many bytes; beyond, along the chain of ranks,
// where each rank copies and combines only its own part (2 processes: 0.17
// us against 0.26 at 4 B, 0.26 against 0.34 at 512 B, 0.39 against 0.31 at
// 1 KiB, 3.9 against 1.1 at 8 KiB; 4 on 2 cores: the chain from 64 B).
inline constexpr std::size_t kScanTreeBytes = 1024;

// Scan's and exscan's plan: every input up, every result down (the top
// folds them in rank order), or through the prefix top in one pass.
inline constexpr PlanRules kPrefixPlan{.walk = Route::prefix,
                                       .carry = Carry::all,
                                       .areas = RowTerms::kAllAreas,
                                       .tree_cap = kScanTreeBytes,
                                       .concatenates = true,
                                       .symmetric = SymBytes::per_unit,
                                       .step = {UpMove::gather, Times::one, DownMove::scatter, Times::one}};

template <>
struct Description<OpKind::scan> : RowTerms {
  static constexpr OpDesc row = {.buffers = {.send = kOne, .recv = kOne, .send_in_place = kEverywhere},
                                 .alone = Alone::input_to_output,
                                 .plan = kPrefixPlan};
};

}  // namespace osmp
