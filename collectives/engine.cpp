#include "collectives/engine.hpp"

#include <algorithm>
#include <cstring>
#include <ostream>
#include <utility>

#include "collectives/arguments.hpp"
#include "collectives/calls.hpp"
#include "collectives/ops/common.hpp"
#include "collectives/ops/describe.hpp"
#include "collectives/requests.hpp"
#include "collectives/task.hpp"

namespace osmp {
namespace {

// The ranks of domain d in packed order: its units in group order, each
// unit's own packed order inside.
void packed_order(const Tree& t, int d, std::vector<int>& out) {
  const Domain& dom = t.domain(d);
  if (!dom.has_group()) {
    out.insert(out.end(), dom.members.begin(), dom.members.end());
    return;
  }
  for (int leader : dom.group) {
    int child = -1;
    for (int c : dom.children)
      if (t.domain(c).leader == leader) child = c;
    if (child >= 0) {
      packed_order(t, child, out);
    } else {
      out.push_back(leader);  // placed directly in d
    }
  }
}

}  // namespace

Result<std::unique_ptr<Engine>> Engine::create(TeamCore& team, const CollectiveConfig& config) {
  if (team.size() > kMaxTeamRanks) {
    return Status(Errc::invalid_argument,
                  cat("collectives: a team of ", team.size(), " ranks on rank ", team.rank(), ": at most ",
                      kMaxTeamRanks, " are supported (headers carry a root in 15 bits)"));
  }
  std::unique_ptr<Engine> e(new Engine(team, config));
  const Tree& tree = team.tree();
  for (Group& g : team.groups()) {
    Lane l;
    l.g = &g;
    const Domain& dom = tree.domain(g.domain);
    l.base = config.choose(dom.level, g.size());
    packed_order(tree, g.domain, l.packed);
    l.unit_size.assign(static_cast<std::size_t>(g.size()), 0);
    for (int r : l.packed) ++l.unit_size[static_cast<std::size_t>(g.unit_of_rank[static_cast<std::size_t>(r)])];
    l.size = g.size();
    for (int p = 0; p < kBuffers; ++p) {
      for (int u = 0; u < g.size(); ++u) {
        l.member[p].push_back(&g.member_line(u, p));
        l.slot[p].push_back(g.slot(p, u));
      }
      l.bcast[p] = g.bcast_area(p);
    }
    l.release = &g.leader_line(0);
    for (int p = 0; p < kBuffers; ++p) l.rel[p] = &g.leader_line(p);
    e->work_.emplace_back().size_to(g.size());
    l.unit_off.assign(static_cast<std::size_t>(g.size()), 0);
    for (int u = 1; u < g.size(); ++u)
      l.unit_off[static_cast<std::size_t>(u)] = l.unit_off[static_cast<std::size_t>(u - 1)] +
                                                static_cast<std::size_t>(l.unit_size[static_cast<std::size_t>(u - 1)]);
    e->lanes_.push_back(std::move(l));
  }
  packed_order(tree, 0, e->top_packed_);
  e->top_in_rank_order_ = true;
  for (std::size_t i = 0; i < e->top_packed_.size(); ++i)
    e->top_in_rank_order_ = e->top_in_rank_order_ && e->top_packed_[i] == static_cast<int>(i);
  e->slot_bytes_ = team.groups().empty() ? team.outbox_bytes() : team.groups().front().layout.params.slot_bytes;
  e->bcast_bytes_ = team.groups().empty() ? team.outbox_bytes() : team.groups().front().layout.params.bcast_bytes;
  e->scratch_bytes_ = std::max(e->slot_bytes_, e->bcast_bytes_);
  e->shape_ = plan_shape(tree, e->slot_bytes_, e->bcast_bytes_);
  e->settings_ = PlanSettings::of(config);
  if (!e->lanes_.empty() && e->shape_.top_units != e->lanes_.back().n()) {
    return Status(Errc::internal, cat("collectives: the top group on rank ", team.rank(), " has ", e->lanes_.back().n(),
                                      " units, the tree's root ", e->shape_.top_units));
  }
  e->scratch_.reset(new std::byte[5 * e->scratch_bytes_]);
  return e;
}

Engine::~Engine() {
  for (Staged& s : staged_)
    if (s.p) (void)heaps_->own()->free(s.p);
}

const std::vector<pid_t>& Engine::pids() {
  if (pids_.empty()) {
    for (int q = 0; q < team_.size(); ++q) pids_.push_back(team_.pid_of(q));
  }
  return pids_;
}

std::byte* Engine::stage(int which, std::size_t bytes) {
  Heap* h = heaps_ ? heaps_->own() : nullptr;
  Staged& s = staged_[static_cast<std::size_t>(which)];
  if (!h) return nullptr;
  if (s.bytes >= bytes) return s.p;
  if (s.p) (void)h->free(s.p);
  s = {};
  // Grown by doubling, so that a sweep of sizes allocates a few times only.
  std::size_t want = std::size_t{1} << 16;
  while (want < bytes) want *= 2;
  auto p = h->allocate(want);
  if (!p.ok()) p = h->allocate(want = bytes);  // a heap with room for the size, not its power of two
  if (!p.ok()) return nullptr;
  s = {static_cast<std::byte*>(*p), want};
  return s.p;
}

void Engine::keep(Kept& k, const PlanInput& in) const {
  k.in = in;
  k.plan = make_plan(in, shape_, settings_);
  k.first_kind = one_group() ? one_group_kind(k.plan.first, lanes_.front()) : OneGroupKind::none;
  k.call_count = -1;  // kept_call's key is of the input kept before
  k.set = true;
}

bool Engine::one_pass(const CollArgs& a) const {
  return unit_acks() && plan(PlanInput{a.kind, static_cast<std::size_t>(a.count), size_of(a.dtype)}).first.one_pass;
}

Status Engine::validate(const CollArgs& a) const { return check_arguments(a, a.kind, team_.rank(), team_.size()); }

void Engine::set_calls(Calls* c) {
  calls_ = c;
  numbered_ = c && team_.size() > 1;
  call_error_ = c ? &c->error_word_ref() : nullptr;
  settings_ = PlanSettings::of(config_, team_.tree());
  if (!c) settings_.one_pass = settings_.one_group = false;  // no numbered calls: every call agrees first
  kept_ = {};                                                // the settings change: forget the kept plans
  cma_settings();
  team_.waiter().watch_calls(c);
}

void Engine::realign(std::uint64_t step, std::uint64_t flat_step) {
  step_ = step;
  flat_step_ = flat_step;
  offers_ = 0;  // every rank is here, none reading an offer: they line up again
  for (Lane& l : lanes_) {
    l.up_ok = step;
    l.done_all = step;
  }
}

Status Engine::run_general(const CollArgs& a) {
  CallStart c;
  if (!begin(a, c)) return std::move(c.early);
  return end(c, walk(c.args, c.local));
}

Status Engine::run_aside(const CollArgs& a) {
  if (queue_->must_queue()) {
    std::shared_ptr<CallState> c = queue_->start(*this, a);  // counted, and its error told, there
    wait_for(c);
    return c->status;
  }
  queue_->count_call();
  return told(run_general(a));
}

Status Engine::told(Status st) {
  if (!st.ok()) queue_->tell_error(st);
  return st;
}

Task Engine::call(CollArgs a) {
  CallStart c;
  if (!begin(a, c)) co_return std::move(c.early);
  Status st = co_await dispatch(c.args, c.local);
  co_return end(c, std::move(st));
}

namespace {

// The copy a call on a team of one implies (its description's Alone, ops/description.hpp); its
// arguments are checked.
void copy_alone(const CollArgs& u) {
  const std::size_t es = size_of(u.dtype), bytes = static_cast<std::size_t>(u.count) * es;
  auto* out = static_cast<std::byte*>(u.recv);
  const auto* in = static_cast<const std::byte*>(u.send);
  switch (describe(u.kind).alone) {
    case Alone::nothing: break;
    case Alone::input_to_output:  // in place, the input is the output
      if (bytes && in != kInPlace && in != out) std::memmove(out, in, bytes);
      break;
    case Alone::output_of_input:
      if (bytes && out != kInPlace) std::memmove(out, in, bytes);
      break;
    case Alone::own_block_out:
      if (bytes && in != kInPlace) std::memmove(out + *u.displs * es, in, bytes);
      break;
    case Alone::own_block_in:
      if (bytes && out != kInPlace) std::memmove(out, in + *u.displs * es, bytes);
      break;
    case Alone::whole_share:
      if (in != kInPlace && *u.counts) std::memmove(out, in, static_cast<std::size_t>(*u.counts) * es);
      break;
    case Alone::own_pair:
      if (in != kInPlace && *u.recv_counts) {
        std::memmove(out + *u.recv_displs * es, in + *u.displs * es, static_cast<std::size_t>(*u.recv_counts) * es);
      }
      break;
  }
}

}  // namespace

bool Engine::begin(const CollArgs& a, CallStart& c) {
  c.user = &a;
  if (Status st = team_.usable(); !st.ok()) return c.ends(std::move(st));
  c.numbered = numbered_;
  const CollArgs& u = a;
  if (u.abstain != Errc::ok) {
    if (team_.size() == 1) return c.ends(Status(u.abstain, cat(OpName{u.kind, team_.rank()}, ": abstained")));
    const int root = !is_rooted(u.kind) ? -1 : u.root >= 0 && u.root < team_.size() ? u.root : 0;
    c.args = CollArgs{u.kind, nullptr, nullptr, u.count, u.dtype, u.op, root};
    c.local = make_status(u.abstain, Field::none, team_.rank());
    if (u.abstain == Errc::unsupported) {
      // Declining: a header of its own, no status, so that the verdict says
      // whether every rank declined (fine) or only some (the headers differ).
      c.args.count = 0;
      c.args.dtype = Datatype::uint8;
      c.args.op = Op::sum;
      c.args.abstain = Errc::unsupported;
      c.local = 0;
    }
    // Numbered with the header its steps carry, which the call records
    // hold for the other ranks to compare (Engine::peek, Team::finish).
    if (c.numbered) {
      OpHeader h;
      if (Status st = number(c.args, u.kind, h); !st.ok()) return c.ends(std::move(st));
      c.args.earlier = h.earlier;
    }
    return true;
  }
  std::uint16_t earlier = 0;
  if (c.numbered) {
    OpHeader h;
    if (Status st = number(a, a.kind, h); !st.ok()) return c.ends(std::move(st));
    earlier = h.earlier;
  }
  c.mine = validate(u);
  c.local = c.mine.ok() ? 0 : make_status(Errc::invalid_argument, Field::args, team_.rank());
  if (team_.size() == 1) {
    // A team of one: no groups, only the local copies the operation implies.
    if (!c.mine.ok()) return c.ends(std::move(c.mine));
    copy_alone(u);
    return c.ends({});
  }
  // A call that failed its local checks still walks the tree (so every rank
  // learns the verdict), but never with a root outside the team.
  c.args = u;
  c.args.earlier = earlier;
  if (!c.mine.ok() && (c.args.root < 0 || c.args.root >= team_.size())) c.args.root = 0;
  return true;
}

Status Engine::end(CallStart& c, Status st) {
  // Nearly every call: it went well, with this rank's own arguments, and
  // found nothing to raise; nothing below applies (an error another rank
  // raised meanwhile is the next call's: Calls::enter).
  if (st.ok() && c.mine.ok() && c.user->abstain == Errc::ok && found_ == 0 && !agreed_error_) return st;
  st = walked(c, std::move(st));
  // Every rank got this call's error verdict, past its header step: nobody
  // reads an offer any more, and ranks whose plans differed (one offered,
  // one did not) line their offer counts up again (ops/direct.cpp).
  if (agreed_error_) offers_ = 0;
  if (!c.numbered) return st;
  if (!st.ok() && peek_seen_rank_ >= 0 && calls_->failed_here()) {
    // My wait found the difference in a peer's line (raised already): both
    // sides, as a one-pass step's finder says; the others learn it from the
    // raised error and every rank's next call names all sides.
    std::string pair = pair_mismatch_message(peek_mine_, team_.rank(), peek_seen_, peek_seen_rank_);
    if (!pair.empty()) return Status(Errc::mismatch, std::move(pair));
  }
  // Every rank got this call's error verdict: their headers may differ, and
  // so would the next call's digests of them, for an error already reported.
  if (agreed_error_) calls_->forget_earlier();
  if (found_ == 0) {
    // A wait stopped by a raised error: my own argument error, if I made
    // one, says more (the error path only: validate() again). Not a round
    // trip's verdict, which every rank reports alike.
    if (st.code() == Errc::mismatch && c.user->abstain == Errc::ok && unit_acks() && calls_->pending()) {
      if (Status own = validate(*c.user); !own.ok()) st = std::move(own);
    }
    // An argument error of this call (mine, or the verdict's) stands.
    const bool own = st.code() == Errc::invalid_argument;
    return calls_->settle(std::move(st), own);
  }
  raise_found(found_);
  // The call before failed where nobody compared: every rank learns it
  // (this call does not complete; its error names that call).
  if (status_field(found_) == Field::earlier) return calls_->settle(std::move(st), false);
  // Found in this call: others may have returned already.
  return st;
}

Status Engine::walked(CallStart& c, Status st) {
  const CollArgs& u = *c.user;
  // A mismatch verdict reaches every rank, and every rank explains it
  // (in a one-pass call only the rank that found it knows: it raised it).
  if (st.code() == Errc::mismatch && explains(c.args)) return explain_mismatch(c.args, std::move(st));
  if (st.code() == Errc::mismatch && unit_acks() && !one_pass(c.args)) return calls_->current_mismatch(std::move(st));
  if (u.abstain != Errc::ok) {
    // A one-pass sender returns before any verdict: its own reason stands.
    if (st.ok() && u.abstain != Errc::unsupported)
      return Status(u.abstain, cat(OpName{u.kind, team_.rank()}, ": abstained"));
    if (!st.ok() || u.abstain != Errc::unsupported) return st;
    return Status(Errc::unsupported, cat(OpName{u.kind, team_.rank()}, ": every rank declined"));
  }
  // This rank's own argument error says more than the common verdict; a
  // one-pass sender returns before any verdict, with its own error.
  if (!c.mine.ok() && (st.ok() || st.code() == Errc::invalid_argument)) return std::move(c.mine);
  return st;
}

void Engine::raise_found(StatusWord w) {
  if (calls_) calls_->raise_found(w);
}

bool Engine::calls_pending() const { return calls_->pending(); }

bool Engine::explains(const CollArgs& a) const {
  // Teams with unit acks: ranks that took a one-pass plan would not join the
  // exchange; the records say the same (Calls::current_mismatch).
  return !unit_acks() && !one_pass(a) && status_field(found_) != Field::earlier;
}

bool Engine::another_plan(const OpHeader& theirs_in, Field f) const {
  const OpHeader& mine = *peek_header_;
  OpHeader theirs = theirs_in;
  if (f == Field::earlier) {
    // The call before differed too; what differs in this one decides (two
    // bcasts whose roots cross right after two roots both wrote).
    theirs.earlier = mine.earlier;
    f = compare(theirs, mine);
    if (f == Field::none) return false;  // this call's comparisons find it
  }
  if (!elsewhere(mine, f)) return false;  // a round trip: its verdict reaches every rank
  // Another operation, root or decision to run it: the ranks may wait for
  // each other (roots that cross). Else only another plan can make them.
  if (f == Field::kind || f == Field::root || f == Field::declined) return true;
  auto plan_of = [this](const OpHeader& h) {
    return plan(PlanInput{static_cast<OpKind>(h.kind), static_cast<std::size_t>(h.count),
                          size_of(static_cast<Datatype>(h.dtype))});
  };
  if (theirs.count < 0 || theirs.dtype >= kDatatypeCount) return true;  // bad arguments: no plan to compare
  return !(plan_of(theirs) == plan_of(mine));
}

StatusWord Engine::peek() {
  if (!peek_header_ || !calls_) return 0;
  // Every rank's header of this call, from the call records (Calls::enter):
  // on a tree of several groups the rank on another plan need not be in any
  // lane I act in (two ranks that each think the other leads their group
  // both return, while the top waits for a line nobody writes).
  for (int r = 0; r < team_.size(); ++r) {
    if (r == team_.rank()) continue;
    OpHeader theirs;
    if (!calls_->entered_header(r, theirs)) continue;
    // Only what the call's own comparisons would not settle.
    if (Field f = compare(theirs, *peek_header_); f != Field::none && another_plan(theirs, f)) {
      peek_mine_ = *peek_header_;
      peek_seen_ = theirs;
      peek_seen_rank_ = r;
      return make_status(Errc::mismatch, f, team_.rank());
    }
  }
  return 0;
}

// Every rank got the same mismatch verdict in the same call (the header step
// is a round trip through the whole tree), so all take this path together:
// one allgather of the headers, on the error path only, and every rank
// names the ranks that differ from the majority.
// Blocking, also in a non-blocking call (an error path).
Status Engine::explain_mismatch(const CollArgs& a, Status verdict) {
  const OpHeader mine = header_for(a, a.kind, team_.size());
  std::vector<OpHeader> all(static_cast<std::size_t>(team_.size()));
  CollArgs exchange{OpKind::allgather, &mine, all.data(), sizeof mine, Datatype::uint8};
  const bool was = blocking_;
  blocking_ = true;
  Status st = walk(exchange, 0);
  blocking_ = was;
  OSMP_RETURN_IF_ERROR(std::move(st));
  std::string m = mismatch_message(mine, all);
  return m.empty() ? std::move(verdict) : Status(Errc::mismatch, std::move(m));
}

#define OSMP_ENTRY_OF_(name, Name, NAME, key, rooted, reduces, form) &Ops<OpKind::name>::entry,
const OpEntry* const kOpEntries[] = {OSMP_COLLECTIVES(OSMP_ENTRY_OF_)};
#undef OSMP_ENTRY_OF_

namespace {

// The entries of `k`, or nullptr for a value no row of osmp_ops.h has.
const OpEntry* entry(OpKind k) {
  const int i = op_index(k);
  return i >= 0 ? kOpEntries[i] : nullptr;
}

}  // namespace

Status Engine::walk(const CollArgs& a, StatusWord local) {
  const OpEntry* op = entry(a.kind);
  if (!op) return Status(Errc::invalid_argument, cat("unknown collective ", static_cast<int>(a.kind)));
  return op->run(*this, a, local);
}

Task Engine::dispatch(const CollArgs& a, StatusWord local) {
  const OpEntry* op = entry(a.kind);
  if (!op) return done_with(Status(Errc::invalid_argument, cat("unknown collective ", static_cast<int>(a.kind))));
  return op->start(*this, a, local);
}

}  // namespace osmp
