// What a header step's verdict means to the caller. A step itself is a walk
// over this rank's lanes (walk.hpp) running the base cases of base/ with an
// operation's payload (payload.hpp), as its plan says (plan.hpp).
#pragma once

#include "collectives/protocol.hpp"

namespace osmp {

// The error every rank reports for a verdict (for a mismatch, only until
// Engine::run() has every rank's header to say who differs).
Status verdict_error(StatusWord w, const OpHeader& h, int me);

}  // namespace osmp
