#include "mpi_glue/pmpi/agree.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "collectives/kernels.hpp"
#include "collectives/ops/describe.hpp"
#include "core/strings.hpp"

namespace osmp::pmpi {
namespace {

// The block's header. Ranges (min, max) make the merge associative and
// commutative: the leaders agree on a field when its range is one value.
struct Header {
  std::int32_t error, who;  // the lowest `who` among the leaders that report an error
  std::int32_t mpi_min, mpi_max;
  std::int64_t bytes_min, bytes_max;
  std::int32_t kind_min, kind_max, dtype_min, dtype_max, op_min, op_max, root_min, root_max;
  std::int32_t combined;  // bytes of payload to combine (the same wherever the headers agree)
  std::int32_t unused[7];
};
static_assert(sizeof(Header) == kHeader);

struct Block {
  Header h;
  unsigned char payload[kPayload];
};
static_assert(sizeof(Block) == kBlock);

// Both blocks come from nodes that ran the call on osmp with the same arguments.
bool both_fine(const Header& a, const Header& b) {
  return a.error == 0 && b.error == 0 && a.mpi_max == 0 && b.mpi_max == 0 && a.kind_min == a.kind_max &&
         a.kind_min == b.kind_min && b.kind_min == b.kind_max && a.bytes_min == a.bytes_max &&
         a.bytes_min == b.bytes_min && b.bytes_min == b.bytes_max && a.dtype_min == b.dtype_max &&
         a.dtype_max == b.dtype_min && a.op_min == b.op_max && a.op_max == b.op_min;
}

void merge_payload(const Block& in, Block& io) {
  if (!both_fine(in.h, io.h)) return;
  // Laid side by side (Payload::Mode::place; scan's node totals too): the
  // others' bytes are zero. Large reductions carry none: zeros, OR-ed.
  if (io.h.combined == 0 && in.h.combined == 0) {
    for (std::size_t i = 0; i < kPayload; ++i) io.payload[i] |= in.payload[i];
    return;
  }
  const auto t = static_cast<Datatype>(io.h.dtype_min);
  if (io.h.combined != in.h.combined || io.h.combined < 0 || io.h.combined > static_cast<std::int32_t>(kPayload) ||
      static_cast<int>(t) >= kDatatypeCount)
    return;
  combine(io.payload, in.payload, static_cast<std::size_t>(io.h.combined) / size_of(t), t,
          static_cast<Op>(io.h.op_min));
}

void merge_header(const Header& a, Header& b) {
  if (a.error != 0 && (b.error == 0 || a.who < b.who)) {
    b.error = a.error;
    b.who = a.who;
  }
  b.mpi_min = std::min(a.mpi_min, b.mpi_min);
  b.mpi_max = std::max(a.mpi_max, b.mpi_max);
  b.bytes_min = std::min(a.bytes_min, b.bytes_min);
  b.bytes_max = std::max(a.bytes_max, b.bytes_max);
  b.kind_min = std::min(a.kind_min, b.kind_min);
  b.kind_max = std::max(a.kind_max, b.kind_max);
  b.dtype_min = std::min(a.dtype_min, b.dtype_min);
  b.dtype_max = std::max(a.dtype_max, b.dtype_max);
  b.op_min = std::min(a.op_min, b.op_min);
  b.op_max = std::max(a.op_max, b.op_max);
  b.root_min = std::min(a.root_min, b.root_min);
  b.root_max = std::max(a.root_max, b.root_max);
}

// The MPI user function: inout = in (+) inout, block by block.
void merge(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<const Block*>(in);
  auto* b = static_cast<Block*>(inout);
  for (int i = 0; i < *len; ++i) {
    merge_payload(a[i], b[i]);  // before the header changes
    merge_header(a[i].h, b[i].h);
  }
}

struct MpiObjects {
  MPI_Datatype block = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
};
MpiObjects& objects_made() {
  static MpiObjects o;
  return o;
}
const MpiObjects& objects() {
  MpiObjects& o = objects_made();
  if (o.block == MPI_DATATYPE_NULL) {
    PMPI_Type_contiguous(static_cast<int>(kBlock), MPI_BYTE, &o.block);
    PMPI_Type_commit(&o.block);
    PMPI_Op_create(merge, 1, &o.op);
  }
  return o;
}

Header header_of(const NodeSays& s, int who) {
  auto k = static_cast<std::int32_t>(s.kind);
  return Header{static_cast<std::int32_t>(s.error),
                s.error == Errc::ok ? INT32_MAX : who,
                s.to_mpi,
                s.to_mpi,
                s.bytes,
                s.bytes,
                k,
                k,
                s.dtype,
                s.dtype,
                s.op,
                s.op,
                s.root,
                s.root,
                0,
                {}};
}

Decision decide(const Header& h) {
  auto mismatch = [](const char* what) {
    return Decision{Decision::Route::error, Errc::mismatch,
                    cat("ranks on different nodes disagree on the ", what, "; every rank must pass the same")};
  };
  if (h.error != 0) {
    const auto e = static_cast<Errc>(h.error);
    return Decision{Decision::Route::error, e, cat("failed on the node of rank ", h.who, " (", errc_name(e), ")")};
  }
  if (h.mpi_max != 0) {
    if (h.mpi_min != 0) return Decision{Decision::Route::mpi, Errc::ok, ""};
    return mismatch("reduction op or datatype (some ranks' osmp cannot run, others' can)");
  }
  if (h.kind_min != h.kind_max) return mismatch("operation");
  if (h.bytes_min != h.bytes_max) {
    // allgatherv's and reduce_scatter's leaders say the digest of the
    // counts (nodes.cpp); the other v-variants' say none
    const bool varied = is_varied(static_cast<OpKind>(h.kind_min));
    return mismatch(varied ? "counts (their digest)" : "count (bytes per rank)");
  }
  if (h.dtype_min != h.dtype_max) return mismatch("datatype");
  if (h.op_min != h.op_max) return mismatch("reduction op");
  if (h.root_min != h.root_max) return mismatch("root");
  return {};
}

}  // namespace

long long g_leader_calls = 0;

Decision agree(MPI_Comm leaders, int who, const NodeSays& mine, const Payload& p) {
  Block b;
  std::memset(&b, 0, sizeof b);
  b.h = header_of(mine, who);
  if (p.mode == Payload::Mode::combine) b.h.combined = static_cast<std::int32_t>(p.len);
  const bool fine = mine.error == Errc::ok && !mine.to_mpi;  // else its buffers may be unset
  if (fine && p.mode != Payload::Mode::none && p.len) std::memcpy(b.payload + p.at, p.in, p.len);
  int rc = on_leaders([&] { return PMPI_Allreduce(MPI_IN_PLACE, &b, 1, objects().block, objects().op, leaders); });
  if (rc != MPI_SUCCESS)
    return Decision{Decision::Route::error, Errc::system, cat("the node leaders' MPI_Allreduce failed (", rc, ")")};
  Decision d = decide(b.h);
  if (d.route == Decision::Route::osmp && p.mode != Payload::Mode::none && p.total)
    std::memcpy(p.out, b.payload, p.total);
  return d;
}

void release_agreement() {
  MpiObjects& o = objects_made();
  if (o.block != MPI_DATATYPE_NULL) PMPI_Type_free(&o.block);
  if (o.op != MPI_OP_NULL) PMPI_Op_free(&o.op);
}

}  // namespace osmp::pmpi
