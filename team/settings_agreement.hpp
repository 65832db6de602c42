// Team creation's first step: every rank must have been given the same
// settings (all but the place). Ranks compare a hash per setting; only when
// one differs do they exchange its text, so that every rank's error names
// the ranks that differ from the majority and what each side was given.
#pragma once

#include "team/bootstrap.hpp"
#include "team/options.hpp"

namespace osmp {

// Collective over `boot`: ok on every rank, or the same Errc::mismatch on
// every rank ("ranks disagree on the virtual hierarchy (OSMP_VH): rank 2 got
// 'auto', ranks 0-1,3 got none; every rank must be given the same").
Status agree_on_settings(Bootstrap& boot, const TeamOptions& options);

}  // namespace osmp
