#include "core/log.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>

#include "core/env.hpp"

namespace osmp {
namespace {

int initial_level() {
  auto v = env_int("OSMP_VERBOSE", 1, 0, 3);
  if (!v.ok()) {
    std::fprintf(stderr, "osmp: %s; using 1\n", v.status().message().c_str());
    return 1;
  }
  return static_cast<int>(*v);
}

std::mutex g_tag_mutex;
std::string g_tag;  // guarded by g_tag_mutex

const char* level_name(LogLevel level) {
  switch (level) {
    case LogLevel::error: return "error";
    case LogLevel::warn: return "warning";
    case LogLevel::info: return "info";
    case LogLevel::debug: return "debug";
  }
  return "";
}

}  // namespace

// Relaxed: the level is a filter; a late update only changes which lines print.
std::atomic<int> g_log_level{initial_level()};

void set_log_level(LogLevel level) { g_log_level.store(static_cast<int>(level), std::memory_order_relaxed); }

void set_log_tag(std::string_view tag) {
  std::lock_guard lock(g_tag_mutex);
  g_tag = tag;
}

void log_line(LogLevel level, std::string_view text) {
  std::string line;
  {
    std::lock_guard lock(g_tag_mutex);
    line = g_tag.empty() ? cat("osmp ", level_name(level), ": ", text, "\n")
                         : cat("osmp[", g_tag, "] ", level_name(level), ": ", text, "\n");
  }
  // One write(2) per line so that lines of different processes do not interleave.
  ssize_t rc = ::write(STDERR_FILENO, line.data(), line.size());
  (void)rc;
}

}  // namespace osmp
