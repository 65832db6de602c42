// What a call's arguments must be on each rank (MPI's rules for buffers
// and in place), checked on every call: Engine::validate, and inlined for
// one operation in the common call (Engine::run_call), where the kind is a
// constant and the checks of other operations fold away.
#pragma once

#include <cstdint>
#include <ostream>

#include "collectives/engine.hpp"
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
  const std::size_t es = size_of(a.dtype);
  const std::size_t count = static_cast<std::size_t>(a.count);
  std::size_t all = 0;  // at most 2^56 bytes in all (es * n cannot overflow: n < 2^15)
  if (__builtin_mul_overflow(count, es * static_cast<std::size_t>(n), &all) || all > (std::size_t{1} << 56)) {
    return Status(Errc::invalid_argument, cat(op, ": count ", a.count, " is too large"));
  }
  const std::size_t one = count * es;
  const bool root = me == a.root;
  const bool in_place_send = a.send == kInPlace, in_place_recv = a.recv == kInPlace;
  // What each rank reads and writes, by operation (MPI's rules for in place).
  std::size_t send_len = 0, recv_len = 0;
  bool may_send_in_place = false, may_recv_in_place = false;
  switch (kind) {
    case OpKind::barrier: return {};
    case OpKind::bcast: recv_len = one; break;
    case OpKind::reduce:
      send_len = one;
      recv_len = root ? one : 0;
      may_send_in_place = root;
      break;
    case OpKind::allreduce:
      send_len = one;
      recv_len = one;
      may_send_in_place = true;
      break;
    case OpKind::gather:
      send_len = one;
      recv_len = root ? all : 0;
      may_send_in_place = root;
      break;
    case OpKind::allgather:
      send_len = one;
      recv_len = all;
      may_send_in_place = true;
      break;
    case OpKind::scatter:
      send_len = root ? all : 0;
      recv_len = one;
      may_recv_in_place = root;
      break;
    case OpKind::reduce_scatter_block:
      send_len = all;
      recv_len = one;
      may_send_in_place = true;
      break;
    case OpKind::alltoall:
      send_len = all;
      recv_len = all;
      may_send_in_place = true;
      break;
    case OpKind::scan:
      send_len = one;
      recv_len = one;
      may_send_in_place = true;
      break;
    case OpKind::exscan:  // rank 0's output is undefined: never written, may be null (not in place)
      send_len = one;
      recv_len = me == 0 && !in_place_send ? 0 : one;
      may_send_in_place = true;
      break;
  }
  if (in_place_send && !may_send_in_place) {
    return Status(Errc::invalid_argument,
                  cat(op, ": in-place send is not allowed", is_rooted(kind) ? " (only the root may use it)" : ""));
  }
  if (in_place_recv && !may_recv_in_place) {
    return Status(Errc::invalid_argument, cat(op, ": in-place receive is not allowed",
                                              kind == OpKind::scatter ? " (only the root may use it)" : ""));
  }
  if (in_place_send && a.recv == nullptr && recv_len) {
    return Status(Errc::invalid_argument, cat(op, ": in place but the receive buffer is null"));
  }
  if (!in_place_send && send_len && a.send == nullptr) {
    return Status(Errc::invalid_argument, cat(op, ": null send buffer with count ", a.count));
  }
  if (!in_place_recv && recv_len && a.recv == nullptr) {
    return Status(Errc::invalid_argument,
                  cat(op, ": null ", kind == OpKind::bcast ? "buffer" : "receive buffer", " with count ", a.count));
  }
  if (!in_place_send && !in_place_recv && overlap(a.send, send_len, a.recv, recv_len)) {
    return Status(Errc::invalid_argument, cat(op, ": the send and receive buffers overlap (use in place)"));
  }
  return {};
}

}  // namespace osmp
