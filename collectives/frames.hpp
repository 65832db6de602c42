// Where a call's coroutine frames come from (collectives/task.hpp): each
// engine keeps the few it freed last, so that a blocking call, which builds
// and frees one or two of the same sizes every time, never reaches malloc.
// One thread uses an engine at a time, as it does its team.
#pragma once

#include <array>
#include <cstddef>

namespace osmp {

class FrameCache {
 public:
  FrameCache() = default;
  FrameCache(const FrameCache&) = delete;
  FrameCache& operator=(const FrameCache&) = delete;
  ~FrameCache();
  // A block of exactly `bytes` freed earlier (null: none kept).
  void* take(std::size_t bytes) noexcept {
    for (Slot& s : slots_) {
      if (s.block && s.bytes == bytes) {
        void* p = s.block;
        s.block = nullptr;
        return p;
      }
    }
    return nullptr;
  }
  // Keeps `block` for a later take(); false when full (the caller frees it).
  bool keep(void* block, std::size_t bytes) noexcept {
    for (Slot& s : slots_) {
      if (!s.block) {
        s = {block, bytes};
        return true;
      }
    }
    return false;
  }

 private:
  struct Slot {
    void* block = nullptr;
    std::size_t bytes = 0;
  };
  std::array<Slot, 8> slots_{};
};

}  // namespace osmp
