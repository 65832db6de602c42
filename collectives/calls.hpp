// The calls of a team, numbered, and what happens when a one-pass call finds
// an error that other ranks cannot see (docs/protocol.md, "One-pass calls").
//
// Every call on a team gets the next number (the same on every rank, since
// every rank makes the same calls) and its header goes into this rank's
// CallRecord (a ring; nobody reads it unless a call fails). A one-pass call
// does not agree on the headers before it moves data: the ranks that check
// (a receiver of a bcast, the root of a reduce) may find a mismatch that the
// others, already returned, never see. Such a rank raises the team's
// call-error word: (call number << 32) | status. Every rank reads the word
// at each call and, now and then, while it waits (WaitCheck); one that finds
// an error for a call it has reached stops that call and resynchronises:
//
//   1. each rank publishes in its record the call it is in and each view's
//      step counters, then waits for every other rank's (a rank that left
//      the team counts as arrived, with what it had);
//   2. every rank takes the same maxima: the step counters jump past every
//      flag anyone has published, and the furthest call T becomes everyone's
//      last; a rank behind skips its calls up to T (returning an error that
//      says so), so that the calls of every rank line up again;
//   3. every rank builds the same message from everyone's header of the
//      failed call (mismatch_message()).
//
// The call a rank is in when it learns of the error returns it ("not run" or
// "not completed", naming the failed call); the rank that found it returns
// its own error in the failed call itself. With OSMP_CHECK=strict no call is
// one-pass and nothing is ever raised.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "collectives/protocol.hpp"
#include "collectives/types.hpp"
#include "core/status.hpp"
#include "shm/wait.hpp"
#include "team/team.hpp"

namespace osmp {

class Engine;

// The team's call-error word (Calls::raise): the call's number in the high
// half, its status in the low.
namespace call_word {
constexpr std::uint32_t call_of(std::uint64_t word) { return static_cast<std::uint32_t>(word >> 32); }
// a after b, in 32-bit serial arithmetic (call numbers wrap in the word).
constexpr bool after(std::uint32_t a, std::uint32_t b) { return static_cast<std::int32_t>(a - b) > 0; }
}  // namespace call_word

class Calls final : public WaitCheck {
 public:
  // Records and the error word live in `base`'s control segment.
  explicit Calls(TeamCore& base);
  Calls(const Calls&) = delete;
  Calls& operator=(const Calls&) = delete;

  // The team's views: the base view's core (which holds the records and the
  // error word) and every view's engine, whose steps a resynchronisation
  // aligns (in the same order on every rank) and whose waits watch this.
  // Called again after every reconfiguration, on every rank at the same call.
  void bind(TeamCore& base, const std::vector<Engine*>& engines);

  // A new call with header `h`. Not ok: the call must not run: an earlier
  // call failed (the team resynchronised; the error names that call), or it
  // is skipped to line the calls up again. Inline: every call enters; the
  // refusals are out of line.
  Status enter(const OpHeader& h) {
    if (left_) [[unlikely]]
      return refused_after_finish(h);
    ++current_;
    CallRecord& me = *mine_;
    const std::size_t at = current_ % CallRecord::kRing;
    me.tag[at] = current_;
    std::memcpy(me.header[at], &h, sizeof h);
    // Release after the header: pairs with the acquire in finish(); nobody
    // sleeps on it long (finish() sleeps in short slices), so no wake.
    publish(me.entered, current_, false);
    if (current_ <= skip_until_) [[unlikely]]
      return skipped(h);
    digest_ = earlier_digest(h);
    if (pending_for(current_)) [[unlikely]]
      return not_run(h);
    return {};
  }
  // This rank found `status` in call `call` (the current one, or the one
  // before when the headers' `earlier` digests differ); others may not see it.
  void raise(std::uint64_t call, StatusWord status);
  // raise() for what this rank found in the current call: for the call
  // before when `status` is about the `earlier` digests (nothing if 0).
  void raise_found(StatusWord status);
  // The digest of this rank's last call (OpHeader::earlier): 0 at first and
  // after every resynchronisation, on every rank.
  std::uint16_t earlier() const { return digest_; }
  // The last call failed with a mismatch that every rank was told of in it
  // (OSMP_CHECK=strict's agreement): the next call does not compare it.
  void forget_earlier() { digest_ = 0; }
  // After the current call ended with `st`: if an error is pending for a
  // call this rank has reached, resynchronise and return the error this
  // call reports instead; else `st`. `own`: st is this call's own error
  // (arguments), which stands if the pending error is of this call too.
  Status settle(Status st, bool own);
  // Leaving the team. With `wait` (osmp_finalize, Team::finish): waits until
  // every rank has at least entered the call after this rank's last one (or
  // left), so that an error found in any call up to it is seen, and returns
  // it. Without (Team's destructor, which must not block on peers that may
  // destroy their teams later or in the same thread; MPI_Comm_free): only
  // leaves, returning an error already raised for a call up to its last.
  // `together`: every rank finishes this team now (the error is told the
  // same way on every rank, resynchronising); else (MPI_Finalize, which
  // finishes every team of the process in an order of its own) the message
  // comes from the records alone, and nobody waits for anybody's finish
  // but for the pseudo-call that announce_finish() enters.
  Status finish(bool wait, bool together = true);
  // Enters the pseudo-call after this rank's last (once): a rank that waits
  // in finish() for it needs nothing more of this one. MPI_Finalize
  // announces on every team before it finishes any, so that no two ranks
  // wait for each other's finish of two teams in opposite orders.
  void announce_finish();
  // Staying in the team between two owners (a freed communicator's team kept
  // for the next communicator over the same processes, mpi_glue/pmpi/
  // reuse.hpp): the error already raised for a call up to this rank's last,
  // as finish(wait = false) returns it, but without leaving: the next call,
  // the same on every rank, continues the numbering.
  Status pause() const { return !left_ && pending_for(current_) ? raised_error() : Status{}; }

  // While waiting: an error raised for a call this rank has reached, or one
  // that a view's engine finds in the other ranks' call records (Engine::peek).
  bool stale() noexcept override;
  // The message of a mismatch in the current call from every rank's record
  // (each has entered it: the verdict that says so came after all headers);
  // `verdict` if a record is missing.
  Status current_mismatch(Status verdict) const;
  std::uint64_t current() const { return current_; }
  // Rank r's header of the current call into `out`, once r has entered it
  // (false: not yet; its record of the call is kept for CallRecord::kRing calls).
  bool entered_header(int r, OpHeader& out) const;
  // The team's call-error word (in the base view's control segment, which
  // every view's engine must poll: Engine::error_pending).
  const std::atomic<std::uint64_t>& error_word_ref() const { return team_->call_error(); }
  // An error is pending for a call this rank has reached (relaxed: exact
  // once something acquired from its raiser happens-after the raise).
  bool pending() const { return pending_for(current_); }
  // The pending error is of the current call (settle() would only report it).
  bool failed_here() const;

 private:
  CallRecord& record(int r) const { return team_->call_record(r); }
  TeamCore& team() const { return *team_; }
  bool pending_for(std::uint64_t call) const {
    // Relaxed: polled on every call; acted on only after an acquire (resync()).
    const std::uint64_t w = team().call_error().load(std::memory_order_relaxed);
    return w != 0 && call_word::after(call_word::call_of(w), handled_) &&
           !call_word::after(call_word::call_of(w), static_cast<std::uint32_t>(call));
  }
  // enter()'s refusals: after Team::finish, a call skipped to line the calls
  // up again, an error pending for it (learned()).
  [[gnu::cold, gnu::noinline]] Status refused_after_finish(const OpHeader& h) const;
  [[gnu::cold, gnu::noinline]] Status skipped(const OpHeader& h) const;
  [[gnu::cold, gnu::noinline]] Status not_run(const OpHeader& h);
  // Acquire: pairs with raise()'s compare-exchange (acq_rel), after the raiser's records.
  std::uint64_t error_word() const { return team_->call_error().load(std::memory_order_acquire); }
  // `what` begins the error this rank's current call returns: "bcast: not
  // run", "finalize".
  Status resync(const std::string& what);
  // The current call learned of a pending error: resynchronise if it is of
  // an earlier call, else only report it (the next call resynchronises).
  Status learned(const std::string& what);
  void write_vals(int parity);
  std::string failed_call_message(std::uint32_t call, StatusWord status) const;
  // The raised error as finish() reports it, from the records (any rank's
  // missing header: the verdict's words alone).
  Status raised_error() const;
  std::string last_call_mismatch(std::uint64_t call) const;

  TeamCore* team_;
  CallRecord* mine_;  // record(team_->rank()), written on every call
  std::vector<Engine*> engines_;
  std::uint64_t current_ = 0;     // the call this rank is in (or last made)
  std::uint32_t handled_ = 0;     // errors of calls up to this one were dealt with
  std::uint64_t skip_until_ = 0;  // calls up to this one are skipped
  std::uint64_t round_ = 0;       // resynchronisations so far
  std::uint16_t digest_ = 0;      // earlier_digest() of the last call made
  std::string failed_;            // the last failed call, as the skipped calls name it
  bool resyncing_ = false;
  bool announced_ = false;  // announce_finish()
  bool alone_ = false;      // finish(wait, together = false) waits for every rank's records
  bool left_ = false;
};

}  // namespace osmp
