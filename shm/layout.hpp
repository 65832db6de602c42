// Where things live inside a segment: pure functions returning offsets, so
// that every process computes the same layout from the same parameters and
// nothing in shared memory holds a pointer.
//
// Group segment (one per group of the communication tree):
//
//   SegmentHeader                                        creator, once
//   LeaderCtrl[kLeaderLines]        128 B each           written by the group's local root
//                                                        (line p: the release of the calls of
//                                                        sequence parity p)
//   MemberCtrl[2][members]          128 B each           MemberCtrl[p][i] written by member i
//   DataSlot[2][members]            slot_bytes each      DataSlot[p][i] written by member i
//   Bcast[2]                        bcast_bytes each     written by the leader (or the root's
//                                                        representative) of the op
//
// The data areas are double-buffered by sequence parity: operation s uses
// buffer s % 2, so a writer may fill s + 1 while readers still read s. Data
// areas start on page boundaries so each can be placed on its writer's NUMA
// node. Control and job/team segments follow the same rules.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/constants.hpp"
#include "core/status.hpp"
#include "shm/flag.hpp"
#include "shm/segment.hpp"

namespace osmp {

inline constexpr std::size_t kPage = 4096;
inline constexpr int kLeaderLines = 2;
inline constexpr int kBuffers = 2;  // double buffering by sequence parity

// Defaults (OSMP_SLOT_SIZE, OSMP_BCAST_SIZE): 64 KiB keeps a member's chunk
// in its core's L2 and a 16-member group's segment near 2 MiB.
inline constexpr std::size_t kDefaultSlotBytes = 64 * 1024;
inline constexpr std::size_t kDefaultBcastBytes = 64 * 1024;
inline constexpr std::size_t kMaxAreaBytes = std::size_t{1} << 30;

// One control line: three flags (ready, ack, part) and a small inline area,
// all written by one process. The first 64 bytes hold `ready` and 48 bytes beside it, so a small
// payload travels in the same cache line as the flag that announces it.
//
// The collectives put the op header and 32 bytes of data in `inline_data`
// and a status word in `ready.word` (collectives/protocol.hpp).
//
// Memory ordering: the owner writes `inline_data` and `ready.word` first and
// then publishes `ready` with release; `ack` and `part` guard the owner's
// progress and the shared data it wrote before them. Readers acquire the flag
// before reading the rest (see flag.hpp; docs/protocol.md pairs every store
// with its loads).
struct alignas(kFalseSharingRange) CtrlLine {
  Flag ready;                 // "I reached step s" (arrival, release, data ready)
  std::byte inline_data[48];  // small payloads, same 64-byte line as `ready`
  Flag ack;                   // "I consumed step s" (buffer may be reused)
  Flag part;                  // "my part of step s is in place" (slice-parallel reduction; lazy gatherv's writers)
  // Unused: `ack` and `part` get a 64-byte line of their own, so that a reader
  // polling them never shares a line with the data beside `ready`.
  std::byte spare[32];
};
static_assert(sizeof(CtrlLine) == kFalseSharingRange);
static_assert(offsetof(CtrlLine, inline_data) + sizeof(CtrlLine::inline_data) <= kCacheLine);
static_assert(offsetof(CtrlLine, ack) == kCacheLine);

struct GroupLayoutParams {
  int members = 0;
  std::size_t slot_bytes = kDefaultSlotBytes;
  std::size_t bcast_bytes = kDefaultBcastBytes;
};

struct GroupLayout {
  GroupLayoutParams params;
  std::size_t leader_ctrl = 0;  // offset of LeaderCtrl[0]
  std::size_t member_ctrl = 0;  // offset of MemberCtrl[0]
  std::size_t slots = 0;        // offset of DataSlot[0][0]
  std::size_t bcast = 0;        // offset of Bcast[0]
  std::size_t total = 0;        // segment size, a page multiple

  std::size_t leader_line(int i) const { return leader_ctrl + static_cast<std::size_t>(i) * kFalseSharingRange; }
  // Double-buffered by step parity, so that members may read each other's
  // lines of one step while the next is being written.
  std::size_t member_line(int i, int parity = 0) const {
    return member_ctrl +
           (static_cast<std::size_t>(parity) * static_cast<std::size_t>(params.members) + static_cast<std::size_t>(i)) *
               kFalseSharingRange;
  }
  std::size_t slot(int parity, int member) const {
    return slots + (static_cast<std::size_t>(parity) * static_cast<std::size_t>(params.members) +
                    static_cast<std::size_t>(member)) *
                       params.slot_bytes;
  }
  std::size_t bcast_area(int parity) const { return bcast + static_cast<std::size_t>(parity) * params.bcast_bytes; }
};

// Slot and bcast sizes are rounded up to whole pages; errors name the bad value.
Result<GroupLayout> make_group_layout(GroupLayoutParams params);

// Control segment of a team or a job: abort word, one line per rank, and (for
// the job segment of osmprun) the bootstrap exchange area.
//
//   SegmentHeader
//   Control (128 B)                 abort and call-error words, written by anyone (CAS)
//   RankLine[ranks]      128 B each RankLine[r] written by rank r
//   CallRecord[ranks]    640 B each CallRecord[r] written by rank r (collectives/calls.hpp)
//   ExchangeItem[ranks]  item_bytes each, written by rank r (bootstrap allgather)
//   ExchangeBcast        bcast_bytes, written by the broadcast root
struct ControlLayoutParams {
  int ranks = 0;
  std::size_t item_bytes = 0;  // 0: no exchange area (team control segments)
  std::size_t bcast_bytes = 0;
};

struct ControlLayout {
  ControlLayoutParams params;
  std::size_t control = 0;
  std::size_t rank_lines = 0;
  std::size_t records = 0;
  std::size_t items = 0;
  std::size_t bcast = 0;
  std::size_t total = 0;
  std::size_t rank_line(int r) const { return rank_lines + static_cast<std::size_t>(r) * kFalseSharingRange; }
  std::size_t item(int r) const { return items + static_cast<std::size_t>(r) * params.item_bytes; }
  std::size_t record(int r) const;
};

Result<ControlLayout> make_control_layout(ControlLayoutParams params);

// The shared control block of a team or job.
//
// Memory ordering: `abort` goes from 0 to a reason once (compare-exchange,
// acq_rel); readers poll it relaxed and re-read it with acquire before
// reporting. Any process of the team or job may raise it; osmprun and its
// watchdog raise the job's.
//
// `error` (team segments): the first error a one-pass call found, as
// (call number << 32) | status word (collectives/calls.hpp). It goes from
// one value to the next by compare-exchange (acq_rel); readers poll it
// relaxed at every call and while waiting, and acquire it before acting.
struct alignas(kFalseSharingRange) ControlBlock {
  std::atomic<std::uint64_t> abort{0};  // 0: running; else encode_abort()
  std::atomic<std::uint64_t> error{0};  // 0: none yet; else the latest call error
  std::byte reserved[kFalseSharingRange - 16];
};
static_assert(sizeof(ControlBlock) == kFalseSharingRange);

// One line per rank.
//
// Writers: `arrive`, `done`, `user`, `address`, `length` only by rank r.
// `pid` (job segments) by the process that claims rank r, once, by a
// compare-exchange from 0: a second claimant sees the first and backs off.
// `launched` (job segments of osmprun) by osmprun: its child stores its own
// pid before it execs the program, osmprun stores 0 once it has reaped it
// (so that its watchdog never signals a reused pid).
//
// Memory ordering: `address` and the rank's exchange item are written before
// `arrive` is published (release); readers acquire `arrive` first. `offer`
// is written before the call's header step, whose round trip orders it
// before every rank's reads (collectives/ops/direct.cpp). `pid` is
// claimed acq_rel and read with acquire; `launched` is stored before the
// program runs (exec orders it) and read relaxed.
struct alignas(kFalseSharingRange) RankLine {
  Flag arrive;  // step reached (bootstrap exchange, flat collectives)
  Flag done;    // step consumed
  Flag user;    // free for tests and tools (TeamCore::rank_flag)
  std::atomic<std::uint64_t> pid{0};
  std::atomic<std::uint64_t> address{0};  // single copy: where this rank's data is this step
  std::atomic<std::uint64_t> length{0};
  std::atomic<std::uint64_t> launched{0};
  // Single copy through the shared heap: where this rank's send and receive
  // buffers of a call are in its heap (offsets, 0: not there) and the call's
  // header step, [call parity][send, recv, step].
  std::atomic<std::uint64_t> offer[2][3] = {};
};
static_assert(sizeof(RankLine) == kFalseSharingRange);

// One per rank, written only by that rank: the headers of its latest calls
// (a ring, each tagged with its call number) and what it brings to a
// resynchronisation after an error (collectives/calls.hpp says how they are
// used). Readers acquire `sync` before reading `vals` of that round, and read
// the ring only in a resynchronisation or in Calls::finish() once every rank
// has entered its last call, when its writer has stopped writing.
struct alignas(kFalseSharingRange) CallRecord {
  static constexpr int kRing = 8;
  static constexpr int kVals = 24;
  static constexpr std::uint64_t kLeft = std::uint64_t{1} << 62;  // both flags, once the rank left
  Flag sync;                                                      // resynchronisation round reached
  Flag entered;  // the call this rank is in (release, after its header)
  std::byte pad[kCacheLine - 2 * sizeof(Flag)];
  std::uint64_t tag[kRing];      // the call number whose header is in header[i]
  std::byte header[kRing][16];   // the call's header (collectives/protocol.hpp OpHeader)
  std::uint64_t vals[2][kVals];  // [round parity]: call, then each view's steps
};
static_assert(sizeof(CallRecord) == 640);

// Why a team or job stopped. The first reason wins.
enum class AbortCode : std::uint32_t {
  none = 0,
  peer_dead = 1,    // `rank` died (found by a waiter or by the launcher)
  rank_failed = 2,  // `rank` exited with an error or was killed (launcher)
  user = 3,         // `rank` called abort
  launcher = 4,     // the launcher is gone or was interrupted
  timeout = 5,      // the launcher's --timeout expired
};
constexpr std::uint64_t encode_abort(AbortCode code, int rank) {
  return (static_cast<std::uint64_t>(code) << 32) | static_cast<std::uint32_t>(rank + 1);
}
constexpr AbortCode abort_code(std::uint64_t word) { return static_cast<AbortCode>(word >> 32); }
constexpr int abort_rank(std::uint64_t word) { return static_cast<int>(word & 0xffffffffu) - 1; }
// Sets the abort word unless it already holds a reason; returns the word now in place.
std::uint64_t raise_abort(std::atomic<std::uint64_t>& word, AbortCode code, int rank);
// "rank 3 died" etc.
std::string describe_abort(std::uint64_t word);
// The error a stopped team or job gives: peer_dead when a rank died, else aborted.
constexpr Errc abort_errc(std::uint64_t word) {
  return abort_code(word) == AbortCode::peer_dead ? Errc::peer_dead : Errc::aborted;
}

}  // namespace osmp
