#include "api/handles.hpp"

#include <array>
#include <atomic>
#include <mutex>
#include <vector>

namespace osmp::capi {

namespace slots {
constinit std::array<std::atomic<Chunk*>, kSlots / kChunkSlots> g_chunks{};
}  // namespace slots

namespace {

using namespace slots;  // NOLINT(google-build-using-namespace): this file is their owner

static_assert(sizeof(void*) == sizeof(Handle), "handles travel as pointers: 64-bit only");

constexpr std::uint32_t kLastGeneration = ~std::uint32_t{0};

Handle make(std::uint32_t slot, std::uint32_t generation) {
  return kTag << (kSlotBits + kGenerationBits) | Handle{generation} << kSlotBits | slot;
}
std::uint32_t generation_of(Handle h) { return static_cast<std::uint32_t>(h >> kSlotBits); }

// add() and remove(), under one mutex; find() (handles.hpp) reads the slots
// without it.
class Registry {
 public:
  Handle add(TeamEntry* t) {
    std::lock_guard lock(mu_);
    std::uint32_t s;
    if (!free_.empty()) {
      s = free_.back();
      free_.pop_back();
    } else if (used_ < kSlots) {
      s = static_cast<std::uint32_t>(used_++);
      auto& c = g_chunks[s / kChunkSlots];
      // Release: a find() that acquire-loads the chunk sees its slots constructed.
      if (!c.load(std::memory_order_relaxed)) c.store(new Chunk, std::memory_order_release);
    } else {
      return 0;
    }
    Slot& slot = at(s);
    slot.team = t;
    const Handle h = make(s, ++slot.generation);
    slot.live.store(h, std::memory_order_release);  // after `team`; pairs with find()'s acquire
    return h;
  }

  TeamEntry* remove(Handle h, BadHandle& why) {
    std::lock_guard lock(mu_);
    Slot* slot = lookup(h);
    if (!slot || slot->live.load(std::memory_order_relaxed) != h) {
      why = reason_locked(h, slot);
      return nullptr;
    }
    slot->live.store(0, std::memory_order_release);  // before the caller frees the team
    TeamEntry* t = slot->team;
    slot->team = nullptr;
    if (slot->generation != kLastGeneration) free_.push_back(slot_of(h));  // else retired
    return t;
  }

  BadHandle reason(Handle h, const Slot* slot) const {
    std::lock_guard lock(mu_);
    return reason_locked(h, slot);
  }

 private:
  static Slot& at(std::uint32_t s) {
    return g_chunks[s / kChunkSlots].load(std::memory_order_acquire)->slots[s % kChunkSlots];
  }

  // Not live: finalized if this slot issued that generation, else never ours.
  static BadHandle reason_locked(Handle h, const Slot* slot) {
    if (h == 0) return BadHandle::null;
    const std::uint32_t g = generation_of(h);
    return slot && g != 0 && g <= slot->generation ? BadHandle::finalized : BadHandle::foreign;
  }

  mutable std::mutex mu_;
  std::size_t used_ = 0;
  std::vector<std::uint32_t> free_;
};

// Constant-initialized and never destroyed: handles may be added or removed
// from other static destructors.
union Storage {
  constexpr Storage() : registry() {}
  ~Storage() {}
  Registry registry;
};
constinit Storage g_storage;
Registry& registry() { return g_storage.registry; }

}  // namespace

const char* describe(BadHandle why) {
  switch (why) {
    case BadHandle::none: return "a valid team";
    case BadHandle::null: return "the team handle is NULL";
    case BadHandle::foreign: return "not a team handle returned by osmp_init or osmp_init_with";
    case BadHandle::finalized: return "the team was finalized (osmp_finalize); its handle may not be used again";
  }
  return "a bad team handle";
}

Handle add(TeamEntry* team) { return registry().add(team); }
BadHandle slots::reason(Handle h, const Slot* slot) { return registry().reason(h, slot); }
TeamEntry* remove(Handle h, BadHandle& why) { return registry().remove(h, why); }

}  // namespace osmp::capi
