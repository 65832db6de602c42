// What travels with the flags: operation headers (checked by the group's
// local root) and status words (errors going up, the verdict going down).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "collectives/types.hpp"
#include "core/status.hpp"
#include "shm/layout.hpp"

namespace osmp {

// Every actor publishes its view of the operation; the local root compares.
struct OpHeader {
  std::uint8_t kind = 0;      // OpKind
  std::uint8_t dtype = 0;     // Datatype
  std::uint8_t op = 0;        // Op (reductions only)
  std::uint8_t declined = 0;  // 1: this rank declines the call (Team::abstain with unsupported)
  std::int16_t root = -1;     // -1 for unrooted operations (teams have at most kMaxTeamRanks)
  // A digest of this rank's previous call on the team (earlier_digest()):
  // ranks that agree on this call but not on the one before learn it here.
  // A one-pass call (OSMP_CHECK=lazy) may end with nobody having compared
  // (two ranks that both think they are a bcast's root); the next call
  // compares (collectives/calls.hpp).
  std::uint16_t earlier = 0;
  std::int64_t count = 0;
};
static_assert(sizeof(OpHeader) == 16);

// The most ranks a team may have: headers carry a root in 15 bits.
inline constexpr int kMaxTeamRanks = 32767;

// The digest of a header that the next call's `earlier` carries: its fields
// but `earlier`, folded to 16 bits (a chance of 1 in 65536 that two different
// headers agree; the one-pass checker's and finish()'s comparisons see the
// whole header).
// Two multiplies by odd constants, the high bits kept: every bit of either
// word reaches them (every call computes it: Calls::enter).
inline std::uint16_t earlier_digest(const OpHeader& h) {
  std::uint64_t w[2];
  std::memcpy(w, &h, sizeof w);
  static_assert(offsetof(OpHeader, earlier) == 6 && offsetof(OpHeader, count) == 8);
  const std::uint64_t mine = w[0] & 0x0000ffffffffffffull;  // without `earlier` (bytes 6-7)
  const std::uint64_t x = (mine ^ (w[1] * 0xc2b2ae3d27d4eb4full)) * 0x9e3779b97f4a7c15ull;
  return static_cast<std::uint16_t>(x >> 48);
}

// What differs, when ranks disagree. `earlier`: the previous call (its
// digest), which the error then names (collectives/calls.hpp).
// `counts`: a gatherv's or scatterv's rank whose own count is not the
// root's entry for it, found in a one-pass call (ops/rows.cpp); the rank
// is that rank's.
enum class Field : std::uint8_t { none = 0, kind, dtype, op, count, root, args, declined, earlier, counts };

// A status word: 0 = fine; else [code:8][field:8][rank+1:16]. Errors found
// anywhere travel up to the top of the tree and come back down as the verdict.
// For an argument error the rank is the one that found its arguments bad; for
// a mismatch only where it was noticed (a unit differing from its group's
// local root, who may be the odd one): the message comes from every rank's
// header, exchanged after the verdict (mismatch_message(), Engine::run).
using StatusWord = std::uint32_t;
constexpr StatusWord make_status(Errc code, Field field, int rank) {
  return (static_cast<std::uint32_t>(code) << 24) | (static_cast<std::uint32_t>(field) << 16) |
         (static_cast<std::uint32_t>(rank + 1) & 0xffffu);
}
constexpr Errc status_code(StatusWord w) { return static_cast<Errc>(w >> 24); }
constexpr Field status_field(StatusWord w) { return static_cast<Field>((w >> 16) & 0xffu); }
constexpr int status_rank(StatusWord w) { return static_cast<int>(w & 0xffffu) - 1; }

// The first differing field of two headers, or none.
Field compare_fields(const OpHeader& a, const OpHeader& b);
inline Field compare(const OpHeader& a, const OpHeader& b) {
  std::uint64_t x[2], y[2];  // the common case, equal, in two compares
  std::memcpy(x, &a, sizeof x);
  std::memcpy(y, &b, sizeof y);
  return x[0] == y[0] && x[1] == y[1] ? Field::none : compare_fields(a, b);
}

// The error every rank reports when the headers of one call disagree: for
// each field that differs (only the operation, when that does), the ranks
// that differ from the majority and each side's value: "allreduce: ranks
// disagree on the count: rank 1 passed 8, ranks 0,2-3 passed 16". `all[r]` is
// rank r's header, `mine` this rank's (its operation names the call); ""
// when all agree.
std::string mismatch_message(const OpHeader& mine, std::span<const OpHeader> all);

// The same for two ranks' headers only (a one-pass call's checker, which
// sees one other header): "bcast: ranks disagree on the count: rank 0
// passed 8, rank 3 passed 16".
std::string pair_mismatch_message(const OpHeader& mine, int me, const OpHeader& theirs, int them);

// A line's layout as the collectives use it: `ready` carries the step and, in
// its reserved word, the status; the rest of its 64-byte line holds the op
// header and 32 bytes of inline payload; `ack` says a step was consumed.
inline constexpr std::size_t kInlineBytes = 32;
inline OpHeader* header_of(CtrlLine& l) { return reinterpret_cast<OpHeader*>(l.inline_data); }
inline const OpHeader* header_of(const CtrlLine& l) { return reinterpret_cast<const OpHeader*>(l.inline_data); }
inline std::byte* inline_of(CtrlLine& l) { return l.inline_data + sizeof(OpHeader); }
static_assert(sizeof(OpHeader) + kInlineBytes == sizeof(CtrlLine::inline_data));

}  // namespace osmp
