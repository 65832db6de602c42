// The CMA paths (collectives/ops/cma.cpp) through the public API, ranks as
// threads (label sim; process_vm_readv/writev on the process itself): how
// the team decides with OSMP_CMA=auto whether the copy pays; every
// operation they carry, at sizes inside each one's automatic range and
// with OSMP_CMA_MIN set, rooted ones at every root, in place and not; and a
// copy that fails (a receive buffer the kernel cannot write) is an error on
// the ranks it concerns, never a hang, and the team works after it.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "api/access.hpp"
#include "collectives/ops/common.hpp"
#include "shm/cma.hpp"
#include "support/collective_suite.hpp"
#include "team/team.hpp"
#include "team_api_harness.hpp"

namespace osmp {
namespace {

// Plain buffers only: with heaps, staging would carry some of these calls;
// and CMA whether it pays on this host or not (OSMP_CMA=1; auto's choice:
// TheTeamDecidesWhetherCmaPays).
auto no_heap = [](Options& o) {
  o.settings["OSMP_HEAP_SIZE"] = "0";
  o.settings["OSMP_CMA"] = "1";
};

std::vector<test::CollCase> cma_cases(int n, std::int64_t bytes) {
  std::vector<test::CollCase> out;
  for (const auto& c : test::matrix(n, {}, true, {bytes}))
    if (c.kind != OpKind::barrier && c.kind != OpKind::reduce &&
        (c.type == Datatype::int32 || c.type == Datatype::float64))
      out.push_back(c);
  return out;
}

class CmaMatrix : public ::testing::TestWithParam<test::Config> {};

TEST_P(CmaMatrix, EveryOperationItCarries) {
  const test::Config& c = GetParam();
  auto tt = test::make_teams(c, no_heap);
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  // 192 KiB: CMA by default for bcast, allgather, allreduce, reduce_scatter,
  // gather and scatter; 48 KiB with OSMP_CMA_MIN=16K: every operation that
  // takes CMA (not scan) by CMA, where by default only allgather(v) and
  // exscan of two ranks would be.
  auto cases = cma_cases(c.n, 192 * 1024);
  EXPECT_EQ(test::run_cases(tt, cases, 31), "") << c.name;
  test::on_all(tt, [](Team& t) { ASSERT_TRUE(t.configure({{"OSMP_CMA_MIN", "16K"}}).ok()); });
  auto low = cma_cases(c.n, 48 * 1024);
  EXPECT_EQ(test::run_cases(tt, low, 32), "") << c.name << ", OSMP_CMA_MIN=16K";
  EXPECT_EQ(test::run_cases(tt, low, 33, test::Mode::wait), "") << c.name << ", non-blocking";
  // Odd sizes: shares and splits that do not fall on cache lines or pieces.
  EXPECT_EQ(test::run_cases(tt, cma_cases(c.n, 600000 + 8), 34), "") << c.name << ", 600 KB";
}

const test::Config kCmaConfigs[] = {
    {"here_2", "", 2, MapBy::core, "", "", ""},
    {"here_3", "", 3, MapBy::core, "", "", ""},
    {"here_5_strict", "", 5, MapBy::core, "", "", "strict"},
};
INSTANTIATE_TEST_SUITE_P(Configs, CmaMatrix, ::testing::ValuesIn(kCmaConfigs),
                         [](const auto& param_info) { return param_info.param.name; });

// OSMP_CMA=auto, the default: every rank comes to the decision its
// measurement gives (threads of one process: one measurement, so the
// team's is it), no size range where the copy does not pay; 1 uses
// it whatever it costs, 0 never; the plans follow a configure at once.
TEST(CmaSetting, TheTeamDecidesWhetherCmaPays) {
  if (cma_slowdown() == 0) GTEST_SKIP() << "the kernel refuses process_vm_readv here";
  auto tt = test::make_teams({"here_3", "", 3, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  const bool pays = cma_pays(cma_slowdown());
  auto settings = [&] {
    std::vector<PlanSettings> got(6);  // each rank's bcast and gatherv engines
    test::on_all(tt, [&](Team& t) {
      const auto r = static_cast<std::size_t>(t.rank());
      got[2 * r] = TeamAccess::engine(t, OpKind::bcast).settings();
      got[2 * r + 1] = TeamAccess::engine(t, OpKind::gatherv).settings();
    });
    return got;
  };
  for (const PlanSettings& s : settings()) {
    EXPECT_TRUE(s.cma);
    EXPECT_EQ(s.cma_sized, pays) << "slowdown " << cma_slowdown();
  }
  test::on_all(tt, [](Team& t) { ASSERT_TRUE(t.configure({{"OSMP_CMA", "1"}}).ok()); });
  for (const PlanSettings& s : settings()) {
    EXPECT_TRUE(s.cma);
    EXPECT_TRUE(s.cma_sized);
  }
  test::on_all(tt, [](Team& t) { ASSERT_TRUE(t.configure({{"OSMP_CMA", "0"}}).ok()); });
  for (const PlanSettings& s : settings()) EXPECT_FALSE(s.cma);
  // And the calls give the same results on each: 192 KiB, CMA's where it is used.
  test::on_all(tt, [](Team& t) { ASSERT_TRUE(t.configure({{"OSMP_CMA", "auto"}}).ok()); });
  EXPECT_EQ(test::run_cases(tt, cma_cases(3, 192 * 1024), 35), "") << "OSMP_CMA=auto";
}

// A receiver whose buffer the kernel cannot write (PROT_NONE): its own read
// and the root's write into it fail. Both get an error naming the failed
// call; the other receiver, whose part the root may not have written, gets
// the root's error or its data; nobody hangs; the next calls work.
TEST(CmaErrors, AFailedCopyIsAnErrorNotAHang) {
  auto tt = test::make_teams({"here_3", "", 3, MapBy::core, "", "", ""}, no_heap);
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  constexpr std::size_t kBytes = 256 * 1024;
  void* locked = ::mmap(nullptr, kBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(locked, MAP_FAILED);
  std::vector<Status> got(3);
  test::on_all(tt, [&](Team& t) {
    std::vector<std::byte> mine(kBytes, std::byte{7});
    void* buf = t.rank() == 2 ? locked : mine.data();
    got[static_cast<std::size_t>(t.rank())] = t.bcast(buf, static_cast<std::int64_t>(kBytes), Datatype::uint8, 0);
    std::vector<std::int32_t> v(kBytes / 4, t.rank() + 1);
    Status after = t.bcast(v.data(), static_cast<std::int64_t>(v.size()), Datatype::int32, 1);
    EXPECT_TRUE(after.ok()) << after.to_string();
    EXPECT_EQ(v.back(), 2);
  });
  ::munmap(locked, kBytes);
  EXPECT_FALSE(got[0].ok());  // the root's write into rank 2 failed
  if (!got[1].ok()) {
    EXPECT_NE(got[1].message().find("rank 0 could not copy"), std::string::npos) << got[1].to_string();
  }
  EXPECT_FALSE(got[2].ok());
  for (int r : {0, 2}) {
    EXPECT_NE(got[static_cast<std::size_t>(r)].message().find("process_vm"), std::string::npos)
        << got[static_cast<std::size_t>(r)].to_string();
  }
}

// Gatherv's blocks that do not ride are written into the root's buffer by
// their ranks: after the root's ack in the lazy one pass (ops/rows.cpp), at
// the offset the root's outbox gives in the strict path (ops/cma.cpp). The
// last page of rank 2's block is memory the kernel cannot read (PROT_NONE;
// its first bytes may ride with the strict lengths step), so its write
// fails: it gets the error naming the copy, the root an error naming rank 2;
// rank 1's block is in place; nobody hangs; the next call works. Blocking
// and started (igatherv, then wait).
TEST(CmaErrors, AGathervBlockThatCannotBeWrittenIsAnErrorNotAHang) {
  constexpr std::int64_t kBlock = 64 * 1024;  // past kRowsDataBytes, and in CMA's range
  for (const std::string check : {"lazy", "strict", "lazy, started", "strict, started"}) {
    const bool started = check.find("started") != std::string::npos;
    auto tt = test::make_teams({"here_3", "", 3, MapBy::core, "", "", ""}, no_heap);
    ASSERT_TRUE(tt.ok()) << tt.first_error();
    auto* block =
        static_cast<std::uint8_t*>(::mmap(nullptr, kBlock, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(static_cast<void*>(block), MAP_FAILED);
    std::memset(block, 3, kBlock);
    ASSERT_EQ(::mprotect(block + kBlock - 4096, 4096, PROT_NONE), 0);
    std::vector<Status> got(3);
    std::vector<std::uint8_t> all(3 * kBlock, 0);
    test::on_all(tt, [&](Team& t) {
      ASSERT_TRUE(t.configure({{"OSMP_CHECK", check.substr(0, check.find(','))}}).ok());
      const std::vector<std::int64_t> counts(3, kBlock), displs{0, kBlock, 2 * kBlock};
      std::vector<std::uint8_t> mine(kBlock, static_cast<std::uint8_t>(t.rank() + 1));
      const void* send = t.rank() == 2 ? static_cast<const void*>(block) : mine.data();
      got[static_cast<std::size_t>(t.rank())] =
          started ? t.igatherv(send, kBlock, all.data(), counts.data(), displs.data(), Datatype::uint8, 0).wait()
                  : t.gatherv(send, kBlock, all.data(), counts.data(), displs.data(), Datatype::uint8, 0);
      std::vector<std::int32_t> v(1024, t.rank() + 1);
      Status after = t.bcast(v.data(), static_cast<std::int64_t>(v.size()), Datatype::int32, 1);
      EXPECT_TRUE(after.ok()) << check << ": " << after.to_string();
      EXPECT_EQ(v.back(), 2);
    });
    ::munmap(block, kBlock);
    EXPECT_FALSE(got[0].ok()) << check;
    EXPECT_NE(got[0].message().find("rank 2 could not"), std::string::npos) << check << ": " << got[0].to_string();
    EXPECT_TRUE(got[1].ok()) << check << ": " << got[1].to_string();
    EXPECT_EQ(all[static_cast<std::size_t>(kBlock)], 2) << check;  // rank 1's block, written by rank 1
    EXPECT_EQ(all[static_cast<std::size_t>(2 * kBlock - 1)], 2) << check;
    EXPECT_FALSE(got[2].ok()) << check;
    for (const char* says : {"writing into rank 0's buffer", "process_vm_writev"}) {
      EXPECT_NE(got[2].message().find(says), std::string::npos) << check << ": " << got[2].to_string();
    }
  }
}

// After a call a peer wrote into `len` bytes at `p` of: fills them with a
// pattern, waits 50 ms, and says which byte was written over it ("": none).
std::string written_after_return(std::uint8_t* p, std::size_t len) {
  constexpr std::uint8_t kPattern = 0xEE;
  std::memset(p, kPattern, len);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (std::size_t i = 0; i < len; ++i) {
    if (p[i] != kPattern) return cat("byte ", i, " written after the call returned");
  }
  return "";
}

// An abort raised while a rank copies into another's buffer (its single
// copy of tens of MiB takes milliseconds): the owner of the buffer returns
// the abort's error only once that copy is over (may_copy, outlive_copier),
// never while it still writes. Rank 1 raises the abort from a thread of its
// own 2 ms into the call; each rank, once its call returned, fills the part
// of its buffer peers write with a pattern and checks, 50 ms later, that
// nothing wrote over it. Gather (rank 1 writes its block into the root's
// buffer: ops/cma.cpp), lazy gatherv (the same from ops/rows.cpp) and bcast
// (the root writes the first half of rank 1's buffer). Where the abort
// falls is a matter of timing: with the owner's wait not outliving the
// copier, this test failed in 3 runs of 3 (gatherv's block written over the
// pattern, and copies into or from a buffer already freed: "Bad address").
TEST(CmaErrors, AnAbortNeverLetsACopyOutliveTheCall) {
  constexpr std::int64_t kBytes = std::int64_t{48} << 20;
  for (const std::string op : {"gather", "gatherv", "bcast"}) {
    auto tt = test::make_teams({"here_2", "", 2, MapBy::core, "", "", ""}, no_heap);
    ASSERT_TRUE(tt.ok()) << tt.first_error();
    std::vector<Status> got(2);
    std::vector<std::string> overwritten(2);
    test::on_all(tt, [&](Team& t) {
      const int me = t.rank();
      std::vector<std::uint8_t> send(static_cast<std::size_t>(kBytes), static_cast<std::uint8_t>(me + 1));
      std::vector<std::uint8_t> recv(static_cast<std::size_t>(op == "bcast" ? kBytes : 2 * kBytes), 0);
      std::thread stopper;
      if (me == 1) {
        stopper = std::thread([&t] {
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          core_of(t).abort();
        });
      }
      const std::vector<std::int64_t> counts(2, kBytes), displs{0, kBytes};
      Status st;
      if (op == "gather") {
        st = t.gather(send.data(), recv.data(), kBytes, Datatype::uint8, 0);
      } else if (op == "gatherv") {
        st = t.gatherv(send.data(), kBytes, recv.data(), counts.data(), displs.data(), Datatype::uint8, 0);
      } else {
        st = t.bcast(me == 0 ? send.data() : recv.data(), kBytes, Datatype::uint8, 0);
      }
      if (stopper.joinable()) stopper.join();
      // The part of my buffer a peer writes: rank 1's block in the root's
      // receive buffer; the root's half of rank 1's bcast buffer.
      std::uint8_t* written = nullptr;
      std::size_t len = 0;
      if (op != "bcast" && me == 0) written = recv.data() + kBytes, len = static_cast<std::size_t>(kBytes);
      if (op == "bcast" && me == 1) written = recv.data(), len = static_cast<std::size_t>(kBytes) / 2;
      if (written) overwritten[static_cast<std::size_t>(me)] = written_after_return(written, len);
      got[static_cast<std::size_t>(me)] = std::move(st);
    });
    for (int r = 0; r < 2; ++r) {
      EXPECT_EQ(overwritten[static_cast<std::size_t>(r)], "") << op << ", rank " << r;
      // The abort may come after the whole call: then both succeeded.
      if (!got[static_cast<std::size_t>(r)].ok()) {
        EXPECT_NE(got[static_cast<std::size_t>(r)].message().find("abort"), std::string::npos)
            << op << ", rank " << r << ": " << got[static_cast<std::size_t>(r)].to_string();
      }
    }
  }
}

// The same through the shared heap (ops/direct.cpp: the buffers in the
// ranks' heaps, copied where they are; a first call without the abort checks
// that they take that path): bcast, where the root writes the first half of
// rank 1's buffer while rank 1 reads the rest of the root's, and gather, the
// root's in place so that it waits for rank 1's write at once, the abort
// raised after 0.2-2 ms. With the owner's waits not outliving the copier,
// the gather cases failed in 3 runs of 3 (rank 1's block written over the
// pattern after the root returned).
TEST(HeapErrors, AnAbortNeverLetsACopyOutliveTheCall) {
  constexpr std::int64_t kBytes = std::int64_t{48} << 20;
  for (const auto& [op, delay_us] : std::vector<std::pair<std::string, int>>{
           {"bcast", 200}, {"bcast", 500}, {"bcast", 1000}, {"gather", 500}, {"gather", 2000}}) {
    auto tt = test::make_teams({"here_2", "", 2, MapBy::core, "", "", ""});
    ASSERT_TRUE(tt.ok()) << tt.first_error();
    std::vector<Status> got(2);
    std::vector<std::string> overwritten(2);
    std::vector<std::uint64_t> copies(2);
    test::on_all(tt, [&](Team& t) {
      const int me = t.rank();
      const std::uint64_t before = t.single_copies();
      auto send = t.allocate_bytes(static_cast<std::size_t>(kBytes));
      auto recv = t.allocate_bytes(static_cast<std::size_t>(op == "bcast" ? kBytes : 2 * kBytes));
      ASSERT_TRUE(send.ok() && recv.ok()) << send.status().to_string() << recv.status().to_string();
      auto* sbuf = static_cast<std::uint8_t*>(*send);
      auto* rbuf = static_cast<std::uint8_t*>(*recv);
      std::memset(sbuf, me + 1, static_cast<std::size_t>(kBytes));
      auto call = [&] {
        // The root's gather in place: it waits for rank 1's write at once.
        return op == "gather" ? t.gather(me == 0 ? kInPlace : sbuf, rbuf, kBytes, Datatype::uint8, 0)
                              : t.bcast(me == 0 ? sbuf : rbuf, kBytes, Datatype::uint8, 0);
      };
      // Once without the abort: these buffers take the heap's single copy.
      ASSERT_TRUE(call().ok());
      copies[static_cast<std::size_t>(me)] = t.single_copies() - before;
      std::thread stopper;
      if (me == 1) {
        stopper = std::thread([&t, delay = delay_us] {
          std::this_thread::sleep_for(std::chrono::microseconds(delay));
          core_of(t).abort();
        });
      }
      Status st = call();
      if (stopper.joinable()) stopper.join();
      std::uint8_t* written = nullptr;
      std::size_t len = 0;
      if (op == "gather" && me == 0) written = rbuf + kBytes, len = static_cast<std::size_t>(kBytes);
      if (op == "bcast" && me == 1) written = rbuf, len = static_cast<std::size_t>(kBytes) / 2;
      if (written) overwritten[static_cast<std::size_t>(me)] = written_after_return(written, len);
      got[static_cast<std::size_t>(me)] = std::move(st);
    });
    for (int r = 0; r < 2; ++r) {
      EXPECT_EQ(copies[static_cast<std::size_t>(r)], 1u) << op << ", rank " << r << ": not the heap's single copy";
      EXPECT_EQ(overwritten[static_cast<std::size_t>(r)], "") << op << ", rank " << r;
      if (!got[static_cast<std::size_t>(r)].ok()) {
        EXPECT_NE(got[static_cast<std::size_t>(r)].message().find("abort"), std::string::npos)
            << op << ", rank " << r << ": " << got[static_cast<std::size_t>(r)].to_string();
      }
    }
  }
}

// The stop falling exactly between two ranks' marks (the race of the test
// above made certain): the root (rank 0) passed may_copy and writes the
// first half of rank 1's 96 MiB bcast buffer; rank 1 raises the abort just
// before its own may_copy, so it copies nothing. It must still wait for the
// root's copy into its buffer before it returns (its role's waits, which
// outlive a marked peer: DirectCall::run). Was: rank 1 returned at once and
// the root wrote over the pattern (failed in every run).
TEST(HeapErrors, AStopBetweenTwoRanksMarksNeverLetsACopyOutliveTheCall) {
  constexpr std::int64_t kBytes = std::int64_t{96} << 20;
  auto tt = test::make_teams({"here_2", "", 2, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  static std::atomic<int> root_reached{0};
  static std::atomic<Team*> stopper{nullptr};
  std::atomic<bool> armed{false};
  std::vector<Status> got(2);
  std::vector<std::string> overwritten(2);
  std::vector<std::uint64_t> copies(2);
  test::on_all(tt, [&](Team& t) {
    const int me = t.rank();
    auto send = t.allocate_bytes(static_cast<std::size_t>(kBytes));
    auto recv = t.allocate_bytes(static_cast<std::size_t>(kBytes));
    ASSERT_TRUE(send.ok() && recv.ok()) << send.status().to_string() << recv.status().to_string();
    auto* sbuf = static_cast<std::uint8_t*>(*send);
    auto* rbuf = static_cast<std::uint8_t*>(*recv);
    std::memset(sbuf, me + 1, static_cast<std::size_t>(kBytes));
    if (me == 1) stopper.store(&t);
    ASSERT_TRUE(t.barrier().ok());
    if (me == 0) {
      root_reached.store(0);
      g_before_direct_copy.store(+[](int rank) {
        if (rank == 0) {
          root_reached.store(1);
          return;
        }
        while (root_reached.load() == 0) std::this_thread::yield();
        // The root marks at once after its call here: 1 ms later it is
        // deep in its copy (tens of MiB), and I have not marked yet.
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        core_of(*stopper.load()).abort();
      });
      armed.store(true);
    }
    while (!armed.load()) std::this_thread::yield();
    const std::uint64_t before = t.single_copies();
    Status st = t.bcast(me == 0 ? sbuf : rbuf, kBytes, Datatype::uint8, 0);
    copies[static_cast<std::size_t>(me)] = t.single_copies() - before;
    if (me == 1) overwritten[1] = written_after_return(rbuf, static_cast<std::size_t>(kBytes) / 2);
    got[static_cast<std::size_t>(me)] = std::move(st);
  });
  g_before_direct_copy.store(nullptr);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(copies[static_cast<std::size_t>(r)], 1u) << "rank " << r << ": not the heap's single copy";
    EXPECT_EQ(overwritten[static_cast<std::size_t>(r)], "") << "rank " << r;
    EXPECT_FALSE(got[static_cast<std::size_t>(r)].ok()) << "rank " << r;
    EXPECT_NE(got[static_cast<std::size_t>(r)].message().find("abort"), std::string::npos)
        << "rank " << r << ": " << got[static_cast<std::size_t>(r)].to_string();
  }
}

}  // namespace
}  // namespace osmp
