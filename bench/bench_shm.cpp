// Shared-memory primitives measured between real processes (run by
// scripts/bench_shm.sh under osmprun). Rank 0 prints the results.
//
//   bench_shm pingpong ITERS   2 ranks: osmp flag round trip vs raw std::atomic
//   bench_shm wakeup           2 ranks: wake-up latency after the waiter idled
//   bench_shm ring ROUNDS      N ranks: token ring, microseconds per hop
//   bench_shm create ITERS     N ranks: team creation time
//   bench_shm memcpy           rank 0: memcpy of 64 KiB .. 4 MiB through the
//                              same rotation of buffers as coll_bench (at
//                              most 8 pairs, 64 MiB), the other ranks idle:
//                              the one-copy limit a large bcast is set against
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.hpp"
#include "osmp.hpp"
#include "shm/segment.hpp"
#include "team/shm_bootstrap.hpp"
#include "team/team.hpp"

namespace {

using osmp::now_ns;

[[noreturn]] void die(const osmp::Status& st) {
  std::fprintf(stderr, "bench_shm: %s\n", st.to_string().c_str());
  std::exit(1);
}

template <class T>
T must(osmp::Result<T> r) {
  if (!r.ok()) die(r.status());
  return std::move(r).value();
}

osmp::Bootstrap& boot();

std::unique_ptr<osmp::TeamCore> team() {
  return must(osmp::TeamCore::create(boot(), must(osmp::TeamOptions::from_env())));
}

osmp::Bootstrap& boot() { return *must(osmp::ShmBootstrap::instance()); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Two lines of a plain segment, one per process: the physical baseline.
struct RawLines {
  alignas(128) std::atomic<std::uint64_t> a{0};
  alignas(128) std::atomic<std::uint64_t> b{0};
};

double raw_pingpong(RawLines& l, int rank, std::uint64_t iters, std::uint64_t base) {
  std::uint64_t t0 = now_ns();
  for (std::uint64_t i = base + 1; i <= base + iters; ++i) {
    if (rank == 0) {
      l.a.store(i, std::memory_order_release);
      while (l.b.load(std::memory_order_acquire) != i) osmp::cpu_relax();
    } else {
      while (l.a.load(std::memory_order_acquire) != i) osmp::cpu_relax();
      l.b.store(i, std::memory_order_release);
    }
  }
  return static_cast<double>(now_ns() - t0) / static_cast<double>(iters);
}

// One shared line written alternately, as in BASELINES.md's 59 ns figure.
double raw_one_line(RawLines& l, int rank, std::uint64_t iters, std::uint64_t base) {
  std::uint64_t t0 = now_ns();
  for (std::uint64_t i = base + 1; i <= base + iters; ++i) {
    std::uint64_t want = 2 * i - (rank == 0 ? 1 : 0) - 1;  // rank 0 writes odd, rank 1 even
    while (l.a.load(std::memory_order_acquire) != want) osmp::cpu_relax();
    l.a.store(want + 1, std::memory_order_release);
  }
  return static_cast<double>(now_ns() - t0) / static_cast<double>(iters);
}

// osmp's Flag and Waiter on the one-shared-line pattern: both ranks publish
// the same flag in turn.
double flag_one_line(osmp::TeamCore& t, std::uint64_t iters) {
  osmp::Flag& f = t.rank_flag(0);
  // Both ranks read the start value before a barrier, so nobody moves it early.
  std::uint64_t base = f.value.load();  // rank 0's turn
  if (auto st = boot().barrier(); !st.ok()) die(st);
  bool wake = t.waiter().may_sleep();
  std::uint64_t t0 = now_ns();
  for (std::uint64_t i = 0; i < iters; ++i) {
    std::uint64_t turn = base + 2 * i + static_cast<std::uint64_t>(t.rank());
    if (t.waiter().wait(f, turn, 1 - t.rank()) != osmp::WaitStatus::ok) die(t.fail(osmp::WaitStatus::aborted));
    osmp::publish(f, turn + 1, wake);
  }
  return static_cast<double>(now_ns() - t0) / static_cast<double>(iters);
}

// osmp's Flag and Waiter, a line per writer: rank 0 writes flag 0, rank 1 flag 1.
double flag_pingpong(osmp::TeamCore& t, std::uint64_t iters) {
  osmp::Flag& mine = t.rank_flag(t.rank());
  osmp::Flag& other = t.rank_flag(1 - t.rank());
  std::uint64_t base = std::max(t.rank_flag(0).value.load(), t.rank_flag(1).value.load());
  if (auto st = boot().barrier(); !st.ok()) die(st);
  bool wake = t.waiter().may_sleep();
  std::uint64_t t0 = now_ns();
  for (std::uint64_t i = base + 1; i <= base + iters; ++i) {
    if (t.rank() == 0) {
      osmp::publish(mine, i, wake);
      if (t.waiter().wait(other, i, 1) != osmp::WaitStatus::ok) die(t.fail(osmp::WaitStatus::aborted));
    } else {
      if (t.waiter().wait(other, i, 0) != osmp::WaitStatus::ok) die(t.fail(osmp::WaitStatus::aborted));
      osmp::publish(mine, i, wake);
    }
  }
  return static_cast<double>(now_ns() - t0) / static_cast<double>(iters);
}

void pingpong(std::uint64_t iters) {
  auto t = team();
  if (t->size() != 2) die(osmp::Status(osmp::Errc::invalid_argument, "pingpong needs 2 ranks"));
  osmp::SegmentInfo info;
  info.kind = osmp::SegmentKind::test;
  info.job_id = boot().job_id();
  info.members = 2;
  osmp::Segment seg = t->rank() == 0 ? must(osmp::Segment::create(osmp::shm_dir(), 8192, info)) : osmp::Segment();
  osmp::SegmentHandle handle = seg.handle();
  if (auto st = boot().broadcast(&handle, sizeof handle, 0); !st.ok()) die(st);
  if (t->rank() == 1) seg = must(osmp::Segment::attach(handle, info));
  if (auto st = boot().barrier(); !st.ok()) die(st);
  seg.close_fd();
  auto* raw = new (seg.at<std::byte>(4096, sizeof(RawLines))) RawLines;
  if (auto st = boot().barrier(); !st.ok()) die(st);
  std::vector<double> r, r1, f, f1;
  std::uint64_t base = 0;
  raw_pingpong(*raw, t->rank(), iters / 10, base);
  base += iters / 10;
  if (auto st = boot().barrier(); !st.ok()) die(st);
  flag_pingpong(*t, iters / 10);
  for (int rep = 0; rep < 7; ++rep) {
    r.push_back(raw_pingpong(*raw, t->rank(), iters, base));
    base += iters;
    if (auto st = boot().barrier(); !st.ok()) die(st);
    raw->a.store(0);
    if (auto st = boot().barrier(); !st.ok()) die(st);
    r1.push_back(raw_one_line(*raw, t->rank(), iters, 0));
    if (auto st = boot().barrier(); !st.ok()) die(st);
    raw->a.store(base);
    if (auto st = boot().barrier(); !st.ok()) die(st);
    f.push_back(flag_pingpong(*t, iters));
    if (auto st = boot().barrier(); !st.ok()) die(st);
    if (auto st = boot().barrier(); !st.ok()) die(st);
    f1.push_back(flag_one_line(*t, iters));
    if (auto st = boot().barrier(); !st.ok()) die(st);
  }
  if (t->rank() == 0) {
    std::printf("# flag ping-pong between 2 processes, %llu round trips x 7 (median; min)\n",
                static_cast<unsigned long long>(iters));
    std::printf("%-34s %10s %10s\n", "# what", "ns/rtt", "min");
    std::printf("%-34s %10.1f %10.1f\n", "raw std::atomic, one shared line", median(r1),
                *std::min_element(r1.begin(), r1.end()));
    std::printf("%-34s %10.1f %10.1f\n", "raw std::atomic, a line per writer", median(r),
                *std::min_element(r.begin(), r.end()));
    std::string w = std::string(", wait=") + osmp::to_string(t->waiter().policy());
    std::printf("%-34s %10.1f %10.1f\n", ("osmp flags, one shared line" + w).c_str(), median(f1),
                *std::min_element(f1.begin(), f1.end()));
    std::printf("%-34s %10.1f %10.1f\n", ("osmp flags, a line per writer" + w).c_str(), median(f),
                *std::min_element(f.begin(), f.end()));
    std::printf("# osmp/raw: %.2f on one shared line, %.2f with a line per writer\n", median(f1) / median(r1),
                median(f) / median(r));
  }
}

// The waiter idles `idle_us` before the other rank publishes; we time from
// the publish to the waiter's answer coming back (one wake + one spin hop).
void wakeup() {
  auto t = team();
  osmp::Flag& mine = t->rank_flag(t->rank());
  osmp::Flag& other = t->rank_flag(1 - t->rank());
  std::uint64_t v = mine.value.load();
  bool wake = t->waiter().may_sleep();
  osmp::Waiter spinner(osmp::WaitPolicy::spin, false);
  if (t->rank() == 0)
    std::printf("# wake-up: publish -> waiter answers, wait=%s\n# %-10s %12s\n", osmp::to_string(t->waiter().policy()),
                "idle_us", "wake_us");
  for (int idle_us : {0, 10, 100, 1000, 10000}) {
    std::vector<double> samples;
    for (int rep = 0; rep < (idle_us >= 1000 ? 20 : 200); ++rep) {
      ++v;
      if (t->rank() == 0) {
        std::uint64_t until = now_ns() + static_cast<std::uint64_t>(idle_us) * 1000;
        while (now_ns() < until) osmp::cpu_relax();
        std::uint64_t t0 = now_ns();
        osmp::publish(mine, v, wake);
        if (spinner.wait(other, v) != osmp::WaitStatus::ok) die(t->fail(osmp::WaitStatus::aborted));
        samples.push_back(static_cast<double>(now_ns() - t0) / 1000.0);
      } else {
        if (t->waiter().wait(other, v, 0) != osmp::WaitStatus::ok) die(t->fail(osmp::WaitStatus::aborted));
        osmp::publish(mine, v, true);
      }
    }
    if (t->rank() == 0) std::printf("  %-10d %12.2f\n", idle_us, median(samples));
  }
}

void ring(std::uint64_t rounds) {
  auto t = team();
  int prev = (t->rank() + t->size() - 1) % t->size();
  osmp::Flag& mine = t->rank_flag(t->rank());
  std::uint64_t base = mine.value.load();
  bool wake = t->waiter().may_sleep();
  if (auto st = boot().barrier(); !st.ok()) die(st);
  std::uint64_t t0 = now_ns();
  for (std::uint64_t r = 1; r <= rounds; ++r) {
    if (t->rank() != 0 || r > 1) {
      std::uint64_t want = t->rank() == 0 ? base + r - 1 : base + r;
      if (t->waiter().wait(t->rank_flag(prev), want, prev) != osmp::WaitStatus::ok)
        die(t->fail(osmp::WaitStatus::aborted));
    }
    osmp::publish(mine, base + r, wake);
  }
  if (t->rank() == 0) {
    if (t->waiter().wait(t->rank_flag(prev), base + rounds, prev) != osmp::WaitStatus::ok)
      die(t->fail(osmp::WaitStatus::aborted));
    double per_hop = static_cast<double>(now_ns() - t0) / 1000.0 /
                     static_cast<double>(rounds * static_cast<std::uint64_t>(t->size()));
    std::printf("ring n=%d wait=%s%s: %.2f us per hop\n", t->size(), osmp::to_string(t->waiter().policy()),
                t->oversubscribed() ? " (oversubscribed)" : "", per_hop);
  }
}

// The floor of a two-process allreduce: each process stores its value and
// step into its own line and reads the other's (one line each way, at once),
// next to osmp's allreduce of one int32 in the same run.
void exchange(std::uint64_t iters) {
  auto t = team();
  if (t->size() != 2) die(osmp::Status(osmp::Errc::invalid_argument, "exchange needs 2 ranks"));
  std::vector<double> raw, coll;
  auto api = must(osmp::Team::create(boot(), must(osmp::Options::from_env())));
  for (int rep = 0; rep < 7; ++rep) {
    osmp::Flag& mine = t->rank_flag(t->rank());
    osmp::Flag& other = t->rank_flag(1 - t->rank());
    std::uint64_t base = std::max(mine.value.load(), other.value.load());
    if (auto st = boot().barrier(); !st.ok()) die(st);
    std::uint64_t t0 = now_ns();
    std::int32_t sum = 0;
    for (std::uint64_t i = base + 1; i <= base + iters; ++i) {
      mine.word = static_cast<std::uint32_t>(i);  // the payload, in the flag's line
      mine.value.store(i, std::memory_order_release);
      while (other.value.load(std::memory_order_acquire) < i) osmp::cpu_relax();
      sum += static_cast<std::int32_t>(other.word);
    }
    raw.push_back(static_cast<double>(now_ns() - t0) / static_cast<double>(iters));
    if (sum == 42) std::puts("");
    std::int32_t in = 1, out = 0;
    t0 = now_ns();
    for (std::uint64_t i = 0; i < iters; ++i) {
      if (auto st = api.allreduce(&in, &out, 1, osmp::Datatype::int32, osmp::Op::sum); !st.ok()) die(st);
    }
    coll.push_back(static_cast<double>(now_ns() - t0) / static_cast<double>(iters));
  }
  if (t->rank() == 0) {
    std::printf("# two-process exchange, %llu iterations x 7 (median; min) in ns\n",
                static_cast<unsigned long long>(iters));
    std::printf("raw line exchange (floor)   %8.1f %8.1f\n", median(raw), *std::min_element(raw.begin(), raw.end()));
    std::printf("osmp allreduce, 1 int32     %8.1f %8.1f\n", median(coll), *std::min_element(coll.begin(), coll.end()));
  }
}

void create(int iters) {
  std::vector<double> ms;
  for (int i = 0; i < iters; ++i) {
    if (auto st = boot().barrier(); !st.ok()) die(st);
    std::uint64_t t0 = now_ns();
    auto t = team();
    ms.push_back(static_cast<double>(now_ns() - t0) / 1e6);
  }
  double mine = median(ms);
  std::vector<double> all(static_cast<std::size_t>(boot().size()));
  if (auto st = boot().allgather(&mine, sizeof mine, all.data()); !st.ok()) die(st);
  if (boot().rank() == 0) {
    std::printf("team creation, %d processes: %.2f ms (median over %d, slowest rank)\n", boot().size(),
                *std::max_element(all.begin(), all.end()), iters);
  }
}

// The copies coll_bench's loop would make, as bare memcpy: as many as its
// iterations at that size (at least 20), after a tenth as many to warm up.
void copies() {
  if (boot().rank() == 0) {
    std::printf("# memcpy through rotating buffers (as coll_bench), us per copy\n");
    std::printf("%-10s %13s %10s\n", "# Size", "Avg(us)", "Iterations");
    for (std::size_t bytes = 64 * 1024; bytes <= (std::size_t{4} << 20); bytes *= 2) {
      long iters = std::max(20L, static_cast<long>(10000 * 8192.0 / static_cast<double>(bytes)));
      int nbuf = 8;
      while (nbuf > 1 && static_cast<double>(nbuf) * 2.0 * static_cast<double>(bytes) > 64.0 * 1024 * 1024) nbuf /= 2;
      std::vector<char> src(bytes * static_cast<std::size_t>(nbuf), 1), dst(bytes * static_cast<std::size_t>(nbuf), 0);
      std::uint64_t t0 = 0;
      for (long it = -iters / 10; it < iters; ++it) {
        if (it == 0) t0 = now_ns();
        const std::size_t at = static_cast<std::size_t>((it + iters) % nbuf) * bytes;
        std::memcpy(dst.data() + at, src.data() + at, bytes);
        asm volatile("" : : "r"(dst.data()) : "memory");
      }
      std::printf("%-10zu %13.2f %10ld\n", bytes, static_cast<double>(now_ns() - t0) / 1e3 / static_cast<double>(iters),
                  iters);
    }
  }
  if (auto st = boot().barrier(); !st.ok()) die(st);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::string mode = argv[1];
  std::uint64_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 0;
  if (mode == "pingpong")
    pingpong(n ? n : 1'000'000);
  else if (mode == "wakeup")
    wakeup();
  else if (mode == "ring")
    ring(n ? n : 2000);
  else if (mode == "create")
    create(n ? static_cast<int>(n) : 20);
  else if (mode == "exchange")
    exchange(n ? n : 1'000'000);
  else if (mode == "memcpy")
    copies();
  else
    return 2;
  std::fflush(stdout);
  return 0;
}
