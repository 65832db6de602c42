// What a call's arguments must be on each rank (MPI's rules for buffers
// and in place), checked on every call: Engine::validate, and inlined for
// one operation in the common call (Engine::run_call), where the kind is a
// constant and the checks of other operations fold away.
#pragma once

#include <cstdint>
#include <ostream>

#include "collectives/engine.hpp"
#include "collectives/ops/describe.hpp"
#include "core/strings.hpp"

namespace osmp {

// "allreduce on rank 3", written into a message only when there is an error.
struct OpName {
  OpKind kind;
  int rank;
};
inline std::ostream& operator<<(std::ostream& os, const OpName& n) {
  return os << to_string(n.kind) << " on rank " << n.rank;
}

inline bool overlap(const void* a, std::size_t alen, const void* b, std::size_t blen) {
  auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return alen && blen && x < y + blen && y < x + alen;
}

// The blocks of a v-variant in one buffer: counts[r] elements at
// displs[r], none negative, none past what 2^56 bytes address, and none
// overlapping `own` (own_len bytes; 0: nothing to check). `side` names the
// buffer ("send", "receive").
inline Status check_blocks(const OpName& op, const void* buf, const std::int64_t* counts, const std::int64_t* displs,
                           int n, std::size_t es, const void* own, std::size_t own_len, const char* side) {
  if (counts == nullptr || displs == nullptr) {
    return Status(Errc::invalid_argument, cat(op, ": null ", side, counts ? " displacements" : " counts"));
  }
  constexpr std::int64_t kMost = std::int64_t{1} << 56;
  for (int r = 0; r < n; ++r) {
    const std::int64_t c = counts[r], d = displs[r];
    if (c < 0 || d < 0) {
      return Status(Errc::invalid_argument, cat(op, ": rank ", r, "'s ", side, c < 0 ? " count " : " displacement ",
                                                c < 0 ? c : d, " is negative"));
    }
    if (c > kMost || d > kMost || static_cast<std::size_t>(c + d) > static_cast<std::size_t>(kMost) / es) {
      return Status(Errc::invalid_argument,
                    cat(op, ": rank ", r, "'s ", side, " block (count ", c, " at ", d, ") is too large"));
    }
    if (c == 0) continue;
    if (buf == nullptr) {
      return Status(Errc::invalid_argument, cat(op, ": null ", side, " buffer with rank ", r, "'s count ", c));
    }
    const auto* at = static_cast<const std::byte*>(buf) + static_cast<std::size_t>(d) * es;
    if (overlap(own, own_len, at, static_cast<std::size_t>(c) * es)) {
      return Status(Errc::invalid_argument,
                    cat(op, ": the send and receive buffers overlap at rank ", r, "'s block (use in place)"));
    }
  }
  return {};
}

// alltoallv: both sides' blocks on every rank; in place (send), the blocks
// to send are the receive blocks. Send and receive blocks are not checked
// against each other (n * n pairs; MPI libraries do not either).
inline Status check_alltoallv(const CollArgs& a, const OpName& op, int me, int n) {
  const std::size_t es = size_of(a.dtype);
  if (a.recv == kInPlace) return Status(Errc::invalid_argument, cat(op, ": in place is the send buffer only"));
  OSMP_RETURN_IF_ERROR(check_blocks(op, a.recv, a.recv_counts, a.recv_displs, n, es, nullptr, 0, "receive"));
  if (a.send == kInPlace) return {};
  OSMP_RETURN_IF_ERROR(check_blocks(op, a.send, a.counts, a.displs, n, es, nullptr, 0, "send"));
  if (a.counts[me] != a.recv_counts[me]) {  // its own pair (a team of one runs no other check)
    return Status(Errc::invalid_argument,
                  cat(op, ": sends itself ", a.counts[me], " elements but receives ", a.recv_counts[me]));
  }
  return {};
}

// reduce_scatter: every rank's share counts[r] (the same counts everywhere),
// the input their sum (in place: in the receive buffer), the output this
// rank's share.
inline Status check_reduce_scatter(const CollArgs& a, const OpName& op, int me, int n) {
  const std::size_t es = size_of(a.dtype);
  if (a.counts == nullptr) return Status(Errc::invalid_argument, cat(op, ": null counts"));
  if (a.recv == kInPlace) return Status(Errc::invalid_argument, cat(op, ": in place is the send buffer only"));
  constexpr std::size_t kMost = std::size_t{1} << 56;
  std::size_t total = 0;
  for (int r = 0; r < n; ++r) {
    if (a.counts[r] < 0)
      return Status(Errc::invalid_argument, cat(op, ": rank ", r, "'s count ", a.counts[r], " is negative"));
    total += static_cast<std::size_t>(a.counts[r]);
    if (total > kMost / es) return Status(Errc::invalid_argument, cat(op, ": the counts add up to too many elements"));
  }
  const bool in_place = a.send == kInPlace;
  const std::size_t own = static_cast<std::size_t>(a.counts[me]) * es, all = total * es;
  if ((own || (in_place && all)) && a.recv == nullptr) {
    return Status(Errc::invalid_argument, cat(op, ": null receive buffer with count ", a.counts[me]));
  }
  if (!in_place && all && a.send == nullptr) return Status(Errc::invalid_argument, cat(op, ": null send buffer"));
  if (!in_place && overlap(a.send, all, a.recv, own)) {
    return Status(Errc::invalid_argument, cat(op, ": the send and receive buffers overlap (use in place)"));
  }
  return {};
}

// The v-variants as their description's Varied says: alltoallv's pairs,
// reduce_scatter's shares, or (gatherv, allgatherv, scatterv) this rank's
// own block of `count` elements and, on the ranks that hold every block
// (gatherv, scatterv: the root; allgatherv: each), where they lie
// (check_blocks). In place, the own block is the one at displs[me] (count
// is not read).
inline Status check_varied(const CollArgs& a, OpKind kind, int me, int n) {
  const OpName op{kind, me};
  const Varied& v = describe(kind).varied;
  if (v.layout == BlockLayout::pairs) return check_alltoallv(a, op, me, n);
  if (v.layout == BlockLayout::shares) return check_reduce_scatter(a, op, me, n);
  const std::size_t es = size_of(a.dtype);
  const bool all = v.holds.at(me == a.root);  // holds every block
  const bool scatters = v.layout == BlockLayout::scattered;
  // The buffer with every block, and the own block's buffer (or in place).
  const void* blocks = scatters ? a.send : a.recv;
  const void* own = scatters ? a.recv : a.send;
  const char* own_side = scatters ? "receive" : "send";
  const bool in_place = scatters ? a.recv == kInPlace : a.send == kInPlace;
  if (in_place && !all) {
    return Status(Errc::invalid_argument,
                  cat(op, ": in-place ", own_side, " is not allowed (only the root may use it)"));
  }
  if (!all) {
    if (a.count && own == nullptr) {
      return Status(Errc::invalid_argument, cat(op, ": null ", own_side, " buffer with count ", a.count));
    }
    return {};
  }
  if (blocks == kInPlace)
    return Status(Errc::invalid_argument, cat(op, ": in place is the ", own_side, " buffer only"));
  if (a.counts && !in_place && a.count != a.counts[me]) {
    return Status(Errc::invalid_argument,
                  cat(op, ": count ", a.count, " differs from this rank's own entry of the counts, ", a.counts[me]));
  }
  const std::size_t own_len = in_place ? 0 : static_cast<std::size_t>(a.count) * es;
  if (own_len && own == nullptr) {
    return Status(Errc::invalid_argument, cat(op, ": null ", own_side, " buffer with count ", a.count));
  }
  return check_blocks(op, blocks, a.counts, a.displs, n, es, own, own_len, scatters ? "send" : "receive");
}

inline constexpr std::size_t kLargestElement = 16;
static_assert([] {
  for (std::size_t es : kDatatypeSizes)
    if (es > kLargestElement) return false;
  return true;
}());

[[gnu::always_inline]] inline Status check_arguments(const CollArgs& a, OpKind kind, int me, int n) {
  const OpName op{kind, me};  // formatted only on the error paths: this runs on every call
  if (a.count < 0) return Status(Errc::invalid_argument, cat(op, ": negative count ", a.count));
  if (static_cast<int>(a.dtype) >= kDatatypeCount) {
    return Status(Errc::invalid_argument, cat(op, ": invalid datatype ", static_cast<int>(a.dtype)));
  }
  if (is_reduction(kind) && !defined_for(a.op, a.dtype)) {
    return Status(Errc::invalid_argument,
                  cat(op, ": the reduction '", to_string(a.op), "' is not defined for ", to_string(a.dtype)));
  }
  if (is_rooted(kind) && (a.root < 0 || a.root >= n)) {
    return Status(Errc::invalid_argument, cat(op, ": root ", a.root, " is not a rank of this team (0..", n - 1, ")"));
  }
  if (is_varied(kind)) return check_varied(a, kind, me, n);
  const std::size_t es = size_of(a.dtype);
  const std::size_t count = static_cast<std::size_t>(a.count);
  // At most 2^56 bytes in all (es * n cannot overflow: n < 2^15); below
  // 2^31 elements there are fewer than 2^50 (es <= 16: kLargestElement), unchecked.
  std::size_t all = count * es * static_cast<std::size_t>(n);
  if (count >> 31 != 0) [[unlikely]] {
    if (__builtin_mul_overflow(count, es * static_cast<std::size_t>(n), &all) || all > (std::size_t{1} << 56)) {
      return Status(Errc::invalid_argument, cat(op, ": count ", a.count, " is too large"));
    }
  }
  const std::size_t one = count * es;
  const bool root = me == a.root;
  const bool in_place_send = a.send == kInPlace, in_place_recv = a.recv == kInPlace;
  // What each rank reads and writes, and where in place is allowed (MPI's
  // rules: its description, ops/<name>.hpp).
  const Buffers& b = describe(kind).buffers;
  const std::size_t send_len = bytes_of(b.send.at(root), one, all);
  const std::size_t recv_len =
      b.first_writes_nothing && me == 0 && !in_place_send ? 0 : bytes_of(b.recv.at(root), one, all);
  const bool one_buffer = b.send.root == Amount::none && b.send.other == Amount::none;       // bcast's, or none
  if (one_buffer && b.recv.root == Amount::none && b.recv.other == Amount::none) return {};  // no data
  if (in_place_send && !b.send_in_place.at(root)) {
    return Status(Errc::invalid_argument,
                  cat(op, ": in-place send is not allowed", b.send_in_place.root ? " (only the root may use it)" : ""));
  }
  if (in_place_recv && !b.recv_in_place.at(root)) {
    return Status(Errc::invalid_argument, cat(op, ": in-place receive is not allowed",
                                              b.recv_in_place.root ? " (only the root may use it)" : ""));
  }
  if (in_place_send && a.recv == nullptr && recv_len) {
    return Status(Errc::invalid_argument, cat(op, ": in place but the receive buffer is null"));
  }
  if (!in_place_send && send_len && a.send == nullptr) {
    return Status(Errc::invalid_argument, cat(op, ": null send buffer with count ", a.count));
  }
  if (!in_place_recv && recv_len && a.recv == nullptr) {
    return Status(Errc::invalid_argument,
                  cat(op, ": null ", one_buffer ? "buffer" : "receive buffer", " with count ", a.count));
  }
  if (!in_place_send && !in_place_recv && overlap(a.send, send_len, a.recv, recv_len)) {
    return Status(Errc::invalid_argument, cat(op, ": the send and receive buffers overlap (use in place)"));
  }
  return {};
}

}  // namespace osmp
