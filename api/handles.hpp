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
// find() takes no lock: two acquire loads and a compare. add() and remove()
// take a mutex (team creation and finalize only).
//
// Memory ordering: add() writes the slot's team pointer, then release-stores
// `live` (the handle); find() acquire-loads `live` and reads the pointer only
// when it equals the handle, so it sees the pointer written before. remove()
// stores 0 to `live` before the team is freed. A call racing with
// osmp_finalize() of the same team on another thread is the caller's error
// (as MPI_Comm_free during a collective on that communicator), not checked.
#pragma once

#include <cstdint>

namespace osmp::capi {

struct TeamEntry;  // api/capi.cpp: the team and its last message

using Handle = std::uint64_t;

// Why a handle names no team.
enum class BadHandle { none, null, foreign, finalized };
const char* describe(BadHandle why);

// Registers a team; 0 when every slot is in use or retired.
Handle add(TeamEntry* team);
// The team `h` names, or nullptr with the reason in `why`.
TeamEntry* find(Handle h, BadHandle& why);
// Unregisters the team `h` names and returns it (the caller frees it), or
// nullptr with the reason: a second remove() of a handle fails.
TeamEntry* remove(Handle h, BadHandle& why);

}  // namespace osmp::capi
