// Minimal leveled logging to stderr. OSMP_VERBOSE=0..3 sets the level
// (0 errors only, 1 warnings, 2 info, 3 debug); default 1.
#pragma once

#include <atomic>
#include <string_view>

#include "core/status.hpp"

namespace osmp {

enum class LogLevel : int { error = 0, warn = 1, info = 2, debug = 3 };

// The level now (log.cpp; relaxed: the level is a filter, a late update
// only changes which lines print). Inline: the calls' paths ask it.
extern std::atomic<int> g_log_level;
inline LogLevel log_level() { return static_cast<LogLevel>(g_log_level.load(std::memory_order_relaxed)); }
void set_log_level(LogLevel level);
// Tag printed in front of every line, e.g. "rank 3"; empty by default.
void set_log_tag(std::string_view tag);
void log_line(LogLevel level, std::string_view text);

// The line itself, out of the caller's path.
template <class... Args>
[[gnu::cold, gnu::noinline]] void log_now(LogLevel level, const Args&... args) {
  log_line(level, cat(args...));
}

// A line at `level` when the level lets it through: one load and a compare
// where it does not.
template <class... Args>
inline void log(LogLevel level, const Args&... args) {
  if (static_cast<int>(level) <= g_log_level.load(std::memory_order_relaxed)) [[unlikely]]
    log_now(level, args...);
}

}  // namespace osmp
