// Collectives in real processes, started by osmprun (label mp).
//
//   mp_coll matrix             every op x type x op x size (0, 1, 7, 4 KiB) x root x in-place
//   mp_coll large              1 MiB + 3 elements, every op, int32/double, both in-place forms
//   mp_coll heap               every op with buffers in the shared heap, outside
//                              it and mixed per rank (150 KB), blocking and started
//   mp_coll heaploop           allreduce and bcast of 1 MiB from the heap until an
//                              error (for kill tests)
//   mp_coll random SEED N      N mixed collectives with seeded random ops, sizes and roots
//   mp_coll determinism        allreduce of random doubles: same bits on every rank and run
//   mp_coll loop               allreduce until an error (for kill tests)
//   mp_coll nbmatrix           the matrix as non-blocking calls (start, then wait)
//   mp_coll nbloop             rounds of four outstanding non-blocking calls,
//                              tested while computing, until an error (kill tests)
//   mp_coll mismatch ODD       rank ODD passes another count: prints each rank's message
//   mp_coll settings           rank 0 prints each operation's spec, then random collectives
//   mp_coll vhloop             set_vh and allreduce until an error (for kill tests)
//   mp_coll lifecycle          collectives, a change of the virtual hierarchy,
//                              collectives, finalize (for the kill points)
//   mp_coll reconfigure SEED N SPECS
//                              N random collectives with a random change of the
//                              virtual hierarchy (from the ';'-separated SPECS),
//                              per operation or for all, every few calls; then
//                              back to the start: the same mappings, the same bits
//
// Prints "rank R ok" at the end, or "rank R: error: ..." and exits 3.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "collectives/types.hpp"
#include "core/strings.hpp"
#include "osmp.hpp"
#include "support/collective_suite.hpp"
#include "support/shm_probe.hpp"

namespace {

int g_rank = -1;

void line(const std::string& s) {
  std::string l = s + "\n";
  ssize_t rc = ::write(STDOUT_FILENO, l.data(), l.size());
  (void)rc;
}

[[noreturn]] void die(const std::string& what) {
  line(osmp::cat("rank ", g_rank, ": error: ", what));
  std::exit(3);
}

void run(osmp::Team& t, const std::vector<osmp::test::CollCase>& cases, std::uint32_t seed,
         osmp::test::Mode mode = osmp::test::Mode::blocking) {
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::string bad = osmp::test::run_case(t, cases[i], seed + static_cast<std::uint32_t>(i), mode);
    if (!bad.empty()) die(osmp::cat("case ", i, " ", cases[i].name(), ": ", bad));
  }
}

std::vector<osmp::test::CollCase> large_cases(int n) {
  std::vector<osmp::test::CollCase> out;
  const std::int64_t mib = 1 << 20;
  for (auto t : {osmp::Datatype::int32, osmp::Datatype::float64}) {
    std::int64_t count = mib / static_cast<std::int64_t>(osmp::size_of(t)) + 3;
    for (auto k : osmp::kOpKinds) {
      if (k == osmp::OpKind::barrier) continue;
      for (bool ip : {false, true}) {
        if (ip && k == osmp::OpKind::bcast) continue;
        out.push_back({k, t, t == osmp::Datatype::int32 ? osmp::Op::bxor : osmp::Op::sum, count, n / 2, ip});
      }
    }
  }
  return out;
}

std::vector<osmp::test::CollCase> random_cases(int n, std::uint32_t seed, int count) {
  std::mt19937 rng(seed);
  std::vector<osmp::test::CollCase> out;
  for (int i = 0; i < count; ++i) {
    osmp::test::CollCase c;
    c.kind = osmp::kOpKinds[rng() % std::size(osmp::kOpKinds)];
    c.type = static_cast<osmp::Datatype>(rng() % osmp::kDatatypeCount);
    do {
      c.op = static_cast<osmp::Op>(rng() % osmp::kOpCount);
    } while (!osmp::defined_for(c.op, c.type));
    // Mostly small, sometimes past the inline, slot and chunk thresholds.
    const std::int64_t sizes[] = {0, 1, 3, 5, 8, 31, 100, 1000, 4097, 20000, 70000};
    c.count = sizes[rng() % std::size(sizes)];
    c.root = static_cast<int>(rng() % static_cast<unsigned>(n));
    c.in_place = rng() % 3 == 0;
    if (c.kind == osmp::OpKind::bcast) c.in_place = false;
    out.push_back(c);
  }
  return out;
}

// Bits of an allreduce of random doubles: depend on the tree's combine order.
std::uint64_t sum_bits(osmp::Team& t) {
  std::mt19937_64 rng(99 + static_cast<std::uint64_t>(t.rank()));
  std::uniform_real_distribution<double> d(-1e6, 1e6);
  std::vector<double> in(30011), out(in.size());
  for (auto& x : in) x = d(rng);
  if (auto st = t.allreduce(in.data(), out.data(), static_cast<std::int64_t>(in.size()), osmp::Datatype::float64,
                            osmp::Op::sum);
      !st.ok())
    die(st.to_string());
  return osmp::fnv1a(std::string_view(reinterpret_cast<const char*>(out.data()), out.size() * sizeof(double)));
}

void reconfigure(osmp::Team& t, std::uint32_t seed, int count, const std::string& spec_list) {
  std::vector<std::string> specs;
  for (auto s : osmp::split(spec_list, ';')) specs.emplace_back(s);
  if (auto st = t.set_vh(specs.front()); !st.ok()) die(st.to_string());
  const int maps = osmp::test::osmp_mappings();
  const std::uint64_t bits = sum_bits(t);
  auto cases = random_cases(t.size(), seed, count);
  std::mt19937 rng(seed * 7 + 1);  // the same on every rank: the changes are collective
  int changes = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (rng() % 16 == 0) {
      const std::string& spec = specs[rng() % specs.size()];
      osmp::Status st = rng() % 2 ? t.set_vh(spec) : t.set_vh(osmp::kOpKinds[rng() % osmp::kOpKindCount], spec);
      if (!st.ok()) die(osmp::cat("change ", changes, " to '", spec, "': ", st.to_string()));
      ++changes;
    }
    std::string bad = osmp::test::run_case(t, cases[i], seed + static_cast<std::uint32_t>(i));
    if (!bad.empty()) die(osmp::cat("case ", i, " ", cases[i].name(), " (after ", changes, " changes): ", bad));
  }
  if (auto st = t.configure({{"OSMP_VH", specs.front()}}); !st.ok()) die(st.to_string());
  if (t.views() != 1) die(osmp::cat(t.views(), " views after setting every operation"));
  if (osmp::test::osmp_mappings() != maps)
    die(osmp::cat(osmp::test::osmp_mappings(), " osmp mappings at the end, ", maps, " at the start"));
  if (sum_bits(t) != bits) die("allreduce bits differ after going back to the first spec");
  line(osmp::cat("rank ", g_rank, ": ", changes, " changes, generation ", t.generation()));
  // The cost of a change: a few round trips to a tree rebuilt from scratch.
  const char* a = specs.size() > 1 ? specs[1].c_str() : "";
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i)
    if (auto st = t.set_vh(i % 2 ? specs.front() : a); !st.ok()) die(st.to_string());
  auto us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 10;
  if (g_rank == 0) line(osmp::cat("a change takes ", static_cast<long>(us), " us"));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::string mode = argv[1];
  if (const char* r = std::getenv("OSMP_RANK")) g_rank = std::atoi(r);  // for messages before the team exists
  auto team = osmp::Team::create();
  if (!team.ok()) die(team.status().to_string());
  osmp::Team& t = *team;
  g_rank = t.rank();
  if (g_rank == 0) line(osmp::cat("job ", std::getenv("OSMP_JOB_ID")));
  line(osmp::cat("pid ", g_rank, " ", ::getpid()));

  if (mode == "matrix") {
    run(t, osmp::test::matrix(t.size(), {0, 1, 7}, true, {4096}), 11);
  } else if (mode == "nbmatrix") {
    run(t, osmp::test::matrix(t.size(), {0, 1, 7}, true, {4096}), 11, osmp::test::Mode::wait);
  } else if (mode == "large") {
    run(t, large_cases(t.size()), 12);
  } else if (mode == "random") {
    std::uint32_t seed = static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10));
    auto cases = random_cases(t.size(), seed, std::atoi(argv[3]));
    std::size_t first = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 0;  // replay a tail
    cases.erase(cases.begin(), cases.begin() + static_cast<long>(std::min(first, cases.size())));
    run(t, cases, seed + static_cast<std::uint32_t>(first));
  } else if (mode == "determinism") {
    // Random doubles: the sum's bits depend on the combine order, which is
    // fixed per tree, so every rank and every run must see the same bits.
    std::mt19937_64 rng(1234 + static_cast<std::uint64_t>(g_rank));
    std::uniform_real_distribution<double> d(-1e6, 1e6);
    std::vector<double> in(100003), out(in.size()), again(in.size());
    for (auto& x : in) x = d(rng);
    if (auto st = t.allreduce(in.data(), out.data(), static_cast<std::int64_t>(in.size()), osmp::Datatype::float64,
                              osmp::Op::sum);
        !st.ok())
      die(st.to_string());
    if (auto st = t.allreduce(in.data(), again.data(), static_cast<std::int64_t>(in.size()), osmp::Datatype::float64,
                              osmp::Op::sum);
        !st.ok())
      die(st.to_string());
    if (std::memcmp(out.data(), again.data(), out.size() * sizeof(double)) != 0) die("two runs differ");
    std::uint64_t h = 1469598103934665603ULL;
    for (double x : out) {
      std::uint64_t b;
      std::memcpy(&b, &x, sizeof b);
      h = (h ^ b) * 1099511628211ULL;
    }
    std::vector<std::uint64_t> all(static_cast<std::size_t>(t.size()));
    if (auto st = t.allgather(&h, all.data(), 1, osmp::Datatype::uint64); !st.ok()) die(st.to_string());
    for (auto x : all)
      if (x != h) die("ranks got different bits");
    line(osmp::cat("checksum ", h));
  } else if (mode == "list") {
    if (g_rank == 0) {
      auto cases =
          random_cases(t.size(), static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10)), std::atoi(argv[3]));
      for (std::size_t i = std::strtoul(argv[4], nullptr, 10); i < cases.size(); ++i)
        line(osmp::cat(i, " ", cases[i].name()));
    }
  } else if (mode == "reconfigure") {
    reconfigure(t, static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10)), std::atoi(argv[3]),
                argc > 4 ? argv[4] : "");
  } else if (mode == "settings") {  // what each operation runs with (tuning file tests)
    if (g_rank == 0)
      for (osmp::OpKind k : osmp::kOpKinds)
        line(osmp::cat("op ", osmp::to_string(k), " vh '", t.vh(k), "' views ", t.views()));
    run(t, random_cases(t.size(), 5, 300), 5);
  } else if (mode == "vhloop") {  // changes of the tree until an error (for kill tests)
    std::vector<double> in(1000, 1.0), out(1000);
    for (int i = 0;; ++i) {
      osmp::Status st = t.set_vh(i % 3 == 0 ? "" : i % 3 == 1 ? "?2" : "Machine:2");
      if (st.ok()) st = t.allreduce(in.data(), out.data(), 1000, osmp::Datatype::float64, osmp::Op::sum);
      if (!st.ok()) die(st.to_string());
    }
  } else if (mode == "lifecycle") {  // every stage a kill point can hit, then finalize
    run(t, random_cases(t.size(), 21, 30), 21);
    if (auto st = t.set_vh("?2"); !st.ok()) die(st.to_string());
    run(t, random_cases(t.size(), 22, 30), 22);
  } else if (mode == "mismatch") {  // rank ODD passes count 8, the others 16: print the error
    const int odd = std::atoi(argv[2]);
    std::vector<std::int32_t> in(16, 1), out(16);
    osmp::Status st = t.allreduce(in.data(), out.data(), g_rank == odd ? 8 : 16, osmp::Datatype::int32, osmp::Op::sum);
    if (st.code() != osmp::Errc::mismatch) die(osmp::cat("expected a mismatch, got ", st.to_string()));
    line(osmp::cat("rank ", g_rank, " message: ", st.message()));
    st = t.allreduce(in.data(), out.data(), 16, osmp::Datatype::int32, osmp::Op::sum);
    if (!st.ok() || out[0] != t.size()) die(osmp::cat("the team is not usable after a mismatch: ", st.to_string()));
  } else if (mode == "lazy_dead") {
    // OSMP_CHECK=lazy: rank 1 passes another count to a small bcast (a
    // one-pass call where the tree is one group: rank 1 finds it, the others
    // may return), then rank DEAD is SIGKILLed before its next call. The
    // survivors' next call (a resynchronisation, or a wait for DEAD) must
    // fail naming DEAD, never hang.
    const int dead = std::atoi(argv[2]);
    std::int32_t buf[4] = {};
    (void)t.bcast(buf, g_rank == 1 ? 2 : 4, osmp::Datatype::int32, 0);
    if (g_rank == dead) ::kill(::getpid(), SIGKILL);
    std::int64_t one = 1, sum = 0;
    osmp::Status st = t.allreduce(&one, &sum, 1, osmp::Datatype::int64, osmp::Op::sum);
    if (st.ok()) die("the call after the mismatch succeeded without rank " + std::to_string(dead));
    die(st.to_string());
  } else if (mode == "nbloop") {
    std::vector<double> in(1000, 1.0), out(1000), gathered(1000 * static_cast<std::size_t>(t.size()));
    std::vector<std::int32_t> b(64, 1);
    volatile double sink = 0;
    for (;;) {
      osmp::Request r[4] = {t.iallreduce(in.data(), out.data(), 1000, osmp::Datatype::float64, osmp::Op::sum),
                            t.ibcast(b.data(), 64, osmp::Datatype::int32, 0),
                            t.igather(in.data(), gathered.data(), 1000, osmp::Datatype::float64, t.size() - 1),
                            t.ibarrier()};
      while (!r[3].test()) sink = sink + 1.0;  // "compute" while the calls are pending
      osmp::Status st = osmp::wait_all(r);
      if (!st.ok()) die(st.to_string());
    }
  } else if (mode == "heap") {
    auto cases = osmp::test::heap_matrix(t.size(), {150000});
    run(t, cases, 21);
    run(t, cases, 22, osmp::test::Mode::wait);
    if (t.single_copies() == 0) die("no call took single copy through the heap");
  } else if (mode == "heaploop") {
    auto buf = t.allocate<float>(1 << 18);
    if (!buf.ok()) die(buf.status().to_string());
    for (float& x : *buf) x = 1.0f;
    for (;;) {
      osmp::Status st = t.allreduce(std::span<float>(*buf), osmp::Op::max);
      if (st.ok()) st = t.bcast(std::span<float>(*buf), 0);
      if (!st.ok()) die(st.to_string());
    }
  } else if (mode == "split") {  // sub-teams of several shapes, their collectives and the parent's, many alive
    const int n = t.size(), me = g_rank;
    const std::pair<int, int> shapes[] = {{me % 2, me}, {0, n - me}, {me, 0}, {me % 3 == 1 ? -1 : me % 3, -me}};
    std::vector<osmp::Team> alive;
    for (int round = 0; round < 3; ++round)
      for (const auto& [color, key] : shapes) {
        auto sub = t.split(color, key);
        if (!sub.ok()) die(sub.status().to_string());
        if (sub->has_value()) {
          osmp::Team& g = **sub;
          run(g, random_cases(g.size(), static_cast<std::uint32_t>(31 + round), 40), 31);
          alive.push_back(std::move(g));
        }
        run(t, random_cases(n, 41, 5), 41);
      }
    auto d = t.dup();
    if (!d.ok()) die(d.status().to_string());
    for (auto it = alive.rbegin(); it != alive.rend(); ++it) run(*it, random_cases(it->size(), 51, 10), 51);
    run(*d, random_cases(n, 52, 20), 52);
    line(osmp::cat("rank ", me, ": ", alive.size(), " sub-teams alive"));
    // What a sub-team costs: made and dropped, ten times each.
    for (bool halves : {false, true}) {
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 10; ++i) {
        auto sub = t.split(halves ? me % 2 : 0, me);
        if (!sub.ok()) die(sub.status().to_string());
      }
      auto us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 10;
      if (me == 0) line(osmp::cat(halves ? "a split in two" : "a dup", " takes ", static_cast<long>(us), " us"));
    }
  } else if (mode == "splitloop") {  // sub-teams made, used and dropped until an error (for kill tests)
    std::vector<double> in(1000, 1.0), out(1000);
    for (int i = 0;; ++i) {
      auto sub = i % 2 ? t.split(g_rank % 2, g_rank) : t.split(0, g_rank);  // the test knows the sub-ranks
      if (!sub.ok()) die(sub.status().to_string());
      osmp::Status st = (**sub).allreduce(in.data(), out.data(), 1000, osmp::Datatype::float64, osmp::Op::sum);
      if (!st.ok()) die(st.to_string());
    }
  } else if (mode == "loop") {
    std::vector<double> in(1000, 1.0), out(1000);
    for (;;) {
      osmp::Status st = t.allreduce(in.data(), out.data(), 1000, osmp::Datatype::float64, osmp::Op::sum);
      if (!st.ok()) die(st.to_string());
    }
  } else {
    return 2;
  }
  line(osmp::cat("rank ", g_rank, " ok"));
  return 0;
}
