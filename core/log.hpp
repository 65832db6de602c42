// Minimal leveled logging to stderr. OSMP_VERBOSE=0..3 sets the level
// (0 errors only, 1 warnings, 2 info, 3 debug); default 1.
#pragma once

#include <string_view>

#include "core/status.hpp"

namespace osmp {

enum class LogLevel : int { error = 0, warn = 1, info = 2, debug = 3 };

LogLevel log_level();
void set_log_level(LogLevel level);
// Tag printed in front of every line, e.g. "rank 3"; empty by default.
void set_log_tag(std::string_view tag);
void log_line(LogLevel level, std::string_view text);

template <class... Args>
void log(LogLevel level, const Args&... args) {
  if (static_cast<int>(level) <= static_cast<int>(log_level())) log_line(level, cat(args...));
}

}  // namespace osmp
