// Single copy through the shared heap (shm/heap.hpp, team/heaps.hpp) and
// the shared regions (shm/regions.hpp: MPI shared windows): a call too large
// for the areas whose buffers lie in the ranks' heaps, or in regions every
// rank has mapped, reads and writes them where they are, each byte crossing
// once, instead of twice through the group's areas.
//
// Agreement: before its header step, every rank writes where its send and
// receive buffers are (offsets into its heap or region words, 0: in
// neither: where()) into its rank line's offer words, [call parity], tagged
// with the call's header step number. The header step is a round trip through
// every rank (headers up, verdict down), so after it every rank reads every
// rank's words and, from the same words and the same mapped sizes, takes the
// same path (mode()): single copy when the buffers it needs are in the heaps
// or regions, else the areas' or CMA's, which every rank then takes. A rank
// offers a region only when every rank of the team is among its members,
// whose registrations of it stay until the window is freed (collective on
// them), so every reader maps the word alike; only a program that frees a
// window on one rank while another's collective still uses it, which MPI
// forbids, could make ranks disagree. A rank can be at
// most one offering call ahead of another's reads (its next offering call
// needs that other rank in its header step, which it reaches only after
// reading), so two parities suffice. The count restarts on every rank at once
// after an error verdict every rank got (Engine::end) and in the
// resynchronisation after any other error (Engine::realign); an offer whose
// tag is not this call's counts as none, on every rank alike.
//
// Completion: an owner's buffer must stay put until its readers are done,
// and a receiver's until its writers are: whoever is read from or written to
// waits for the `done` (or `arrive`) of those who did it (flags in the
// control segment's rank lines, numbered with the flat steps), all of them,
// even after an error; past an abort or a stale call, for every peer that
// marked that it copies (may_copy, outlive_copier: ops/common.hpp). A rank
// that finds the team stopped before its copies copies nothing and publishes
// both flags with kCopyFailed in their word, which its peers take as the stop.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "collectives/kernels.hpp"
#include "collectives/ops/common.hpp"
#include "collectives/ops/describe.hpp"
#include "collectives/task.hpp"
#include "shm/copy.hpp"
#include "shm/regions.hpp"

namespace osmp {

DirectCall::DirectCall(Engine& e, const CollArgs& a, StatusWord local, const Plan& plan, const DirectBuffers& mine,
                       Moves moves)
    : e_(e), a_(a), mine_(mine), moves_(moves), heaps_(e.heaps()), on_(plan.heap) {
  if (!on_) return;
  parity_ = e.next_offer();
  RankLine& l = e.team().rank_line(e.team().rank());
  Heap* own = heaps_ ? heaps_->own() : nullptr;
  // An input that is this rank's output too is never offered as it is; a
  // call that failed here offers nothing.
  std::uint64_t send = mine.send_aliases_recv || local ? Heap::kNowhere : where(mine.send, mine.send_len);
  std::uint64_t recv = local ? Heap::kNowhere : where(mine.recv, mine.recv_len);
  // Staging: a buffer outside the heap that peers would read is copied into
  // a block of this rank's heap first (one local copy, which lets every
  // rank take single copy); one they would write is replaced by a block,
  // copied out when the call is done (run()).
  const bool root = e.team().rank() == a.root;
  const std::size_t per_rank = static_cast<std::size_t>(a.count) * size_of(a.dtype);
  if (own && heaps_->complete() && !local && e.config().stage &&
      per_rank >= e.config().stage_from(a.kind, cma_carries(a.kind, per_rank, e.settings()))) {
    const HeapUse& use = describe(a.kind).heap;  // which of mine peers read (send) or write (recv)
    if (!send && mine.send && mine.send_len && use.staged_send.at(root)) {
      if (std::byte* s = e.stage(Engine::kStagedSend, mine.send_len)) {
        copy_to_shared(s, mine.send, mine.send_len);
        mine_.send = s;
        send = where(s, mine.send_len);
      }
    }
    if (!recv && mine.recv && mine.recv_len && use.staged_recv) {
      if (std::byte* r = e.stage(Engine::kStagedRecv, mine.recv_len)) {
        staged_out_ = mine.recv;
        mine_.recv = r;
        recv = where(r, mine.recv_len);
      }
    }
  }
  // An input that is the output and was not staged: peers writing into the
  // output (push) would overwrite what this rank still reads from it.
  if (mine.send_aliases_recv && !send) recv = Heap::kNowhere;
  // Tagged with the header step this call is about to take (header_step:
  // next_step()), the same number on every rank. Relaxed: the header step's
  // flags order them (this rank publishes its part of the step with release
  // after these stores; every other rank acquires it, through the tree's
  // local roots, before the verdict that precedes its loads in mode()).
  call_step_ = e.step() + 1;
  l.offer[parity_][2].store(call_step_, std::memory_order_relaxed);
  l.offer[parity_][0].store(send, std::memory_order_relaxed);
  l.offer[parity_][1].store(recv, std::memory_order_relaxed);
}

std::uint64_t DirectCall::where(const std::byte* p, std::size_t n) {
  if (!p || n == 0) return Heap::kNowhere;
  if (Heap* own = heaps_ ? heaps_->own() : nullptr) {
    const std::uint64_t off = own->locate(p, n);
    if (off != Heap::kNowhere && off <= kHeapWordMax) return off;
  }
  const SharedRegions& regions = SharedRegions::of_process();
  if (regions.empty()) return Heap::kNowhere;
  // Every rank of the team must have the region mapped (its pid among the
  // region's members), so that every reader's at() finds it.
  return regions.locate(p, n, e_.pids());
}

std::byte* DirectCall::mapped(int q, std::uint64_t word, std::size_t n) const {
  if (region_of(word) != 0) return SharedRegions::of_process().at(word, n);
  return heaps_ ? heaps_->at(q, word, n) : nullptr;
}
std::byte* DirectCall::send_of(int q) const { return mapped(q, send_[static_cast<std::size_t>(q)], need_send(q)); }
std::byte* DirectCall::recv_of(int q) const { return mapped(q, recv_[static_cast<std::size_t>(q)], need_recv(q)); }

std::size_t DirectCall::bytes() const { return static_cast<std::size_t>(a_.count) * size_of(a_.dtype); }

std::size_t DirectCall::need_send(int q) const {
  const std::size_t n = static_cast<std::size_t>(e_.team().size());
  return bytes_of(describe(a_.kind).heap.offer_send.at(q == a_.root), bytes(), bytes() * n);
}

std::size_t DirectCall::need_recv(int q) const {
  const std::size_t n = static_cast<std::size_t>(e_.team().size());
  return bytes_of(describe(a_.kind).heap.offer_recv.at(q == a_.root), bytes(), bytes() * n);
}

DirectMode DirectCall::mode() {
  if (!on_) return DirectMode::none;
  const int n = e_.team().size();
  send_.resize(static_cast<std::size_t>(n));
  recv_.resize(static_cast<std::size_t>(n));
  for (int q = 0; q < n; ++q) {
    const RankLine& l = e_.team().rank_line(q);
    // Offers of another call (counts apart: a bug) are no offers: every rank
    // reads the same words, so all decide alike, on the other path.
    const bool this_call = l.offer[parity_][2].load(std::memory_order_relaxed) == call_step_;
    send_[static_cast<std::size_t>(q)] =
        this_call ? l.offer[parity_][0].load(std::memory_order_relaxed) : Heap::kNowhere;
    recv_[static_cast<std::size_t>(q)] =
        this_call ? l.offer[parity_][1].load(std::memory_order_relaxed) : Heap::kNowhere;
  }
  // The first of the description's rules whose buffers every rank it
  // names offered: the same words on every rank, the same mode.
  const int root = a_.root;
  auto offered = [&](Whose w, auto has) {
    if (w == Whose::nobody) return true;
    if (w == Whose::root) return (this->*has)(root) != nullptr;
    for (int q = 0; q < n; ++q)
      if ((w == Whose::everyone || q != root) && (this->*has)(q) == nullptr) return false;
    return true;
  };
  for (const HeapRule& r : describe(a_.kind).heap.rules) {
    if (r.mode == DirectMode::none) break;
    if (offered(r.send, &DirectCall::send_of) && offered(r.recv, &DirectCall::recv_of)) return r.mode;
  }
  return DirectMode::none;
}

namespace {

// out = srcs[0] op srcs[1] op ... in rank order, for `len` elements, where
// out may be any one of the sources (an in-place rank's own buffer): the
// kernels allow only the first, so an aliased later source goes through
// private memory, a piece at a time.
void combine_shared(Engine& e, std::byte* out, std::vector<const void*>& srcs, std::size_t len, Datatype t, Op op) {
  const Combiner c = Combiner::make(t, op);
  const std::size_t es = size_of(t);
  bool aliased = false;
  for (std::size_t i = 1; i < srcs.size(); ++i) aliased = aliased || srcs[i] == out;
  if (!aliased) return c.all(out, srcs.data(), static_cast<int>(srcs.size()), len);
  const std::size_t piece = std::max<std::size_t>(1, e.scratch_bytes() / es);
  std::vector<const void*> at(srcs.size());
  for (std::size_t off = 0; off < len; off += piece) {
    const std::size_t n = std::min(piece, len - off);
    for (std::size_t i = 0; i < srcs.size(); ++i) at[i] = static_cast<const std::byte*>(srcs[i]) + off * es;
    c.all(e.staging(), at.data(), static_cast<int>(at.size()), n);
    std::memcpy(out + off * es, e.staging(), n * es);
  }
}

}  // namespace

// The data's flags: arrive() and done() publish with release after this
// rank's copies (copy_direct ends streamed stores with a fence), their word
// the outcome (0; kCopyFailed: a rank that did not copy, run()); arrived()
// and finished() acquire the peer's flag before touching what it copied or
// may reuse, and wait on past an abort or a stale call for a peer that
// marked that it copies (outlive_copier): my buffers outlive its copies.
Task DirectCall::arrived(int q) { return settled(e_.team().rank_line(q).arrive, q); }
Task DirectCall::finished(int q) { return settled(e_.team().rank_line(q).done, q); }
Task DirectCall::settled(Flag& f, int q) {
  Status st = outlive_copier(e_, e_.team().rank_line(q).done.word, f, step_, q, co_await until(e_, f, step_, q));
  // The word, stored before the release of exactly this step and read after
  // its acquire (relaxed, through atomic_ref: a later step rewrites it).
  if (st.ok() && f.value.load(std::memory_order_acquire) == step_ &&
      std::atomic_ref<std::uint32_t>(f.word).load(std::memory_order_relaxed) == kCopyFailed) {
    st = copy_stopped(e_);
  }
  co_return st;
}
void DirectCall::arrive() { publish_with(e_.team().rank_line(e_.team().rank()).arrive, 0); }
void DirectCall::done() { publish_with(e_.team().rank_line(e_.team().rank()).done, 0); }
void DirectCall::publish_with(Flag& f, std::uint32_t outcome) {
  if (skip_) return;  // published with kCopyFailed before the moves (run())
  std::atomic_ref<std::uint32_t>(f.word).store(outcome, std::memory_order_relaxed);
  publish(f, step_, e_.team().waiter().may_sleep());  // after the word
}
void DirectCall::copy(std::byte* dst, const std::byte* src, std::size_t n) const {
  if (!skip_) copy_direct(dst, src, n);
}

// Every rank's `done` but mine and `except`'s: all of them, even after an
// error (my buffers stay put until they are done). The first error.
Task DirectCall::finished_all(int except) {
  Status first;
  for (int q = 0; q < e_.team().size(); ++q) {
    if (q == e_.team().rank() || q == except) continue;
    Status st = co_await finished(q);
    if (!st.ok() && first.ok()) first = std::move(st);
  }
  co_return first;
}

Task DirectCall::run(DirectMode m) {
  step_ = e_.next_flat_step();
  e_.count_single_copy();
  // Marked before my first copy (may_copy): a peer whose wait for my flags
  // ends with an abort or a stale call waits on for them. When the team
  // stopped or an error was raised, I copy nothing and my flags say so at
  // once (no peer waits on me), but my buffers are still someone's: a peer
  // that passed its own may_copy before the stop may be copying into or out
  // of them, so I still take my role's waits (the moves with skip_), which
  // outlive every marked peer, before I return the stop.
  RankLine& line = e_.team().rank_line(e_.team().rank());
  if (auto* hook = g_before_direct_copy.load(std::memory_order_relaxed)) hook(e_.team().rank());
  Status stop = may_copy(e_, line.done.word, step_);
  if (!stop.ok()) {
    publish_with(line.arrive, kCopyFailed);
    publish_with(line.done, kCopyFailed);
    skip_ = true;
  }
  Status st = co_await (this->*moves_)(m);
  if (skip_) co_return stop;
  // A staged output: every writer is done (the moves waited for them).
  if (st.ok() && staged_out_) std::memcpy(staged_out_, mine_.recv, mine_.recv_len);
  co_return st;
}

Task DirectCall::gather(DirectMode m) { return m == DirectMode::pull ? gather_pull() : gather_push(); }
Task DirectCall::allgather(DirectMode m) { return m == DirectMode::pull ? allgather_pull() : allgather_push(); }
Task DirectCall::scatter(DirectMode m) { return m == DirectMode::pull ? scatter_pull() : scatter_push(); }
Task DirectCall::alltoall(DirectMode m) { return m == DirectMode::pull ? alltoall_pull() : alltoall_push(); }

// pull: every receiver copies from the root's buffer; push: the root
// copies into every receiver's; both: the root copies the first 1/n of every
// receiver's buffer while each receiver copies the rest (n = 2: half each, in
// parallel). Whoever's buffer is read or written waits for the others.
Task DirectCall::bcast(DirectMode m) {
  const int me = e_.team().rank(), root = a_.root, n = e_.team().size();
  const std::size_t len = bytes();
  const std::size_t split = m == DirectMode::pull ? 0
                            : m == DirectMode::push
                                ? len
                                : std::min(len, len / static_cast<std::size_t>(n) / kCacheLine * kCacheLine);
  if (me != root) {
    if (split < len) copy(mine_.recv + split, send_of(root) + split, len - split);
    Status st;
    if (split > 0) st = co_await arrived(root);  // the root's part, written into my buffer
    done();                                      // my part, read from the root's: whatever happened
    co_return st;
  }
  if (split > 0) {
    for (int i = 1; i < n; ++i) {
      const int q = (me + i) % n;
      copy(recv_of(q), mine_.send, split);
    }
    arrive();
  }
  co_return co_await finished_all(root);
}

// The root reads every block where it is; the senders wait for it.
Task DirectCall::gather_pull() {
  const int me = e_.team().rank(), root = a_.root;
  if (me != root) co_return co_await finished(root);
  const std::size_t block = bytes();
  for (int q = 0; q < e_.team().size(); ++q) {
    std::byte* dst = mine_.recv + static_cast<std::size_t>(q) * block;
    const std::byte* src = q == me ? mine_.send : send_of(q);
    if (src != dst) copy(dst, src, block);
  }
  done();
  co_return Status{};
}

// Every sender writes its block into the root's buffer; the root waits.
Task DirectCall::gather_push() {
  const int me = e_.team().rank(), root = a_.root;
  const std::size_t block = bytes();
  if (me != root) {
    copy(recv_of(root) + static_cast<std::size_t>(me) * block, mine_.send, block);
    done();
    co_return Status{};
  }
  std::byte* own = mine_.recv + static_cast<std::size_t>(me) * block;
  if (mine_.send != own) copy(own, mine_.send, block);
  co_return co_await finished_all(root);
}

Task DirectCall::allgather_pull() {
  const int me = e_.team().rank(), n = e_.team().size();
  const std::size_t block = bytes();
  for (int i = 0; i < n; ++i) {
    const int q = (me + i) % n;  // start with my own: spreads the readers
    std::byte* dst = mine_.recv + static_cast<std::size_t>(q) * block;
    const std::byte* src = q == me ? mine_.send : send_of(q);
    if (src != dst) copy(dst, src, block);
  }
  done();
  co_return co_await finished_all();
}

Task DirectCall::allgather_push() {
  const int me = e_.team().rank(), n = e_.team().size();
  const std::size_t block = bytes(), at = static_cast<std::size_t>(me) * block;
  for (int i = 0; i < n; ++i) {
    const int q = (me + i) % n;
    std::byte* dst = q == me ? mine_.recv + at : recv_of(q) + at;
    if (mine_.send != dst) copy(dst, mine_.send, block);
  }
  done();
  co_return co_await finished_all();
}

Task DirectCall::scatter_pull() {
  const int me = e_.team().rank(), root = a_.root;
  const std::size_t block = bytes(), at = static_cast<std::size_t>(me) * block;
  if (me != root) {
    copy(mine_.recv, send_of(root) + at, block);
    done();
    co_return Status{};
  }
  if (mine_.recv && mine_.recv != mine_.send + at) copy(mine_.recv, mine_.send + at, block);
  co_return co_await finished_all(root);
}

// The root writes every block into its receiver's buffer; they wait for it.
Task DirectCall::scatter_push() {
  const int me = e_.team().rank(), root = a_.root;
  const std::size_t block = bytes();
  if (me != root) co_return co_await arrived(root);
  for (int q = 0; q < e_.team().size(); ++q) {
    const std::byte* src = mine_.send + static_cast<std::size_t>(q) * block;
    std::byte* dst = q == me ? mine_.recv : recv_of(q);
    if (dst && dst != src) copy(dst, src, block);
  }
  arrive();
  co_return Status{};
}

// Every rank reads its block of every send buffer (pull) or writes its
// blocks into every receive buffer (push), starting with its own; all wait
// for all, whose buffers they read or write.
Task DirectCall::alltoall_pull() {
  const int me = e_.team().rank(), n = e_.team().size();
  const std::size_t block = bytes(), at = static_cast<std::size_t>(me) * block;
  for (int i = 0; i < n; ++i) {
    const int q = (me + i) % n;
    const std::byte* src = (q == me ? mine_.send : send_of(q)) + at;
    std::byte* dst = mine_.recv + static_cast<std::size_t>(q) * block;
    if (src != dst) copy(dst, src, block);
  }
  done();
  co_return co_await finished_all();
}

Task DirectCall::alltoall_push() {
  const int me = e_.team().rank(), n = e_.team().size();
  const std::size_t block = bytes(), at = static_cast<std::size_t>(me) * block;
  for (int i = 0; i < n; ++i) {
    const int q = (me + i) % n;
    const std::byte* src = mine_.send + static_cast<std::size_t>(q) * block;
    std::byte* dst = (q == me ? mine_.recv : recv_of(q)) + at;
    if (src != dst) copy(dst, src, block);
  }
  done();
  co_return co_await finished_all();
}

// Reduce and allreduce: every rank combines its share of every input, in
// rank order, into the root's buffer (reduce) or its own (allreduce), which
// the others then copy from (allreduce: an allgather of the shares).
Task DirectCall::reduce(DirectMode) {
  const int me = e_.team().rank(), n = e_.team().size();
  const std::size_t count = static_cast<std::size_t>(a_.count), es = size_of(a_.dtype);
  const bool all = a_.kind == OpKind::allreduce;
  std::byte* out = all ? mine_.recv : recv_of(a_.root);
  std::vector<const void*> srcs(static_cast<std::size_t>(n));
  const Share s = share_of(count, es, me, n);
  for (int q = 0; q < n; ++q) srcs[static_cast<std::size_t>(q)] = send_of(q) + s.first * es;
  if (!skip_) combine_shared(e_, out + s.first * es, srcs, s.len, a_.dtype, a_.op);
  Status st;
  if (all) {
    arrive();
    for (int i = 1; i < n && st.ok(); ++i) {
      const int q = (me + i) % n;
      // Its share is final, and it has read mine from every input (an
      // in-place rank's input is overwritten here only after that).
      st = co_await arrived(q);
      if (!st.ok()) break;
      const Share t = share_of(count, es, q, n);
      copy(mine_.recv + t.first * es, recv_of(q) + t.first * es, t.len * es);
    }
  }
  done();                                   // whatever happened: peers wait for it
  Status theirs = co_await finished_all();  // nobody reads my buffers any more
  co_return st.ok() ? std::move(theirs) : std::move(st);
}

// Every rank combines its block of every input into its own buffer.
Task DirectCall::reduce_scatter(DirectMode) {
  const int me = e_.team().rank(), n = e_.team().size();
  const std::size_t block = bytes();
  std::vector<const void*> srcs(static_cast<std::size_t>(n));
  for (int q = 0; q < n; ++q) srcs[static_cast<std::size_t>(q)] = send_of(q) + static_cast<std::size_t>(me) * block;
  if (!skip_) combine_shared(e_, mine_.recv, srcs, static_cast<std::size_t>(a_.count), a_.dtype, a_.op);
  done();
  co_return co_await finished_all();
}

}  // namespace osmp
