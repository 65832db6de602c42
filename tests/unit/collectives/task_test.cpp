// The resumable call (collectives/task.hpp) on its own: nested coroutines
// that suspend where an awaiter waits, resume in order when advanced,
// return their status up the chain, and keep their frames in a FrameCache.
#include <gtest/gtest.h>

#include "collectives/frames.hpp"
#include "collectives/task.hpp"

namespace osmp {
namespace {

// Waits until `*counter` reaches `target`; blocking means it may only be
// asked once (the test makes the counter ready first).
class CounterAwait : public Suspends<CounterAwait> {
 public:
  CounterAwait(const int& counter, int target, int& polls) : counter_(counter), target_(target), polls_(polls) {}
  bool await_ready() { return !advance(false); }
  Wait advance(bool block) {
    ++polls_;
    if (counter_ >= target_ || block) return {};
    static const Flag never{};
    return Wait{&never, 1, -1};
  }
  Status await_resume() {
    return counter_ >= target_ ? Status{} : Status(Errc::timeout, cat("counter ", counter_, " < ", target_));
  }

 private:
  const int& counter_;
  int target_;
  int& polls_;
};

Task inner(const int& counter, int target, int& polls, int& reached) {
  OSMP_CO_RETURN_IF_ERROR(co_await CounterAwait(counter, target, polls));
  ++reached;
  OSMP_CO_RETURN_IF_ERROR(co_await CounterAwait(counter, target + 1, polls));
  ++reached;
  co_return Status{};
}

Task outer(const int& counter, int& polls, int& reached) {
  OSMP_CO_RETURN_IF_ERROR(co_await inner(counter, 1, polls, reached));
  OSMP_CO_RETURN_IF_ERROR(co_await inner(counter, 3, polls, reached));
  co_return Status(Errc::unsupported, "the end");  // a status that travels up
}

TEST(Task, SuspendsWhereItWaitsAndResumesInOrder) {
  int counter = 0, polls = 0, reached = 0;
  Task t = outer(counter, polls, reached);
  EXPECT_FALSE(t.done());
  EXPECT_FALSE(t.advance(false));  // waits for counter >= 1
  EXPECT_EQ(reached, 0);
  counter = 1;
  EXPECT_FALSE(t.advance(false));  // first step passed, waits for 2
  EXPECT_EQ(reached, 1);
  EXPECT_FALSE(t.advance(false));  // nothing changed: still waiting
  EXPECT_EQ(reached, 1);
  counter = 4;
  EXPECT_TRUE(t.advance(false));  // the rest completes in one go
  EXPECT_EQ(reached, 4);
  EXPECT_TRUE(t.done());
  Status st = t.result();
  EXPECT_EQ(st.code(), Errc::unsupported);
  EXPECT_EQ(st.message(), "the end");
}

TEST(Task, AnErrorStopsTheChain) {
  int counter = 1, polls = 0, reached = 0;
  Task t = outer(counter, polls, reached);
  EXPECT_FALSE(t.advance(false));
  // Blocking: the awaiter gives up with the counter short, its error ends every coroutine.
  EXPECT_TRUE(t.advance(true));
  EXPECT_EQ(reached, 1);
  Status st = t.result();
  EXPECT_EQ(st.code(), Errc::timeout);
  EXPECT_NE(st.message().find("counter 1 < 2"), std::string::npos);
}

TEST(Task, DestroyedWhileSuspended) {
  int counter = 0, polls = 0, reached = 0;
  {
    Task t = outer(counter, polls, reached);
    EXPECT_FALSE(t.advance(false));
  }  // frames freed without completing: nothing runs after
  counter = 10;
  EXPECT_EQ(reached, 0);
}

TEST(Task, DoneWithIsCompleteAtOnce) {
  Task t = done_with(Status(Errc::invalid_argument, "x"));
  EXPECT_TRUE(t.advance(false));
  EXPECT_EQ(t.result().code(), Errc::invalid_argument);
}

TEST(FrameCache, KeepsBlocksByExactSize) {
  FrameCache c;
  void* a = ::operator new(128);
  void* b = ::operator new(256);
  EXPECT_EQ(c.take(128), nullptr);
  EXPECT_TRUE(c.keep(a, 128));
  EXPECT_TRUE(c.keep(b, 256));
  EXPECT_EQ(c.take(64), nullptr);
  EXPECT_EQ(c.take(256), b);
  EXPECT_EQ(c.take(256), nullptr);
  EXPECT_EQ(c.take(128), a);
  // Full: the caller frees what it cannot keep.
  int kept = 0;
  for (int i = 0; i < 20; ++i) {
    void* p = ::operator new(32);
    if (c.keep(p, 32)) {
      ++kept;
    } else {
      ::operator delete(p);
    }
  }
  EXPECT_EQ(kept, 8);
  ::operator delete(a);
  ::operator delete(b);
}  // the cache frees the eight it kept

}  // namespace
}  // namespace osmp
