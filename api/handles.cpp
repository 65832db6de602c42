#include "api/handles.hpp"

#include <array>
#include <atomic>
#include <mutex>
#include <vector>

namespace osmp::capi {
namespace {

static_assert(sizeof(void*) == sizeof(Handle), "handles travel as pointers: 64-bit only");

constexpr Handle kTag = 0x05a1;  // bits 48-63
constexpr unsigned kSlotBits = 16, kGenerationBits = 32;
constexpr std::uint32_t kLastGeneration = ~std::uint32_t{0};
constexpr std::size_t kSlots = std::size_t{1} << kSlotBits;
constexpr std::size_t kChunkSlots = 256;  // slots are allocated a chunk at a time, never freed

Handle make(std::uint32_t slot, std::uint32_t generation) {
  return kTag << (kSlotBits + kGenerationBits) | Handle{generation} << kSlotBits | slot;
}
std::uint32_t slot_of(Handle h) { return static_cast<std::uint32_t>(h & (kSlots - 1)); }
std::uint32_t generation_of(Handle h) { return static_cast<std::uint32_t>(h >> kSlotBits); }

struct Slot {
  // The handle valid here now, 0 when none. Written under the mutex; read
  // without it (find()).
  std::atomic<Handle> live{0};
  TeamEntry* team = nullptr;     // written before `live` (release), under the mutex
  std::uint32_t generation = 0;  // the last one issued; under the mutex
};
struct Chunk {
  std::array<Slot, kChunkSlots> slots;
};

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
      auto& c = chunks_[s / kChunkSlots];
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

  TeamEntry* find(Handle h, BadHandle& why) const {
    Slot* slot = lookup(h);
    // Acquire: pairs with add()'s release store, so `team` is the one it wrote.
    if (slot && slot->live.load(std::memory_order_acquire) == h) return slot->team;
    why = reason(h, slot);
    return nullptr;
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

 private:
  Slot& at(std::uint32_t s) const {
    return chunks_[s / kChunkSlots].load(std::memory_order_acquire)->slots[s % kChunkSlots];
  }

  // The slot a handle names, without trusting anything else in it; nullptr
  // when it names none that was ever issued.
  Slot* lookup(Handle h) const {
    if (h >> (kSlotBits + kGenerationBits) != kTag) return nullptr;
    Chunk* c = chunks_[slot_of(h) / kChunkSlots].load(std::memory_order_acquire);
    return c ? &c->slots[slot_of(h) % kChunkSlots] : nullptr;
  }

  BadHandle reason(Handle h, Slot* slot) const {
    std::lock_guard lock(mu_);
    return reason_locked(h, slot);
  }

  // Not live: finalized if this slot issued that generation, else never ours.
  BadHandle reason_locked(Handle h, const Slot* slot) const {
    if (h == 0) return BadHandle::null;
    const std::uint32_t g = generation_of(h);
    return slot && g != 0 && g <= slot->generation ? BadHandle::finalized : BadHandle::foreign;
  }

  mutable std::mutex mu_;
  std::array<std::atomic<Chunk*>, kSlots / kChunkSlots> chunks_{};
  std::size_t used_ = 0;
  std::vector<std::uint32_t> free_;
};

// Constant-initialized (no guard on the hot path) and never destroyed:
// handles may be checked from other static destructors.
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
TeamEntry* find(Handle h, BadHandle& why) { return registry().find(h, why); }
TeamEntry* remove(Handle h, BadHandle& why) { return registry().remove(h, why); }

}  // namespace osmp::capi
