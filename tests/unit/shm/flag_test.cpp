#include "shm/flag.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <thread>
#include <vector>

#include "shm/wait.hpp"

namespace osmp {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

TEST(Reached, Basic) {
  EXPECT_TRUE(reached(5, 5));
  EXPECT_TRUE(reached(6, 5));
  EXPECT_FALSE(reached(4, 5));
  EXPECT_TRUE(reached(0, 0));
}

TEST(Reached, AcrossWraparound) {
  EXPECT_TRUE(reached(0, kMax));  // 0 comes right after 2^64 - 1
  EXPECT_TRUE(reached(3, kMax - 2));
  EXPECT_FALSE(reached(kMax, 0));  // ... and 2^64 - 1 right before 0
  EXPECT_FALSE(reached(kMax - 2, 3));
  for (std::uint64_t base : {std::uint64_t{0}, kMax - 10, kMax / 2, std::uint64_t{1} << 63}) {
    for (std::uint64_t d = 0; d < 20; ++d) {
      EXPECT_TRUE(reached(base + d, base));
      if (d) {
        EXPECT_FALSE(reached(base, base + d));
      }
    }
  }
}

TEST(Flag, PublishThenPoll) {
  Flag f;
  EXPECT_FALSE(poll(f, 1));
  publish(f, 1, false);
  EXPECT_TRUE(poll(f, 1));
  publish(f, 7, true);
  EXPECT_TRUE(poll(f, 5));
  EXPECT_FALSE(poll(f, 8));
}

// Threads pass a token round a ring through flags, with every policy, more
// threads than cores; every hand-off must arrive and in order.
class FlagRing : public ::testing::TestWithParam<WaitPolicy> {};

TEST_P(FlagRing, TokenGoesRound) {
  constexpr int kThreads = 6;
  // Pure spinning with more threads than cores advances once per scheduler
  // slice: a few rounds prove it correct without taking seconds.
  const std::uint64_t kRounds = GetParam() == WaitPolicy::spin ? 20 : 300;
  std::vector<Flag> flags(kThreads);
  std::vector<std::uint64_t> payload(kThreads, 0);
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Waiter w(GetParam(), true);
      int prev = (t + kThreads - 1) % kThreads;
      for (std::uint64_t r = 1; r <= kRounds; ++r) {
        if (t != 0 || r > 1) {
          std::uint64_t want = t == 0 ? r - 1 : r;
          if (w.wait(flags[prev], want, -1, 20'000'000'000ULL) != WaitStatus::ok) ++errors;
          if (payload[prev] != want * 1000 + prev) ++errors;  // data written before the flag
        }
        payload[t] = r * 1000 + t;
        publish(flags[t], r, w.may_sleep());
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors.load(), 0);
  for (auto& f : flags) EXPECT_EQ(f.value.load(), kRounds);
}

INSTANTIATE_TEST_SUITE_P(Policies, FlagRing,
                         ::testing::Values(WaitPolicy::spin, WaitPolicy::yield, WaitPolicy::futex,
                                           WaitPolicy::automatic),
                         [](const auto& param_info) { return std::string(to_string(param_info.param)); });

TEST(Waiter, AbortAndTimeout) {
  Flag f;
  std::atomic<std::uint64_t> team_abort{0};
  Waiter w(WaitPolicy::futex, false);
  w.watch(AbortWords{&team_abort, nullptr}, nullptr);
  EXPECT_EQ(w.wait(f, 1, -1, 30'000'000), WaitStatus::timeout);
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    team_abort.store(1);
  });
  EXPECT_EQ(w.wait(f, 1), WaitStatus::aborted);
  t.join();
}

TEST(Waiter, SleeperIsWoken) {
  Flag f;
  Waiter w(WaitPolicy::futex, false);
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    publish(f, 1, true);
  });
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(w.wait(f, 1), WaitStatus::ok);
  // Woken by the publish, not by the 20 ms sleep slice running out twice.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  t.join();
}

TEST(WaitPolicy, Parsing) {
  EXPECT_EQ(*parse_wait_policy("spin"), WaitPolicy::spin);
  EXPECT_EQ(*parse_wait_policy("YIELD"), WaitPolicy::yield);
  EXPECT_EQ(*parse_wait_policy("futex"), WaitPolicy::futex);
  EXPECT_EQ(*parse_wait_policy("auto"), WaitPolicy::automatic);
  auto bad = parse_wait_policy("busy");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'busy'"), std::string::npos);
}

}  // namespace
}  // namespace osmp
