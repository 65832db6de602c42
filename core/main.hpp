// The commands' main(): no exception (std::bad_alloc, a bug) ends a command
// through std::terminate without a word; it says what happened and exits
// with 70 (EX_SOFTWARE).
#pragma once

#include <cstdio>
#include <exception>

namespace osmp {

template <class F>
int guarded_main(const char* command, F&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", command, e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: internal error: an unknown exception\n", command);
  }
  return 70;
}

}  // namespace osmp
