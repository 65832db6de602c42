// MPI datatypes as osmp sees them: the byte stream a (buffer, count, type)
// stands for, and whether a reduction on it can run on osmp.
//
// Every buffer argument becomes the byte stream its type signature describes
// (what MPI_Pack writes on a homogeneous node): a builtin type, or a
// contiguous run of them, is that stream already ("raw", used in place);
// anything else (vector, indexed, struct, resized, MPI_BOTTOM with absolute
// addresses) is packed before and unpacked after the call. Two ranks whose
// type maps differ but whose signatures match thus hand osmp the same bytes.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "osmp.hpp"

namespace osmp::pmpi {

struct TypeInfo {
  std::int64_t size = 0;  // bytes of one element's signature (MPI_Type_size)
  MPI_Aint extent = 0;    // how far apart consecutive elements lie
  bool raw = false;       // the elements' bytes lie at buf, in signature order, back to back
  // Every basic element is this osmp type (a builtin repeated: MPI_DOUBLE,
  // contiguous / vector / indexed / struct of MPI_DOUBLE ...): reductions can
  // run on osmp, `size / size_of(*base)` elements per element of the type.
  std::optional<Datatype> base;
};

// What `t` is (cached on derived types in an attribute). Never collective.
// Inline for the builtin type of the call before (nearly every call's):
// g_builtins, built at the first look-up of a builtin (types.cpp), holds
// each builtin's answer; g_builtin_last is the index that matched last
// (relaxed: any index is checked).
// One table for both directions: the builtin types osmp reduces on.
struct TypePair {
  MPI_Datatype mpi;
  Datatype osmp;
  TypeInfo info{};  // describe()'s answer for it (types.cpp fills it)
};
extern std::atomic<const TypePair*> g_builtins;
extern std::atomic<std::size_t> g_builtin_count;
extern std::atomic<std::size_t> g_builtin_last;
TypeInfo describe_other(MPI_Datatype t);
// The table's entry of `t` when it is the builtin that matched last, else null.
inline const TypeInfo* last_builtin(MPI_Datatype t) {
  // Acquire: pairs with the release that publishes the table after its
  // elements and its count (types.cpp, type_pairs).
  if (const TypePair* b = g_builtins.load(std::memory_order_acquire)) [[likely]] {
    const std::size_t i = g_builtin_last.load(std::memory_order_relaxed);
    if (i < g_builtin_count.load(std::memory_order_relaxed) && b[i].mpi == t) [[likely]]
      return &b[i].info;
  }
  return nullptr;
}
inline TypeInfo describe(MPI_Datatype t) {
  if (const TypeInfo* ti = last_builtin(t)) [[likely]]
    return *ti;
  return describe_other(t);
}
// Types that MPI_Type_get_envelope cannot take (osmp_pmpi_set_undescribed_test).
void set_undescribed_test(int (*undescribed)(MPI_Datatype));

// The osmp type of a builtin MPI type, and back.
std::optional<Datatype> arith_type(MPI_Datatype t);
MPI_Datatype mpi_type_of(Datatype t);
// A builtin reduction osmp runs, and back. Inline for the op of the call
// before (g_last_op: relaxed, one word that names both).
std::optional<Op> op_of_other(MPI_Op op);
struct OpPair {
  MPI_Op mpi;
  Op osmp;
};
extern std::atomic<const OpPair*> g_last_op;
inline std::optional<Op> op_of(MPI_Op op) {
  // Acquire: pairs with op_of_other's release of an entry of its table
  // (immutable once built).
  if (const OpPair* p = g_last_op.load(std::memory_order_acquire); p && p->mpi == op) [[likely]]
    return p->osmp;
  return op_of_other(op);
}
MPI_Op mpi_op_of(Op op);

// One buffer argument as a byte stream. Reading packs it (unless raw);
// writing goes to scratch (unless raw) that commit() unpacks into the buffer.
class Stream {
 public:
  Stream() = default;
  // `count` elements of type t at buf, described by ti. In place: a call's
  // streams are set once, in the fresh Prepared that holds them (a Stream
  // built and moved in cost about 25 instructions per buffer per call).
  // Only on a stream never packed: `scratch_` is kept, and a reused stream
  // would unpack what it holds at commit().
  void assign(const void* buf, std::int64_t count, MPI_Datatype t, MPI_Comm comm, const TypeInfo& ti) {
    buf_ = buf;
    count_ = count;
    type_ = t;
    comm_ = comm;
    ti_ = ti;
    bytes_ = ti.size * count;
    raw_ = ti.raw;
    packed_ = false;
  }
  std::int64_t bytes() const { return bytes_; }
  bool raw() const { return raw_; }
  // The stream's bytes (packing them the first time).
  const void* in() { return raw_ || bytes_ == 0 ? buf_ : packed(); }
  // Where the stream's bytes are to be written.
  void* out() { return raw_ || bytes_ == 0 ? const_cast<void*>(buf_) : scratch(); }
  // Unpacks what was written to out() into the buffer (no-op when raw).
  void commit() {
    if (!raw_ && bytes_ != 0) unpack();
  }
  // A non-blocking call that unpacks once it is complete holds the type by a
  // duplicate of its own (MPI lets the program free a type before the wait):
  // appended to `held`, for the caller to free once the call is complete.
  // Nothing when commit() needs no type.
  void hold_type(std::vector<MPI_Datatype>& held);

 private:
  const void* buf_ = nullptr;
  std::int64_t count_ = 0;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Comm comm_ = MPI_COMM_NULL;
  TypeInfo ti_;
  std::int64_t bytes_ = 0;
  bool raw_ = true, packed_ = false;
  std::vector<unsigned char> scratch_;
  // in(), out() and commit() of a stream that is not raw (packed: its bytes
  // in scratch_).
  const void* packed();
  void* scratch();
  void unpack();
};

// The v-variants' blocks at the rank that holds them all (gatherv's root,
// every rank of allgatherv, scatterv's root): counts[r] elements of a type at
// displs[r] of a buffer, as osmp takes them: bytes from one base address. A
// type whose elements lie back to back is used in place, the base at the
// lowest block (negative displacements and MPI_BOTTOM's absolute ones
// included); any other goes through one scratch buffer of every block's
// stream back to back, packed before (in) or unpacked after (commit).
class BlockSet {
 public:
  BlockSet() = default;
  // Not ok: a count is negative (the message names it).
  Status set(const void* buf, const int* counts, const int* displs, int n, MPI_Datatype t, MPI_Comm comm,
             const TypeInfo& ti);
  const std::int64_t* counts() const { return counts_.data(); }
  const std::int64_t* displs() const { return displs_.data(); }
  std::int64_t bytes(int r) const { return counts_[static_cast<std::size_t>(r)]; }
  const void* in();  // the blocks to send (packing them the first time)
  void* out();       // where the received blocks go
  void commit();     // unpacks what out() received (no-op in place, or with nothing received)
  void hold_type(std::vector<MPI_Datatype>& held);  // as Stream's (commit() unpacks only after out())
  // Frees the scratch if it holds more than `most` bytes' room (a set kept
  // for later calls: VBlocksBack).
  void trim(std::size_t most) {
    if (scratch_.capacity() > most) std::vector<unsigned char>().swap(scratch_);
  }

 private:
  const void* buf_ = nullptr;
  const int* ecounts_ = nullptr;  // the caller's counts and displacements, in elements
  const int* edispls_ = nullptr;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Comm comm_ = MPI_COMM_NULL;
  TypeInfo ti_;
  std::vector<std::int64_t> counts_, displs_;  // bytes
  std::byte* base_ = nullptr;                  // in place: where displacement 0 is
  bool raw_ = true, packed_ = false, written_ = false;
  std::vector<unsigned char> scratch_;
};

// The address of element `index` of a buffer of type t (in-place blocks;
// buf may be MPI_BOTTOM).
inline void* element(void* buf, std::int64_t index, const TypeInfo& t) {
  return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(buf) +
                                 static_cast<std::uintptr_t>(index * static_cast<std::int64_t>(t.extent)));
}

}  // namespace osmp::pmpi
