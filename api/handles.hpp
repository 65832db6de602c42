// What an osmp_team* of the C interface really is: a handle, not a pointer.
//
// A handle is the 64-bit value [tag:16][generation:32][slot:16]: it names a
// slot of a process-wide registry and the generation of that slot it was
// issued for. osmp_finalize() ends the generation; the slot is reused only
// with the next one, so a stale handle never names a later team, and a slot
// that has used all 2^32 - 1 generations is retired, never reused. Nothing
// is dereferenced to check a handle: a value osmp never returned (NULL, a
// pointer to anything) fails the tag (no user-space address on x86-64 or
// AArch64 has these high bits), the slot or the generation check.
//
// find() takes no lock: two acquire loads and a compare, inline. add() and remove()
// take a mutex (team creation and finalize only).
//
// Memory ordering: add() writes the slot's team pointer, then release-stores
// `live` (the handle); find() acquire-loads `live` and reads the pointer only
// when it equals the handle, so it sees the pointer written before. remove()
// stores 0 to `live` before the team is freed. A call racing with
// osmp_finalize() of the same team on another thread is the caller's error
// (as MPI_Comm_free during a collective on that communicator), not checked.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace osmp::capi {

struct TeamEntry;  // api/capi.cpp: the team and its last message

using Handle = std::uint64_t;

// Why a handle names no team.
enum class BadHandle { none, null, foreign, finalized };
const char* describe(BadHandle why);

// Registers a team; 0 when every slot is in use or retired.
Handle add(TeamEntry* team);
// Unregisters the team `h` names and returns it (the caller frees it), or
// nullptr with the reason: a second remove() of a handle fails.
TeamEntry* remove(Handle h, BadHandle& why);

// The slots, read by find() inline (every call checks its handle); written
// by add() and remove() under handles.cpp's mutex.
namespace slots {
inline constexpr Handle kTag = 0x05a1;  // bits 48-63
inline constexpr unsigned kSlotBits = 16, kGenerationBits = 32;
inline constexpr std::size_t kSlots = std::size_t{1} << kSlotBits;
inline constexpr std::size_t kChunkSlots = 256;  // allocated a chunk at a time, never freed

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
// Constant-initialized (no guard on the hot path); never freed: handles may
// be checked from other static destructors.
extern std::array<std::atomic<Chunk*>, kSlots / kChunkSlots> g_chunks;

inline std::uint32_t slot_of(Handle h) { return static_cast<std::uint32_t>(h & (kSlots - 1)); }

// The slot a handle names, without trusting anything else in it; nullptr
// when it names none that was ever issued.
inline Slot* lookup(Handle h) {
  if (h >> (kSlotBits + kGenerationBits) != kTag) return nullptr;
  // Acquire: pairs with add()'s release store of a new chunk, whose slots
  // are then seen constructed.
  Chunk* c = g_chunks[slot_of(h) / kChunkSlots].load(std::memory_order_acquire);
  return c ? &c->slots[slot_of(h) % kChunkSlots] : nullptr;
}

// Why `h`, which names no live team, is bad (takes the mutex).
BadHandle reason(Handle h, const Slot* slot);
}  // namespace slots

// The team `h` names, or nullptr with the reason in `why`.
inline TeamEntry* find(Handle h, BadHandle& why) {
  slots::Slot* slot = slots::lookup(h);
  // Acquire: pairs with add()'s release store, so `team` is the one it wrote.
  if (slot && slot->live.load(std::memory_order_acquire) == h) [[likely]]
    return slot->team;
  why = slots::reason(h, slot);
  return nullptr;
}

}  // namespace osmp::capi
