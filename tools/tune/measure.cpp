#include "tools/tune/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "api/access.hpp"
#include "collectives/engine.hpp"
#include "collectives/kernels.hpp"
#include "shm/cma.hpp"
#include "shm/flag.hpp"
#include "team/team.hpp"

namespace osmp::tune {
namespace {

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The slowest rank's value: every rank gets it.
Result<double> max_over_ranks(Team& t, double v) {
  double out = 0;
  OSMP_RETURN_IF_ERROR(t.allreduce(&v, &out, 1, Datatype::float64, Op::max));
  return out;
}

// A pair of ranks handing a flag (and data) back and forth through the
// team's control segment; everyone else waits at the barrier after.
class Pair {
 public:
  // `base`: the same on every rank, above every flag's value (agreed).
  Pair(Team& t, int a, int b, std::uint64_t base) : core_(core_of(t)), a_(a), b_(b), base_(base) {}
  bool in() const { return core_.rank() == a_ || core_.rank() == b_; }
  // Microseconds per round trip of `rounds`, copying `bytes` each way when > 0.
  Result<double> round_trips(int rounds, std::size_t bytes, std::vector<std::byte>& scratch);

 private:
  Status step(std::uint64_t v, std::size_t bytes, std::vector<std::byte>& scratch);
  TeamCore& core_;
  int a_, b_;
  std::uint64_t base_ = 0;
};

Status Pair::step(std::uint64_t v, std::size_t bytes, std::vector<std::byte>& scratch) {
  const int me = core_.rank(), other = me == a_ ? b_ : a_;
  const bool wake = core_.waiter().may_sleep();
  auto wait = [&](std::uint64_t target) -> Status {
    WaitStatus ws = core_.waiter().wait(core_.rank_flag(other), target, other);
    return ws == WaitStatus::ok ? Status{} : core_.fail(ws);
  };
  auto send = [&] {
    if (bytes) std::memcpy(core_.outbox(me, 0), scratch.data(), bytes);
    publish(core_.rank_flag(me), v, wake);  // release: after the copy into the outbox
  };
  auto receive = [&] {
    if (bytes) std::memcpy(scratch.data(), core_.outbox(other, 0), bytes);
  };
  if (me == a_) {
    send();
    OSMP_RETURN_IF_ERROR(wait(v));
    receive();
  } else {
    OSMP_RETURN_IF_ERROR(wait(v));
    receive();
    send();
  }
  return {};
}

Result<double> Pair::round_trips(int rounds, std::size_t bytes, std::vector<std::byte>& scratch) {
  for (int i = 1; i <= 10; ++i) OSMP_RETURN_IF_ERROR(step(base_ + static_cast<std::uint64_t>(i), bytes, scratch));
  base_ += 10;
  const double t0 = now_us();
  for (int i = 1; i <= rounds; ++i) OSMP_RETURN_IF_ERROR(step(base_ + static_cast<std::uint64_t>(i), bytes, scratch));
  base_ += static_cast<std::uint64_t>(rounds);
  return (now_us() - t0) / rounds;
}

// Every physical level that has a group, with two ranks whose lowest shared
// domain it is (the group's leader and the leader of its second unit), and
// every level name that domain stands for (on one package, Machine is also
// Package and L3Cache: the model may look any of them up).
struct LevelPair {
  std::vector<std::string> names;
  int a, b;
};
std::vector<LevelPair> pairs_per_level(const Tree& tree) {
  std::vector<LevelPair> out;
  for (const auto& lvl : tree.levels()) {
    if (lvl.is_virtual || lvl.groups == 0) continue;
    for (int d : tree.domains_of(lvl.name)) {
      const Domain& dom = tree.domain(d);
      if (!dom.has_group()) continue;
      LevelPair p{{}, dom.group[0], dom.group[1]};
      for (const auto& a : dom.aliases) p.names.push_back(a.name);
      out.push_back(p);
      break;
    }
  }
  return out;
}

double measure_gamma() {
  constexpr std::size_t n = 16384;  // 64 KiB of floats, in cache
  std::vector<float> a(n, 1.0f), b(n, 0.5f);
  const double t0 = now_us();
  for (int i = 0; i < 200; ++i) combine(a.data(), b.data(), n, Datatype::float32, Op::sum);
  return (now_us() - t0) / 200 / 64;
}

// CMA's single copy between the two ranks of the top level's pair: `b`
// reads `a`'s buffer with process_vm_readv, a page at a time (one call's
// cost) and a MiB at a time (a KiB's). Every rank gets the pair's figures,
// or the typical ones where the kernel does not let ranks read each other.
Status measure_cma(Team& t, const LevelPair& top, Calibration& cal) {
  constexpr std::size_t kPage = 4096, kLarge = std::size_t{1} << 20;
  std::vector<std::byte> buf(kLarge, std::byte{3}), into(kLarge);
  std::vector<std::uint64_t> at(static_cast<std::size_t>(t.size()));
  const std::uint64_t mine = reinterpret_cast<std::uintptr_t>(buf.data());
  OSMP_RETURN_IF_ERROR(t.allgather(&mine, at.data(), 1, Datatype::uint64));
  double call = -1, large = -1;
  if (t.rank() == top.b) {
    const pid_t owner = core_of(t).pid_of(top.a);
    const std::uint64_t from = at[static_cast<std::size_t>(top.a)];
    auto time_reads = [&](std::size_t n, int reps) -> double {
      if (!cma_read(owner, into.data(), from, n).ok()) return -1;  // warm, and allowed at all
      const double t0 = now_us();
      for (int i = 0; i < reps; ++i)
        if (!cma_read(owner, into.data(), from, n).ok()) return -1;
      return (now_us() - t0) / reps;
    };
    call = time_reads(kPage, 400);
    large = call < 0 ? -1 : time_reads(kLarge, 20);
  }
  OSMP_ASSIGN_OR_RETURN(call, max_over_ranks(t, call));
  OSMP_ASSIGN_OR_RETURN(large, max_over_ranks(t, large));
  if (call < 0 || large < 0) {  // not allowed: the typical figures stay
    cal.source = "CMA: typical, the kernel does not let the ranks read each other";
    return {};
  }
  cal.source = "CMA: process_vm_readv of a page and of a MiB";
  cal.cma_call_us = call;
  cal.cma_us_per_kib = std::max(0.0, (large - call) / (static_cast<double>(kLarge - kPage) / 1024));
  return {};
}

}  // namespace

Buffers::Buffers(int ranks, std::size_t max_bytes)
    : send_(max_bytes * static_cast<std::size_t>(ranks) + 64), recv_(max_bytes * static_cast<std::size_t>(ranks) + 64) {
  std::fill(send_.begin(), send_.end(), std::byte{1});
}

Status call(Team& t, OpKind op, std::size_t bytes, Buffers& b) {
  const Datatype type = is_reduction(op) ? Datatype::float32 : Datatype::uint8;
  const auto count = static_cast<std::int64_t>(is_reduction(op) ? bytes / 4 : bytes);
  // The v-variants: every rank's block `count` long, in rank order.
  std::vector<std::int64_t> counts, displs;
  if (describe(op).takes.counts) {
    counts.assign(static_cast<std::size_t>(t.size()), count);
    displs.resize(counts.size());
    for (std::size_t r = 0; r < displs.size(); ++r) displs[r] = static_cast<std::int64_t>(r) * count;
  }
  return TeamAccess::run(t, as_called({op, b.send(), b.recv(), count, type, Op::sum, 0, counts.data(), displs.data(),
                                       counts.data(), displs.data()}));
}

Result<double> time_op(Team& t, OpKind op, std::size_t bytes, Buffers& b, double target_us, int reps) {
  for (int i = 0; i < 2; ++i) OSMP_RETURN_IF_ERROR(call(t, op, bytes, b));
  // A short loop sizes the real one; the same length on every rank.
  OSMP_RETURN_IF_ERROR(t.barrier());
  double t0 = now_us();
  for (int i = 0; i < 3; ++i) OSMP_RETURN_IF_ERROR(call(t, op, bytes, b));
  OSMP_ASSIGN_OR_RETURN(double probe, max_over_ranks(t, (now_us() - t0) / 3));
  const int iters = static_cast<int>(std::clamp(target_us / std::max(probe, 0.01), 3.0, 20000.0));
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    OSMP_RETURN_IF_ERROR(t.barrier());
    t0 = now_us();
    for (int i = 0; i < iters; ++i) OSMP_RETURN_IF_ERROR(call(t, op, bytes, b));
    OSMP_ASSIGN_OR_RETURN(double us, max_over_ranks(t, (now_us() - t0) / iters));
    best = std::min(best, us);
  }
  return best;
}

Result<Calibration> calibrate(Team& t) {
  Calibration cal;
  const std::size_t bytes = std::min<std::size_t>(core_of(t).outbox_bytes(), 64 * 1024);
  std::vector<std::byte> scratch(bytes, std::byte{7});
  for (const auto& lp : pairs_per_level(core_of(t).tree())) {
    // Only its owner writes a flag, so the max of each rank's own is agreed
    // before anyone of the pair publishes again.
    double own = static_cast<double>(core_of(t).rank_flag(t.rank()).value.load(std::memory_order_relaxed));
    OSMP_ASSIGN_OR_RETURN(double base, max_over_ranks(t, own));
    Pair pair(t, lp.a, lp.b, static_cast<std::uint64_t>(base));
    double rt = 0, copy = 0;
    if (pair.in()) {
      OSMP_ASSIGN_OR_RETURN(rt, pair.round_trips(2000, 0, scratch));
      OSMP_ASSIGN_OR_RETURN(copy, pair.round_trips(200, bytes, scratch));
    }
    OSMP_ASSIGN_OR_RETURN(rt, max_over_ranks(t, rt));
    OSMP_ASSIGN_OR_RETURN(copy, max_over_ranks(t, copy));
    const double alpha = rt / 2;
    // A round trip copies `bytes` twice (in and out) each way: 2 copies of
    // bytes/KiB, each one written by one side and read by the other.
    const double beta = std::max(0.0, (copy - rt) / 2 / (static_cast<double>(bytes) / 1024));
    for (const auto& name : lp.names) cal.levels.push_back({name, alpha, beta});
  }
  OSMP_ASSIGN_OR_RETURN(cal.gamma_us_per_kib, max_over_ranks(t, measure_gamma()));
  const std::vector<LevelPair> pairs = pairs_per_level(core_of(t).tree());
  cal.source = "CMA: typical, no level with two ranks to measure it between";
  if (!pairs.empty()) OSMP_RETURN_IF_ERROR(measure_cma(t, pairs.front(), cal));
  return cal;
}

}  // namespace osmp::tune
