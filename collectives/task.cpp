#include "collectives/task.hpp"

#include <new>

namespace osmp {
namespace {

// Before each frame: the cache it returns to (null: the heap), on a whole
// alignment unit so that the frame stays aligned.
constexpr std::size_t kHead = __STDCPP_DEFAULT_NEW_ALIGNMENT__;

}  // namespace

FrameCache::~FrameCache() {
  for (Slot& s : slots_) ::operator delete(s.block);
}

void* frame_alloc(std::size_t bytes, FrameCache* cache) {
  const std::size_t all = bytes + kHead;
  void* block = cache ? cache->take(all) : nullptr;
  if (!block) block = ::operator new(all);
  *static_cast<FrameCache**>(block) = cache;
  return static_cast<std::byte*>(block) + kHead;
}

void frame_free(void* frame, std::size_t bytes) noexcept {
  void* block = static_cast<std::byte*>(frame) - kHead;
  FrameCache* cache = *static_cast<FrameCache**>(block);
  if (cache && cache->keep(block, bytes + kHead)) return;
  ::operator delete(block);
}

}  // namespace osmp
