// Errors in two tiers (docs/design.md, rule 4). Hot paths return a bare Errc; setup
// and configuration return Status / Result<T> (defined in the public
// osmp_base.hpp), which carry a message naming what failed (level, rank,
// segment, errno) and where it was raised. Here: the helpers that build them.
#pragma once

#include <sstream>
#include <string>

#include "osmp_base.hpp"

namespace osmp {

// Concatenates anything streamable into one string.
template <class... Args>
std::string cat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

}  // namespace osmp

// Evaluates a Status-returning expression and returns it from the enclosing
// function when it is not ok.
#define OSMP_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::osmp::Status osmp_status_ = (expr);        \
    if (!osmp_status_.ok()) return osmp_status_; \
  } while (0)

#define OSMP_CONCAT_INNER(a, b) a##b
#define OSMP_CONCAT(a, b) OSMP_CONCAT_INNER(a, b)

// OSMP_ASSIGN_OR_RETURN(auto x, make_x()): unwraps a Result or returns its Status.
#define OSMP_ASSIGN_OR_RETURN(decl, expr) OSMP_ASSIGN_OR_RETURN_IMPL(OSMP_CONCAT(osmp_result_, __LINE__), decl, expr)
// `tmp` and `decl` are a name and a declaration: no parentheses can go there.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define OSMP_ASSIGN_OR_RETURN_IMPL(tmp, decl, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  decl = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
