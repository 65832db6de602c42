#include "collectives/types.hpp"
#include "mpi_glue/pmpi/types.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <vector>

namespace osmp::pmpi {
namespace {}  // namespace
std::atomic<const TypePair*> g_builtins{nullptr};
std::atomic<std::size_t> g_builtin_count{0};
std::atomic<std::size_t> g_builtin_last{0};
namespace {
// The table once built (release: after its elements; read without the
// static's guard on every call by arith_type).
std::atomic<const std::vector<TypePair>*> g_pairs{nullptr};

const std::vector<TypePair>& type_pairs() {
  static const std::vector<TypePair> pairs = [] {
    std::vector<TypePair> v = {{MPI_DOUBLE, Datatype::float64},      {MPI_FLOAT, Datatype::float32},
                               {MPI_INT, Datatype::int32},           {MPI_INT32_T, Datatype::int32},
                               {MPI_INT64_T, Datatype::int64},       {MPI_LONG_LONG, Datatype::int64},
                               {MPI_INT8_T, Datatype::int8},         {MPI_SIGNED_CHAR, Datatype::int8},
                               {MPI_CHAR, Datatype::int8},           {MPI_INT16_T, Datatype::int16},
                               {MPI_SHORT, Datatype::int16},         {MPI_UINT8_T, Datatype::uint8},
                               {MPI_UNSIGNED_CHAR, Datatype::uint8}, {MPI_BYTE, Datatype::uint8},
                               {MPI_UINT16_T, Datatype::uint16},     {MPI_UNSIGNED_SHORT, Datatype::uint16},
                               {MPI_UINT32_T, Datatype::uint32},     {MPI_UNSIGNED, Datatype::uint32},
                               {MPI_UINT64_T, Datatype::uint64},     {MPI_UNSIGNED_LONG_LONG, Datatype::uint64}};
    for (MPI_Datatype t : {MPI_AINT, MPI_OFFSET, MPI_COUNT}) {
      int size = 0;
      PMPI_Type_size(t, &size);
      if (size == 8) v.push_back({t, Datatype::int64});
    }
    if (sizeof(long) == 8) {
      v.push_back({MPI_LONG, Datatype::int64});
      v.push_back({MPI_UNSIGNED_LONG, Datatype::uint64});
    }
    for (TypePair& p : v) {
      const auto size = static_cast<std::int64_t>(size_of(p.osmp));
      p.info = TypeInfo{size, static_cast<MPI_Aint>(size), true, p.osmp};
    }
    return v;
  }();
  static const bool published = (g_builtin_count.store(pairs.size(), std::memory_order_relaxed),
                                 g_builtins.store(pairs.data(), std::memory_order_release),
                                 g_pairs.store(&pairs, std::memory_order_release), true);
  (void)published;
  return pairs;
}

const std::vector<OpPair>& op_pairs() {
  static const std::vector<OpPair> pairs = {{MPI_SUM, Op::sum},   {MPI_PROD, Op::prod}, {MPI_MIN, Op::min},
                                            {MPI_MAX, Op::max},   {MPI_BAND, Op::band}, {MPI_BOR, Op::bor},
                                            {MPI_BXOR, Op::bxor}, {MPI_LAND, Op::land}, {MPI_LOR, Op::lor}};
  return pairs;
}

bool named(MPI_Datatype t) {
  int ni = 0, na = 0, nt = 0, combiner = 0;
  PMPI_Type_get_envelope(t, &ni, &na, &nt, &combiner);
  return combiner == MPI_COMBINER_NAMED;
}

TypeInfo sizes(MPI_Datatype t) {
  TypeInfo ti;
  int size = 0;
  MPI_Aint lb = 0, true_lb = 0, true_extent = 0;
  PMPI_Type_size(t, &size);
  PMPI_Type_get_extent(t, &lb, &ti.extent);
  PMPI_Type_get_true_extent(t, &true_lb, &true_extent);
  ti.size = size;
  ti.raw = lb == 0 && true_lb == 0 && ti.extent == size && true_extent == size;
  return ti;
}

// The type's parts: what MPI_Type_get_contents names, derived ones to be freed.
struct Parts {
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Datatype> types;
  ~Parts() {
    for (MPI_Datatype& t : types)
      if (!named(t)) PMPI_Type_free(&t);
  }
};
void parts_of(MPI_Datatype t, Parts& p) {
  int ni = 0, na = 0, nt = 0;
  PMPI_Type_get_envelope(t, &ni, &na, &nt, &p.combiner);
  if (p.combiner == MPI_COMBINER_NAMED) return;
  p.ints.resize(static_cast<std::size_t>(ni));
  p.types.resize(static_cast<std::size_t>(nt));
  std::vector<MPI_Aint> addrs(static_cast<std::size_t>(na));
  PMPI_Type_get_contents(t, ni, na, nt, p.ints.data(), addrs.data(), p.types.data());
}

// Walks the type's constructors: `raw` holds while every step is a
// contiguous run (or a dup) of raw parts; `base` while every basic element
// seen is the same osmp type (nullopt for a part that is none, or differs).
struct Walk {
  bool raw = true;
  bool any = false;
  std::optional<Datatype> base;
};
void walk(MPI_Datatype t, Walk& w, int depth) {
  Parts p;
  parts_of(t, p);
  if (p.combiner == MPI_COMBINER_NAMED) {
    auto b = arith_type(t);
    if (!b || (w.any && w.base != b))
      w.base.reset();
    else if (!w.any)
      w.base = b;
    w.any = true;
    w.raw = w.raw && sizes(t).raw;
    return;
  }
  const bool run = p.combiner == MPI_COMBINER_DUP || p.combiner == MPI_COMBINER_CONTIGUOUS;
  w.raw = w.raw && run;
  if (depth > 64 || p.types.empty() || p.combiner == MPI_COMBINER_F90_REAL || p.combiner == MPI_COMBINER_F90_COMPLEX ||
      p.combiner == MPI_COMBINER_F90_INTEGER) {
    w.base.reset();
    w.any = true;
    w.raw = false;
    return;
  }
  for (std::size_t i = 0; i < p.types.size(); ++i) {
    // A struct block of length 0 adds nothing to the signature.
    if (p.combiner == MPI_COMBINER_STRUCT && p.ints[i + 1] == 0) continue;
    walk(p.types[i], w, depth + 1);
  }
}

TypeInfo compute(MPI_Datatype t) {
  TypeInfo ti = sizes(t);
  Walk w;
  walk(t, w, 0);
  ti.raw = ti.raw && w.raw;
  if (w.any && w.base && ti.size % static_cast<std::int64_t>(size_of(*w.base)) == 0) ti.base = w.base;
  return ti;
}

int delete_info(MPI_Datatype, int, void* value, void*) {
  delete static_cast<TypeInfo*>(value);
  return MPI_SUCCESS;
}

int info_keyval() {
  static int kv = MPI_KEYVAL_INVALID;
  // A duplicate describes itself again on first use: no copy.
  if (kv == MPI_KEYVAL_INVALID) PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_info, &kv, nullptr);
  return kv;
}

}  // namespace

std::optional<Datatype> arith_type(MPI_Datatype t) {
  // Asked on every call, mostly for the type of the call before: the index
  // of the last match is tried first (relaxed: any index is checked here).
  std::atomic<std::size_t>& last = g_builtin_last;
  // Acquire: pairs with type_pairs()'s release, so the elements are seen.
  const std::vector<TypePair>* built = g_pairs.load(std::memory_order_acquire);
  const std::vector<TypePair>& pairs = built ? *built : type_pairs();
  const std::size_t guess = last.load(std::memory_order_relaxed);
  if (guess < pairs.size() && pairs[guess].mpi == t) return pairs[guess].osmp;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].mpi != t) continue;
    last.store(i, std::memory_order_relaxed);
    return pairs[i].osmp;
  }
  return std::nullopt;
}

MPI_Datatype mpi_type_of(Datatype t) {
  for (const TypePair& p : type_pairs())
    if (p.osmp == t) return p.mpi;
  return MPI_DATATYPE_NULL;
}

std::atomic<const OpPair*> g_last_op{nullptr};

std::optional<Op> op_of_other(MPI_Op op) {
  for (const OpPair& p : op_pairs()) {
    if (p.mpi != op) continue;
    g_last_op.store(&p, std::memory_order_release);  // pairs with op_of's acquire
    return p.osmp;
  }
  return std::nullopt;
}

MPI_Op mpi_op_of(Op op) {
  for (const OpPair& p : op_pairs())
    if (p.osmp == op) return p.mpi;
  return MPI_OP_NULL;
}

namespace {
int (*g_undescribed)(MPI_Datatype) = nullptr;  // set once, at the component's init
}  // namespace

void set_undescribed_test(int (*undescribed)(MPI_Datatype)) { g_undescribed = undescribed; }

TypeInfo describe_other(MPI_Datatype t) {
  if (const std::optional<Datatype> b = arith_type(t)) {  // a builtin, without asking the MPI anything
    const auto size = static_cast<std::int64_t>(size_of(*b));
    return TypeInfo{size, static_cast<MPI_Aint>(size), true, b};
  }
  if (g_undescribed && g_undescribed(t)) {
    // Its blocks may lie in any order: always packed; never reduced on osmp.
    TypeInfo ti = sizes(t);
    ti.raw = false;
    return ti;
  }
  if (named(t)) return compute(t);  // MPI_LONG_DOUBLE, MPI_DOUBLE_INT, ...: not cacheable everywhere
  void* value = nullptr;
  int found = 0;
  PMPI_Type_get_attr(t, info_keyval(), &value, &found);
  if (found) return *static_cast<TypeInfo*>(value);
  auto* ti = new TypeInfo(compute(t));
  PMPI_Type_set_attr(t, info_keyval(), ti);
  return *ti;
}

namespace {
// MPI_Pack / MPI_Unpack of `count` elements at buf. MPICH 4.0 refuses a
// null buffer there, MPI_BOTTOM with absolute addresses included: the
// elements are then described from address 1, displaced by -1.
template <class F>
void with_base(const void* buf, std::int64_t count, MPI_Datatype t, F&& run) {
  if (buf != MPI_BOTTOM) return run(const_cast<void*>(buf), static_cast<int>(count), t);
  int len = static_cast<int>(count);
  MPI_Aint disp = -1;
  MPI_Datatype shifted;
  PMPI_Type_create_struct(1, &len, &disp, &t, &shifted);
  PMPI_Type_commit(&shifted);
  run(reinterpret_cast<void*>(std::uintptr_t{1}), 1, shifted);
  PMPI_Type_free(&shifted);
}

// MPI_Pack (`pack`) or MPI_Unpack of `count` elements of `t` at buf, to or
// from `bytes` (count * ti.size of them), in runs of at most INT_MAX bytes:
// both take int sizes, and a v-variant's block or an own block may pass 2 GiB.
void pack_runs(const void* buf, std::int64_t count, MPI_Datatype t, const TypeInfo& ti, MPI_Comm comm,
               unsigned char* bytes, bool pack) {
  const std::int64_t per = std::max<std::int64_t>(1, INT_MAX / std::max<std::int64_t>(1, ti.size));
  for (std::int64_t done = 0; done < count; done += per) {
    const std::int64_t k = std::min(per, count - done);
    unsigned char* at = bytes + done * ti.size;
    const int len = static_cast<int>(k * ti.size);
    with_base(done ? element(const_cast<void*>(buf), done, ti) : buf, k, t, [&](void* base, int n, MPI_Datatype tt) {
      int position = 0;
      if (pack) {
        PMPI_Pack(base, n, tt, at, len, &position, comm);
      } else {
        PMPI_Unpack(at, len, &position, base, n, tt, comm);
      }
    });
  }
}
}  // namespace

Status BlockSet::set(const void* buf, const int* counts, const int* displs, int n, MPI_Datatype t, MPI_Comm comm,
                     const TypeInfo& ti) {
  buf_ = buf;
  ecounts_ = counts;
  edispls_ = displs;
  type_ = t;
  comm_ = comm;
  ti_ = ti;
  raw_ = ti.raw;
  packed_ = written_ = false;  // (a set kept from an earlier call: VBlocksBack)
  base_ = nullptr;
  const std::size_t un = static_cast<std::size_t>(n);
  counts_.resize(un);
  displs_.resize(un);
  std::byte* lowest = nullptr;
  std::int64_t packed = 0;
  auto at = [&](std::size_t r) { return static_cast<std::byte*>(element(const_cast<void*>(buf), displs[r], ti)); };
  for (std::size_t r = 0; r < un; ++r) {
    if (counts[r] < 0) return Status(Errc::invalid_argument, cat("count ", r, " is negative (", counts[r], ")"));
    counts_[r] = counts[r] * ti.size;
    if (counts_[r] && (!lowest || at(r) < lowest)) lowest = at(r);
    displs_[r] = packed;  // packed: back to back in the scratch
    packed += counts_[r];
  }
  if (!raw_) {
    scratch_.resize(static_cast<std::size_t>(packed));
    return {};
  }
  base_ = lowest;
  for (std::size_t r = 0; r < un; ++r) displs_[r] = counts_[r] ? at(r) - lowest : 0;
  return {};
}

const void* BlockSet::in() {
  if (raw_) return base_;
  if (!packed_) {
    for (std::size_t r = 0; r < counts_.size(); ++r) {
      if (counts_[r]) {
        pack_runs(element(const_cast<void*>(buf_), edispls_[r], ti_), ecounts_[r], type_, ti_, comm_,
                  scratch_.data() + displs_[r], true);
      }
    }
    packed_ = true;
  }
  return scratch_.data();
}

void* BlockSet::out() {
  if (raw_) return base_;
  written_ = true;
  return scratch_.data();
}

void BlockSet::commit() {
  if (raw_ || !written_) return;
  for (std::size_t r = 0; r < counts_.size(); ++r) {
    if (counts_[r]) {
      pack_runs(element(const_cast<void*>(buf_), edispls_[r], ti_), ecounts_[r], type_, ti_, comm_,
                scratch_.data() + displs_[r], false);
    }
  }
}

namespace {
// `type` replaced by a duplicate of itself, appended to `held`.
void hold(MPI_Datatype& type, std::vector<MPI_Datatype>& held) {
  MPI_Datatype dup = MPI_DATATYPE_NULL;
  if (PMPI_Type_dup(type, &dup) != MPI_SUCCESS) return;  // as before: the caller's handle
  type = dup;
  held.push_back(dup);
}
}  // namespace

void BlockSet::hold_type(std::vector<MPI_Datatype>& held) {
  if (!raw_ && written_) hold(type_, held);
}

void Stream::hold_type(std::vector<MPI_Datatype>& held) {
  if (!raw_ && bytes_ != 0) hold(type_, held);
}

const void* Stream::packed() {
  if (!packed_) {
    scratch_.resize(static_cast<std::size_t>(bytes_));
    pack_runs(buf_, count_, type_, ti_, comm_, scratch_.data(), true);
    packed_ = true;
  }
  return scratch_.data();
}

void* Stream::scratch() {
  scratch_.resize(static_cast<std::size_t>(bytes_));
  return scratch_.data();
}

void Stream::unpack() { pack_runs(buf_, count_, type_, ti_, comm_, scratch_.data(), false); }

}  // namespace osmp::pmpi
