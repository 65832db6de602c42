#include "collectives/calls.hpp"

#include <algorithm>
#include <cstring>

#include "collectives/engine.hpp"
#include "collectives/step.hpp"

namespace osmp {
namespace {

using call_word::after;
using call_word::call_of;
constexpr StatusWord status_of(std::uint64_t word) { return static_cast<StatusWord>(word & 0xffffffffu); }

}  // namespace

Calls::Calls(TeamCore& base) : team_(&base), mine_(&base.call_record(base.rank())) {}

void Calls::bind(TeamCore& base, const std::vector<Engine*>& engines) {
  if (&base != team_) {
    // A new base view: its records and error word start empty. Errors of
    // the calls before were dealt with (configure is a call of its own).
    team_ = &base;
    mine_ = &base.call_record(base.rank());
    handled_ = static_cast<std::uint32_t>(current_);
  }
  engines_ = engines;
  for (Engine* e : engines_) e->set_calls(this);
}

bool Calls::stale() noexcept {
  if (resyncing_ || alone_) return false;
  if (pending_for(current_)) return true;
  for (Engine* e : engines_) {
    if (StatusWord w = e->peek()) {
      raise_found(w);
      return pending_for(current_);
    }
  }
  return false;
}

bool Calls::entered_header(int r, OpHeader& out) const {
  const CallRecord& rec = record(r);
  // Acquire pairs with enter()'s release of `entered`, after the tag and header.
  if (!reached(rec.entered.value.load(std::memory_order_acquire), current_)) return false;
  const std::size_t at = current_ % CallRecord::kRing;
  if (rec.tag[at] != current_) return false;
  std::memcpy(&out, rec.header[at], sizeof(OpHeader));
  return true;
}

Status Calls::current_mismatch(Status verdict) const {
  const std::size_t at = current_ % CallRecord::kRing;
  std::vector<OpHeader> all(static_cast<std::size_t>(team().size()));
  for (int r = 0; r < team().size(); ++r) {
    const CallRecord& rec = record(r);
    // Acquire pairs with enter()'s release of `entered`, after the tag and
    // header (a rank that has left has published kLeft, also after them).
    if (!reached(rec.entered.value.load(std::memory_order_acquire), current_)) return verdict;
    if (rec.tag[at] != current_) return verdict;
    std::memcpy(&all[static_cast<std::size_t>(r)], rec.header[at], sizeof(OpHeader));
  }
  std::string m = mismatch_message(all[static_cast<std::size_t>(team().rank())], all);
  return m.empty() ? verdict : Status(Errc::mismatch, std::move(m));
}

Status Calls::refused_after_finish(const OpHeader& h) const {
  return Status(Errc::invalid_argument,
                cat(to_string(static_cast<OpKind>(h.kind)), ": this rank has finished the team (Team::finish)"));
}

Status Calls::skipped(const OpHeader& h) const {
  return Status(Errc::mismatch, cat(to_string(static_cast<OpKind>(h.kind)),
                                    ": not run: skipped to line the calls up again after ", failed_));
}

Status Calls::not_run(const OpHeader& h) { return learned(cat(to_string(static_cast<OpKind>(h.kind)), ": not run")); }

Status Calls::learned(const std::string& what) {
  const std::uint64_t w = error_word();
  if (call_of(w) != static_cast<std::uint32_t>(current_)) return resync(what);
  // This very call failed elsewhere. Resynchronising now would wait for
  // ranks that completed it and may wait for this one before their next
  // call (another thread, a message): only say so, and resynchronise at the
  // next call, which every rank reaches on its own.
  OpHeader h;
  std::memcpy(&h, record(team().rank()).header[current_ % CallRecord::kRing], sizeof h);
  std::string why = verdict_error(status_of(w), h, team().rank()).message();
  why.erase(0, why.find(": ") + 2);  // verdict_error() names the operation, as `what` does
  return Status(status_code(status_of(w)) == Errc::invalid_argument ? Errc::invalid_argument : Errc::mismatch,
                cat(what, ": ", why, "; the next call on this team names each rank's side"));
}

void Calls::raise(std::uint64_t call, StatusWord status) {
  auto& word = team().call_error();
  const std::uint64_t mine = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(call)) << 32) | status;
  std::uint64_t now = word.load(std::memory_order_acquire);
  // The first unhandled error stays; acq_rel publishes mine to whoever acts on it.
  while (now == 0 || !after(call_of(now), handled_)) {
    if (word.compare_exchange_weak(now, mine, std::memory_order_acq_rel)) break;
  }
}

void Calls::raise_found(StatusWord status) {
  // About the `earlier` digests: the call before failed unseen.
  if (status != 0) raise(status_field(status) == Field::earlier ? current_ - 1 : current_, status);
}

bool Calls::failed_here() const {
  // Acquire: pairs with raise()'s compare-exchange (acq_rel).
  return pending_for(current_) && call_of(error_word()) == static_cast<std::uint32_t>(current_);
}

Status Calls::settle(Status st, bool own) {
  if (st.ok() || !pending_for(current_)) return st;
  if (own && failed_here()) return st;
  OpHeader h;
  std::memcpy(&h, record(team().rank()).header[current_ % CallRecord::kRing], sizeof h);
  return learned(cat(to_string(static_cast<OpKind>(h.kind)), ": not completed"));
}

void Calls::write_vals(int par) {
  CallRecord& me = record(team().rank());
  std::uint64_t* v = me.vals[par];
  std::size_t i = 0;
  v[i++] = current_;
  for (Engine* e : engines_) {
    if (i + 2 > CallRecord::kVals) break;  // more views than a record holds: Views caps them
    v[i++] = e->step();
    v[i++] = e->flat_step();
  }
}

Status Calls::resync(const std::string& what) {
  resyncing_ = true;
  const int me = team().rank(), n = team().size();
  ++round_;
  const int par = static_cast<int>(round_ % 2);
  // The error this round handles, read before my `sync`: nobody can replace
  // it until every rank has published its `sync` (raise() keeps an error
  // that the raiser has not handled), so every rank reads the same word. A
  // rank that finishes the round first may raise the next error at once.
  const std::uint64_t w = error_word();
  write_vals(par);
  publish(record(me).sync, round_, team().waiter().may_sleep());  // after the values
  for (int r = 0; r < n; ++r) {
    if (r == me) continue;
    // Acquire pairs with that rank's publish of `sync` (or its leaving).
    WaitStatus ws = team().waiter().wait(record(r).sync, round_, r);
    if (ws != WaitStatus::ok) {
      resyncing_ = false;
      return team().fail(ws);
    }
  }
  // Everyone is here: the same maxima on every rank.
  std::uint64_t last = 0;
  std::vector<std::uint64_t> steps(2 * engines_.size(), 0);
  for (int r = 0; r < n; ++r) {
    const std::uint64_t* v = record(r).vals[par];
    last = std::max(last, v[0]);
    for (std::size_t i = 0; i < steps.size() && i + 1 < CallRecord::kVals; ++i) steps[i] = std::max(steps[i], v[i + 1]);
  }
  for (std::size_t i = 0; i < engines_.size(); ++i) {
    // Past every flag anyone published, by a whole parity round.
    engines_[i]->realign(steps[2 * i] + 2, steps[2 * i + 1] + 2);
  }
  handled_ = call_of(w);
  failed_ = failed_call_message(call_of(w), status_of(w));
  skip_until_ = last;
  digest_ = 0;  // the calls line up again from here, on every rank
  resyncing_ = false;
  return Status(status_code(status_of(w)) == Errc::invalid_argument ? Errc::invalid_argument : Errc::mismatch,
                cat(what, ": ", failed_));
}

std::string Calls::failed_call_message(std::uint32_t call, StatusWord status) const {
  const int n = team().size();
  const std::size_t at = call % CallRecord::kRing;
  std::vector<OpHeader> all(static_cast<std::size_t>(n));
  bool complete = true;
  for (int r = 0; r < n; ++r) {
    const CallRecord& rec = record(r);
    complete = complete && static_cast<std::uint32_t>(rec.tag[at]) == call;
    std::memcpy(&all[static_cast<std::size_t>(r)], rec.header[at], sizeof(OpHeader));
  }
  const OpHeader& mine = all[static_cast<std::size_t>(team().rank())];
  std::string what = complete ? mismatch_message(mine, all) : "";
  if (what.empty()) what = verdict_error(status, mine, team().rank()).message();
  return cat("call ", call, " on this team failed: ", what);
}

std::string Calls::last_call_mismatch(std::uint64_t call) const {
  if (call == 0 || !after(static_cast<std::uint32_t>(call), handled_) || call <= skip_until_) return "";
  const std::size_t at = call % CallRecord::kRing;
  std::vector<OpHeader> all;
  OpHeader mine{};
  for (int r = 0; r < team().size(); ++r) {
    const CallRecord& rec = record(r);
    if (rec.tag[at] != call) continue;  // left before it (its destructor): nothing to compare
    OpHeader h;
    std::memcpy(&h, rec.header[at], sizeof h);
    if (r == team().rank()) mine = h;
    all.push_back(h);
  }
  std::string what = mismatch_message(mine, all);
  return what.empty() ? what : cat("call ", call, " on this team failed: ", what);
}

void Calls::announce_finish() {
  if (left_ || announced_ ||
      std::none_of(engines_.begin(), engines_.end(), [](const Engine* e) { return e->unit_acks(); })) {
    return;
  }
  // A pseudo-call after my last: once every rank has entered it, any error
  // of a call up to my last was raised (before its finder's next call).
  ++current_;
  // Release: after my records of every call up to it (enter()); pairs with
  // the acquire of the waits in finish() on every other rank.
  publish(record(team().rank()).entered, current_, false);
  announced_ = true;
}

Status Calls::raised_error() const {
  const std::uint64_t w = error_word();  // acquire: after the raiser's records
  return Status(status_code(status_of(w)) == Errc::invalid_argument ? Errc::invalid_argument : Errc::mismatch,
                cat("finalize: ", failed_call_message(call_of(w), status_of(w))));
}

Status Calls::finish(bool wait, bool together) {
  if (left_) return {};
  CallRecord& me = record(team().rank());
  Status st;
  if (wait) announce_finish();
  if (wait && announced_) {
    // Alone, the message comes from every rank's records: the waits look
    // past a raised error (stale()) until every rank has entered.
    alone_ = !together;
    for (int r = 0; r < team().size() && st.ok(); ++r) {
      if (r == team().rank()) continue;
      WaitStatus ws = team().waiter().wait(record(r).entered, current_, r);
      if (ws == WaitStatus::stale) break;
      if (ws != WaitStatus::ok) st = team().fail(ws);
    }
    alone_ = false;
    if (st.ok() && pending_for(current_) && together) {
      st = resync("finalize");
    } else if (st.ok() && pending_for(current_)) {
      st = raised_error();
    } else if (st.ok()) {
      // My last call may have failed where nobody compared (two ranks that
      // both thought they were a bcast's root) and no later call did: the
      // records say, the same to every rank.
      std::string what = last_call_mismatch(current_ - 1);
      if (!what.empty()) st = Status(Errc::mismatch, cat("finalize: ", what));
    }
  } else if (!wait && pending_for(current_)) {
    st = raised_error();  // leaving without waiting: only what was raised already
  }
  // Leaving: the next resynchronisation finds my last values. Only its
  // parity: a rank late in the round just done may still read the other.
  write_vals(static_cast<int>((round_ + 1) % 2));
  publish(me.sync, CallRecord::kLeft, team().waiter().may_sleep());
  publish(me.entered, CallRecord::kLeft, false);
  left_ = true;
  return st;
}

}  // namespace osmp
