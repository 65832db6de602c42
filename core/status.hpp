// Errors in two tiers (docs/design.md, rule 4). Hot paths return a bare Errc; setup
// and configuration return Status / Result<T>, which carry a message naming
// what failed (level, rank, segment, errno) and where it was raised.
#pragma once

#include <cstdlib>
#include <source_location>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace osmp {

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
  internal,          // a broken invariant: a bug in osmp
};

// Stable lower-case name of a code, e.g. "invalid_argument".
const char* errc_name(Errc code) noexcept;

// Concatenates anything streamable into one string.
template <class... Args>
std::string cat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

// ok is a null pointer, so the success path (most returns of the hot path)
// costs one word; an error holds its code, message and source location.
class [[nodiscard]] Status {
 public:
  Status() noexcept = default;  // ok
  Status(Errc code, std::string message,
         std::source_location where = std::source_location::current())
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
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
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

}  // namespace osmp

// Evaluates a Status-returning expression and returns it from the enclosing
// function when it is not ok.
#define OSMP_RETURN_IF_ERROR(expr)                 \
  do {                                             \
    ::osmp::Status osmp_status_ = (expr);          \
    if (!osmp_status_.ok()) return osmp_status_;   \
  } while (0)

#define OSMP_CONCAT_INNER(a, b) a##b
#define OSMP_CONCAT(a, b) OSMP_CONCAT_INNER(a, b)

// OSMP_ASSIGN_OR_RETURN(auto x, make_x()): unwraps a Result or returns its Status.
#define OSMP_ASSIGN_OR_RETURN(decl, expr) \
  OSMP_ASSIGN_OR_RETURN_IMPL(OSMP_CONCAT(osmp_result_, __LINE__), decl, expr)
#define OSMP_ASSIGN_OR_RETURN_IMPL(tmp, decl, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  decl = std::move(tmp).value()
