// What a header step's verdict means to the caller. A step itself is a walk
// over this rank's lanes (walk.hpp) running the base cases of base/ with an
// operation's payload (payload.hpp), as its plan says (plan.hpp).
#pragma once

#include "collectives/protocol.hpp"

namespace osmp {

// The error every rank reports for a verdict (for a mismatch, only until
// Engine::run() has every rank's header to say who differs).
Status verdict_error(StatusWord w, const OpHeader& h, int me);

// The error of a step whose verdict `w` is not 0 (step_result, walk.hpp):
// where `pairs` (a one-pass step, or a team with unit acks) and this rank
// saw a header that differed from its own (`seen`, of rank `seen_rank`;
// -1: none), the pair's message (the others' headers come with the next
// call, or from the records: Engine::run_call); else verdict_error's.
// Cold and out of line: a correct call never gets here.
[[gnu::cold, gnu::noinline]] Status step_verdict_error(StatusWord w, const OpHeader& h, int me, const OpHeader& seen,
                                                       int seen_rank, bool pairs);

}  // namespace osmp
