// Configuration from the environment. Every OSMP_* variable is read through
// these helpers so that a malformed value is an error naming the variable.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/status.hpp"

namespace osmp {

// The value of `name`, or nullopt when unset. An empty value counts as set.
std::optional<std::string> env_get(const char* name);

// Integer variable in [lo, hi]; `fallback` when unset or empty.
Result<long long> env_int(const char* name, long long fallback, long long lo, long long hi);

// Boolean variable: 1/0, yes/no, true/false, on/off; `fallback` when unset.
Result<bool> env_bool(const char* name, bool fallback);

// Size variable with optional K/M/G suffix; `fallback` when unset or empty.
Result<unsigned long long> env_size(const char* name, unsigned long long fallback);

}  // namespace osmp
