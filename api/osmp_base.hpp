// osmp: the C++ vocabulary every interface shares: errors (Status,
// Result), datatypes, reduction ops, the operations (from osmp_ops.h), and
// Bootstrap, the data exchange a team is created over.
//
// Public and self-contained (only the standard library and osmp_ops.h): the
// library's own layers use these same types (docs/design.md, rule 1).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "osmp_ops.h"

namespace osmp {

// ---- errors ---------------------------------------------------------------
// Errors in two tiers (docs/design.md, rule 4): setup and configuration
// return Status / Result<T>, which carry a message naming what failed (level,
// rank, segment, errno) and where it was raised.

enum class Errc : int {
  ok = 0,
  invalid_argument,  // the caller passed something malformed or out of range
  not_found,         // a named thing (level, file, variable) does not exist
  topology,          // hwloc could not load or export a topology
  system,            // a system call failed; the message carries errno
  mismatch,          // ranks disagree about something they must agree on
  peer_dead,         // a process of the team died
  aborted,           // the team was aborted
  no_space,          // not enough room (shared memory, slots)
  unsupported,       // valid, but not implemented for this case
  timeout,
  internal,  // a broken invariant: a bug in osmp
};

// Stable lower-case name of a code, e.g. "invalid_argument".
const char* errc_name(Errc code) noexcept;

// ok is a null pointer, so the success path (most returns of the hot path)
// costs one word; an error holds its code, message and source location.
class [[nodiscard]] Status {
 public:
  Status() noexcept = default;  // ok
  Status(Errc code, std::string message, std::source_location where = std::source_location::current())
      : rep_(code == Errc::ok ? nullptr : new Rep{code, std::move(message), where}) {}
  Status(const Status& o) : rep_(o.rep_ ? new Rep(*o.rep_) : nullptr) {}
  Status(Status&& o) noexcept : rep_(std::exchange(o.rep_, nullptr)) {}
  Status& operator=(const Status& o) {
    if (this != &o) {
      delete rep_;
      rep_ = o.rep_ ? new Rep(*o.rep_) : nullptr;
    }
    return *this;
  }
  Status& operator=(Status&& o) noexcept {
    if (this != &o) {
      delete rep_;
      rep_ = std::exchange(o.rep_, nullptr);
    }
    return *this;
  }
  ~Status() { delete rep_; }

  static Status ok_status() { return {}; }
  bool ok() const noexcept { return rep_ == nullptr; }
  Errc code() const noexcept { return rep_ ? rep_->code : Errc::ok; }
  const std::string& message() const noexcept;
  std::source_location where() const noexcept { return rep_ ? rep_->where : std::source_location{}; }

  // "invalid_argument: rank 3: binding 0-7 is outside the topology".
  std::string to_string() const;
  // The same, followed by " [file:line]" for logs.
  std::string to_string_with_location() const;

  // Prepends context: "loading topology: " + message.
  Status& prefix(std::string_view context);

 private:
  struct Rep {
    Errc code;
    std::string message;
    std::source_location where;
  };
  Rep* rep_ = nullptr;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    if (std::get<Status>(v_).ok()) {
      v_ = Status(Errc::internal, "Result constructed from an ok Status");
    }
  }

  bool ok() const noexcept { return std::holds_alternative<T>(v_); }
  explicit operator bool() const noexcept { return ok(); }

  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return checked(); }
  const T& value() const& { return const_cast<Result*>(this)->checked(); }
  T&& value() && { return std::move(checked()); }
  T& operator*() & { return checked(); }
  const T& operator*() const& { return const_cast<Result*>(this)->checked(); }
  T* operator->() { return &checked(); }
  const T* operator->() const { return &const_cast<Result*>(this)->checked(); }

 private:
  T& checked();
  std::variant<T, Status> v_;
};

[[noreturn]] void die_on_bad_access(const Status& status);

template <class T>
T& Result<T>::checked() {
  if (!ok()) die_on_bad_access(std::get<Status>(v_));
  return std::get<T>(v_);
}

// ---- datatypes and reduction ops ----------------------------------------

// The same names as C's OSMP_INT8 ... OSMP_FLOAT32, OSMP_FLOAT64 (osmp.h).
enum class Datatype : std::uint8_t { int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64 };
inline constexpr int kDatatypeCount = 10;

enum class Op : std::uint8_t { sum, prod, min, max, band, bor, bxor, land, lor };
inline constexpr int kOpCount = 9;

// The datatype of a C++ element type: datatype_of<double>() is float64.
template <class T>
constexpr Datatype datatype_of() {
  if constexpr (std::is_same_v<T, std::int8_t>)
    return Datatype::int8;
  else if constexpr (std::is_same_v<T, std::int16_t>)
    return Datatype::int16;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return Datatype::int32;
  else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, long long>)
    return Datatype::int64;
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return Datatype::uint8;
  else if constexpr (std::is_same_v<T, std::uint16_t>)
    return Datatype::uint16;
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return Datatype::uint32;
  else if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, unsigned long long>)
    return Datatype::uint64;
  else if constexpr (std::is_same_v<T, float>)
    return Datatype::float32;
  else if constexpr (std::is_same_v<T, double>)
    return Datatype::float64;
  else
    static_assert(sizeof(T) == 0, "osmp: no datatype for this type");
}

// ---- the operations (osmp_ops.h) -----------------------------------------

// OpKind::barrier ... OpKind::reduce_scatter_block, numbered as C's
// OSMP_COLL_<NAME> (barrier is 1).
#define OSMP_OPKIND_ENUMERATOR_(name, Name, NAME, key, rooted, reduces, form) name = OSMP_COLL_##NAME,
enum class OpKind : std::uint8_t { OSMP_COLLECTIVES(OSMP_OPKIND_ENUMERATOR_) };
#undef OSMP_OPKIND_ENUMERATOR_
inline constexpr int kOpKindCount = OSMP_COLL_COUNT;

// Every operation, in the table's order.
#define OSMP_OPKIND_ITEM_(name, Name, NAME, key, rooted, reduces, form) OpKind::name,
inline constexpr OpKind kOpKinds[] = {OSMP_COLLECTIVES(OSMP_OPKIND_ITEM_)};
#undef OSMP_OPKIND_ITEM_
static_assert(std::size(kOpKinds) == kOpKindCount);

// 0 .. kOpKindCount - 1 for an operation (-1 for a value that is none).
constexpr int op_index(OpKind k) {
  const int i = static_cast<int>(k) - static_cast<int>(OSMP_COLL_BARRIER);
  return i >= 0 && i < kOpKindCount ? i : -1;
}
// Whether a call of this kind takes a root, or a reduction op.
#define OSMP_OPKIND_ROOTED_(name, Name, NAME, key, rooted, reduces, form) | (rooted##u << OSMP_COLL_##NAME)
#define OSMP_OPKIND_REDUCES_(name, Name, NAME, key, rooted, reduces, form) | (reduces##u << OSMP_COLL_##NAME)
inline constexpr unsigned kRootedKinds = 0u OSMP_COLLECTIVES(OSMP_OPKIND_ROOTED_);
inline constexpr unsigned kReductionKinds = 0u OSMP_COLLECTIVES(OSMP_OPKIND_REDUCES_);
#undef OSMP_OPKIND_ROOTED_
#undef OSMP_OPKIND_REDUCES_
static_assert(kOpKindCount < 32, "the kinds' masks are unsigned ints");
constexpr bool is_rooted(OpKind k) { return op_index(k) >= 0 && ((kRootedKinds >> static_cast<unsigned>(k)) & 1u); }
constexpr bool is_reduction(OpKind k) {
  return op_index(k) >= 0 && ((kReductionKinds >> static_cast<unsigned>(k)) & 1u);
}

const char* to_string(Datatype t);  // "int32", "float64"
const char* to_string(Op op);       // "sum"
const char* to_string(OpKind k);    // "reduce_scatter_block"
// The names to_string gives, any case; "float" and "double" are float32 and
// float64.
Result<Datatype> parse_datatype(std::string_view s);
Result<Op> parse_op(std::string_view s);
Result<OpKind> parse_op_kind(std::string_view s);

// The MPI_IN_PLACE of osmp: pass it as the send (or, for scatter, receive)
// buffer where the data is already in the other buffer.
inline const void* const kInPlace = reinterpret_cast<const void*>(std::uintptr_t{1});

// Settings by the names of their environment variables: {"OSMP_VH", "Package:7"}.
using Settings = std::map<std::string, std::string>;

// ---- Bootstrap ----------------------------------------------------------
// The data exchange a team needs while it is being created: an allgather and
// a broadcast among the processes of the job, nothing more. Injected, so that
// the same team creation runs over osmprun's job segment, over MPI, over
// threads in one process (osmp's tests), or over whatever launcher a program
// has. Every call is collective over all ranks of the job, with the same
// arguments.
class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Identifies the job on this machine; part of every segment name, so two
  // jobs never collide. The same on every rank.
  virtual std::uint64_t job_id() const = 0;
  // Every rank gives `len` bytes; `out` gets size() * len bytes in rank order.
  virtual Status allgather(const void* in, std::size_t len, void* out) = 0;
  // `len` bytes of `root`'s `buf` reach every rank's `buf`.
  virtual Status broadcast(void* buf, std::size_t len, int root) = 0;
  // The launcher's job-wide abort word, when there is one.
  virtual const std::atomic<std::uint64_t>* job_abort() const { return nullptr; }

  Status barrier() { return allgather(nullptr, 0, nullptr); }

  // Broadcasts a string of any length from `root`.
  Status broadcast_string(std::string& s, int root);
  // Every rank gives a string of any length; all get every rank's, in rank order.
  Result<std::vector<std::string>> allgather_strings(const std::string& mine);

  // Every rank passes its local outcome; all get the same answer: ok, or the
  // first failing rank's error ("rank 3: ..."). Lets a failing rank still take
  // part, so nobody waits for it forever (docs/design.md, rule 4).
  Status agree(const Status& local);
};

}  // namespace osmp
