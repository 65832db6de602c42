// The shared heap through the public API, ranks as threads (label sim):
// every operation with its buffers in the heap, outside it, and mixed per
// rank, on one group and on a deeper tree; single copy taken exactly when
// the buffers allow it; allocation errors.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "collectives/ops/describe.hpp"
#include "shm/regions.hpp"
#include "support/collective_suite.hpp"
#include "team_api_harness.hpp"

namespace osmp {
namespace {

// The operations with a single-copy path (ops/direct.cpp): all but barrier
// and the scans, which go along the chain of ranks.
// Not scan and exscan (the chain of ranks) nor the v-variants (the flat path or CMA).
bool single_copy_op(OpKind k) {
  return k != OpKind::barrier && k != OpKind::scan && k != OpKind::exscan && !is_varied(k);
}

using test::Config;
using test::Placement;

// Past the areas (64 KiB) for every operation, and not a multiple of a page.
constexpr std::int64_t kLarge = 150000;

class HeapMatrix : public ::testing::TestWithParam<Config> {};

TEST_P(HeapMatrix, EveryOpPlacementRootInPlace) {
  const Config& c = GetParam();
  auto tt = test::make_teams(c);
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  auto cases = test::heap_matrix(c.n, {kLarge});
  EXPECT_EQ(test::run_cases(tt, cases, 11), "") << c.name << ": " << cases.size() << " cases";
  // Non-blocking too.
  EXPECT_EQ(test::run_cases(tt, cases, 12, test::Mode::wait), "") << c.name;
  // Buffers outside the heap staged through it (OSMP_STAGE_MIN below the size).
  test::on_all(tt, [](Team& t) { ASSERT_TRUE(t.configure({{"OSMP_STAGE_MIN", "64K"}}).ok()); });
  EXPECT_EQ(test::run_cases(tt, cases, 13), "") << c.name << ", staged";
  EXPECT_EQ(test::run_cases(tt, cases, 14, test::Mode::wait), "") << c.name << ", staged";
}

const Config kHeapConfigs[] = {
    {"here_2", "", 2, MapBy::core, "", "", ""},
    {"here_3_strict", "", 3, MapBy::core, "", "", "strict"},
    {"here_5", "", 5, MapBy::core, "", "", ""},
    {"rome_8_scatter", "rome", 8, MapBy::scatter, "", "", ""},
};
INSTANTIATE_TEST_SUITE_P(Configs, HeapMatrix, ::testing::ValuesIn(kHeapConfigs),
                         [](const auto& param_info) { return param_info.param.name; });

// Which calls take single copy: every one whose buffers are in the heap;
// plain buffers too while they are staged (OSMP_STAGE, the default), none
// of them without staging; nothing with OSMP_DIRECT=0.
TEST(HeapPath, SingleCopyExactlyWhenTheBuffersAllowIt) {
  auto tt = test::make_teams({"here_3", "", 3, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  std::vector<test::CollCase> heap, plain;
  for (OpKind k : kOpKinds) {
    if (!single_copy_op(k)) continue;
    for (bool ip : {false, true}) {
      if (ip && k == OpKind::bcast) continue;
      heap.push_back({k, Datatype::int32, Op::sum, kLarge / 4, 1, ip, Placement::heap});
      plain.push_back({k, Datatype::int32, Op::sum, kLarge / 4, 1, ip, Placement::plain});
    }
  }
  test::on_all(tt, [](Team& t) { ASSERT_TRUE(t.configure({{"OSMP_STAGE_MIN", "64K"}}).ok()); });
  auto copies = [&] {
    std::vector<std::uint64_t> v;
    for (auto& t : tt.teams) v.push_back(t->single_copies());
    return v;
  };
  auto expect_more = [&](const std::vector<std::uint64_t>& before, std::uint64_t more, const char* what) {
    auto now = copies();
    for (std::size_t r = 0; r < now.size(); ++r) EXPECT_EQ(now[r], before[r] + more) << what << ", rank " << r;
  };
  auto before = copies();
  ASSERT_EQ(test::run_cases(tt, heap, 1), "");
  expect_more(before, heap.size(), "heap buffers");
  before = copies();
  ASSERT_EQ(test::run_cases(tt, plain, 2), "");
  // reduce's output is never staged: its plain cases take the areas.
  const auto reduces = static_cast<std::uint64_t>(
      std::count_if(plain.begin(), plain.end(), [](const test::CollCase& c) { return c.kind == OpKind::reduce; }));
  expect_more(before, plain.size() - reduces, "plain buffers, staged");
  test::on_all(tt, [](Team& t) { ASSERT_TRUE(t.configure({{"OSMP_STAGE", "0"}}).ok()); });
  before = copies();
  ASSERT_EQ(test::run_cases(tt, plain, 3), "");
  expect_more(before, 0, "plain buffers, no staging");
  ASSERT_EQ(test::run_cases(tt, heap, 4), "");
  // All but reduce_scatter_block and alltoall in place, whose input each rank
  // overwrites while peers read it.
  expect_more(before, heap.size() - 2, "heap buffers, no staging");
  test::on_all(tt, [](Team& t) { ASSERT_TRUE(t.configure({{"OSMP_DIRECT", "0"}}).ok()); });
  before = copies();
  ASSERT_EQ(test::run_cases(tt, heap, 5), "");
  expect_more(before, 0, "OSMP_DIRECT=0");
}

TEST(HeapPath, AllocateAndFreeErrors) {
  auto tt = test::make_teams({"here_2", "", 2, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  Team& t = *tt.teams[0];
  auto a = t.allocate<double>(1000);
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a->data()) % 4096, 0u);
  std::vector<char> elsewhere(64);
  Status foreign = t.free_bytes(elsewhere.data());
  EXPECT_EQ(foreign.code(), Errc::invalid_argument);
  EXPECT_NE(foreign.message().find("not in this process's shared heap"), std::string::npos) << foreign.message();
  EXPECT_NE(foreign.message().find("rank 0"), std::string::npos) << foreign.message();
  Status inside = t.free_bytes(a->data() + 3);
  EXPECT_EQ(inside.code(), Errc::invalid_argument);
  EXPECT_NE(inside.message().find("inside the block"), std::string::npos) << inside.message();
  void* raw = a->data();
  EXPECT_TRUE(a->free().ok());
  Status twice = t.free_bytes(raw);
  EXPECT_EQ(twice.code(), Errc::invalid_argument);
  EXPECT_NE(twice.message().find("freed twice"), std::string::npos) << twice.message();
  auto huge = t.allocate_bytes(std::size_t{1} << 60);
  EXPECT_EQ(huge.status().code(), Errc::no_space);
  EXPECT_NE(huge.status().message().find("OSMP_HEAP_SIZE"), std::string::npos) << huge.status().message();
  // The team is still usable.
  test::on_all(tt, [](Team& team) { EXPECT_TRUE(team.barrier().ok()); });
}

// Freeing a buffer while a call started on the team is pending is refused
// (rank 1 starts its part only after rank 0 tried); once it completed, the
// free goes through.
TEST(HeapPath, FreeWithCallsPendingIsRefused) {
  auto tt = test::make_teams({"here_2", "", 2, MapBy::core, "", "", ""});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  std::atomic<bool> tried{false};
  test::on_all(tt, [&](Team& t) {
    auto buf = t.allocate<std::int32_t>(kLarge);
    ASSERT_TRUE(buf.ok());
    for (std::size_t i = 0; i < buf->size(); ++i) (*buf)[i] = t.rank() == 1 ? static_cast<std::int32_t>(i) : -1;
    if (t.rank() == 1) {
      while (!tried.load()) std::this_thread::yield();
    }
    Request r = t.ibcast(buf->data(), kLarge, Datatype::int32, 1);
    if (t.rank() == 0) {
      Status early = t.free_bytes(buf->data());
      tried = true;
      EXPECT_EQ(early.code(), Errc::invalid_argument);
      EXPECT_NE(early.message().find("pending"), std::string::npos) << early.message();
    }
    ASSERT_TRUE(r.wait().ok());
    EXPECT_EQ((*buf)[kLarge - 1], kLarge - 1);
    EXPECT_TRUE(buf->free().ok());
  });
}

// Ranks whose plans differed in a failed call (a count on either side of the
// areas: one offered its buffers, one did not) still agree on the next
// calls' paths (the offer counts line up again after the error verdict).
TEST(HeapPath, PathsAgreeAfterAMismatchOfPlans) {
  auto tt = test::make_teams({"here_2", "", 2, MapBy::core, "", "", "strict"});
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  test::on_all(tt, [](Team& t) {
    auto in = t.allocate<std::int32_t>(kLarge);
    auto out = t.allocate<std::int32_t>(kLarge);
    ASSERT_TRUE(in.ok() && out.ok());
    for (auto& x : *in) x = t.rank() + 1;
    const std::int64_t count = t.rank() == 0 ? kLarge : 10;
    Status bad = t.allreduce(in->data(), out->data(), count, Datatype::int32, Op::sum);
    EXPECT_EQ(bad.code(), Errc::mismatch) << bad.to_string();
    const std::uint64_t before = t.single_copies();
    for (int i = 0; i < 3; ++i) {
      Status st = t.allreduce(in->data(), out->data(), kLarge, Datatype::int32, Op::sum);
      ASSERT_TRUE(st.ok()) << st.to_string();
      EXPECT_EQ((*out)[kLarge - 1], 3);
    }
    EXPECT_EQ(t.single_copies(), before + 3);
  });
}

// A heap that cannot be mapped (far more address space than there is) leaves
// the team without heaps on every rank: allocation says so, and the
// collectives work.
TEST(HeapPath, NoHeapWhenItCannotBeMapped) {
  auto tt = test::make_teams({"here_2", "", 2, MapBy::core, "", "", ""},
                             [](Options& o) { o.settings["OSMP_HEAP_SIZE"] = std::to_string(std::size_t{1} << 62); });
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  auto p = tt.teams[0]->allocate_bytes(4096);
  EXPECT_EQ(p.status().code(), Errc::no_space);
  EXPECT_NE(p.status().message().find("no shared heap"), std::string::npos) << p.status().message();
  std::vector<test::CollCase> cases = {{OpKind::allreduce, Datatype::int32, Op::sum, kLarge / 4, -1, false}};
  EXPECT_EQ(test::run_cases(tt, cases, 1), "");
  EXPECT_EQ(tt.teams[0]->single_copies(), 0u);
}

// Memory of a shared region, as the interposer registers an MPI shared
// window (mpi_glue/pmpi/windows.cpp): an arena of this process in `parts`
// parts, registered with the given member pids, handing out fixed slots
// (a stack, so that few slots are ever touched).
class RegionSource final : public test::SharedSource {
 public:
  static constexpr std::size_t kSlot = 2 << 20, kSlots = 48;
  RegionSource(int parts, std::vector<pid_t> members) : arena_(kSlot * kSlots) {
    std::vector<RegionPart> ps;
    const std::size_t per = kSlots / static_cast<std::size_t>(parts) * kSlot;
    for (int i = 0; i < parts; ++i) ps.push_back({arena_.data() + static_cast<std::size_t>(i) * per, per});
    auto& regions = SharedRegions::of_process();
    number_ = SharedRegions::lowest_free(regions.used());
    Status st = regions.add(number_, std::move(ps), std::move(members));
    EXPECT_TRUE(st.ok()) << st.to_string();
    for (std::size_t i = kSlots; i-- > 0;) free_.push_back(arena_.data() + i * kSlot);
    test::use_shared_source(this);
  }
  ~RegionSource() override {
    test::use_shared_source(nullptr);
    SharedRegions::of_process().remove(number_);
  }
  void* allocate(std::size_t bytes) override {
    std::lock_guard lock(mu_);
    if (bytes > kSlot || free_.empty()) return nullptr;
    void* p = free_.back();
    free_.pop_back();
    return p;
  }
  void free(void* p) override {
    std::lock_guard lock(mu_);
    free_.push_back(static_cast<std::byte*>(p));
  }

 private:
  std::vector<std::byte> arena_;
  std::mutex mu_;
  std::vector<std::byte*> free_;
  int number_ = 0;
};

// Buffers in a shared region every rank has mapped take single copy like the
// heap's, on teams with and without heaps, whatever part they lie in; in a
// region some rank has not mapped (its pid not a member), or once it is
// removed, they take the areas. Results right throughout.
TEST(RegionPath, SharedRegionsTakeSingleCopyWhenEveryRankHasThem) {
  for (bool heaps : {false, true}) {
    auto tt = test::make_teams({"here_3", "", 3, MapBy::core, "", "", ""}, [&](Options& o) {
      if (!heaps) o.settings["OSMP_HEAP_SIZE"] = "0";
    });
    ASSERT_TRUE(tt.ok()) << tt.first_error();
    // Staging would make plain buffers single copy too: off, so that the
    // counts below are the regions' alone.
    test::on_all(tt, [](Team& t) { ASSERT_TRUE(t.configure({{"OSMP_STAGE", "0"}}).ok()); });
    auto cases = test::heap_matrix(3, {kLarge});
    std::vector<test::CollCase> all_in;
    for (const auto& c : cases)
      if (c.place == Placement::heap) all_in.push_back(c);
    auto copies = [&] { return tt.teams[0]->single_copies(); };
    {
      RegionSource region(4, {::getpid()});
      EXPECT_EQ(test::run_cases(tt, cases, 21), "") << "heaps " << heaps;
      EXPECT_EQ(test::run_cases(tt, cases, 22, test::Mode::wait), "") << "heaps " << heaps;
      const auto before = copies();
      EXPECT_EQ(test::run_cases(tt, all_in, 23), "");
      // All but reduce_scatter_block and alltoall in place (the input is
      // overwritten while peers read it: never offered), and the scans.
      const auto in_place_rsb =
          static_cast<std::uint64_t>(std::count_if(all_in.begin(), all_in.end(), [](const auto& c) {
            return ((c.kind == OpKind::reduce_scatter_block || c.kind == OpKind::alltoall) && c.in_place) ||
                   !single_copy_op(c.kind);
          }));
      EXPECT_EQ(copies(), before + all_in.size() - in_place_rsb) << "heaps " << heaps;
    }
    {
      RegionSource foreign(1, {1});  // mapped by pid 1 only, as far as osmp knows
      const auto before = copies();
      EXPECT_EQ(test::run_cases(tt, all_in, 24), "");
      EXPECT_EQ(copies(), before) << "a region not every rank has mapped";
    }
  }
}

}  // namespace
}  // namespace osmp
