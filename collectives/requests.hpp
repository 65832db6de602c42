// Non-blocking calls: a team's queue of started calls, and how this thread
// moves them on (docs/nonblocking.md).
//
// A team runs its calls one at a time, in the order they were started (MPI's
// rule: every rank starts a team's collectives in the same order), so the
// calls of every rank line up as blocking calls do: the call at the head of
// the queue is the one running (a resumable Task, collectives/task.hpp); the
// others have not touched shared memory yet. Completing a later call first
// moves the earlier ones on, so requests complete in whatever order the
// user waits for them. Progress happens in test and wait, in every later
// call on the team (a blocking call first completes the calls started
// before it), and, while this thread waits for one team, on every other
// team with calls pending in this thread (so that waits in different orders
// on two teams cannot deadlock).
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>

#include "collectives/engine.hpp"
#include "collectives/task.hpp"

namespace osmp {

class CallQueue;

// One non-blocking call.
struct CallState {
  CallQueue* queue = nullptr;  // null once complete
  Engine* engine = nullptr;    // the view it runs on
  CollArgs args;
  Task task;       // built when it reaches the head of the queue
  Status failure;  // why it ended without its task (an exception)
  Status status;
  bool done = false;
};

class CallQueue {
 public:
  // `on_error`: told of every call that completes with an error (the team
  // stops its other views on a dead peer or an abort, as for blocking calls).
  explicit CallQueue(std::function<void(const Status&)> on_error) : on_error_(std::move(on_error)) {}
  CallQueue(const CallQueue&) = delete;
  CallQueue& operator=(const CallQueue&) = delete;
  // Calls still pending end with an error (the team is going away): their
  // requests stay valid and report it.
  ~CallQueue();

  // Queues a call on `e` and moves the queue on without blocking.
  std::shared_ptr<CallState> start(Engine& e, const CollArgs& a);
  // Moves the calls on, in order, without blocking. True when one or more
  // completed.
  bool poll();
  // Completes every call up to and including `c` (null: all), blocking in
  // place while this is the only queue of this thread with calls pending,
  // else polling every such queue in turn.
  void complete(const CallState* c = nullptr);
  bool empty() const { return queue_.empty(); }
  // Whether a blocking call goes through this queue (Engine::run_aside):
  // after the calls started before it, which its wait moves on first, or
  // beside calls pending on other teams of this thread, which it must not
  // starve. Inline, after others_pending: every blocking call asks.
  bool must_queue() const;
  // Every call of the team, blocking or started (start() counts its own):
  // Team::switched_after.
  void count_call() { ++calls_; }
  std::uint64_t calls() const { return calls_; }
  // A blocking call's error, told as a started call's is (on_error).
  void tell_error(const Status& st) const {
    if (on_error_) on_error_(st);
  }
  // Whether this queue is in the calling thread's list of queues with calls
  // pending (a team's calls may be started in one thread and waited for in
  // another, one at a time).
  bool listed_here() const;

 private:
  friend struct QueueList;
  // The head call, moved on once: true when it completed.
  bool advance_head(bool block);
  void finish_head();
  std::deque<std::shared_ptr<CallState>> queue_;
  std::function<void(const Status&)> on_error_;
  // The list of queues with calls pending this queue is in (a thread's), and
  // its neighbours there.
  CallQueue** list_ = nullptr;
  CallQueue* prev_ = nullptr;
  CallQueue* next_ = nullptr;
  bool advancing_ = false;  // in advance_head (a wait inside may poll again)
  std::uint64_t calls_ = 0;
};

// How many queues are listed in the process, and whether this thread lists
// any but `q` (requests.cpp): others_pending's parts.
extern std::atomic<int> g_listed_queues;
bool others_listed(const CallQueue* q);
// Whether this thread has calls pending on any team but `q`'s (null: any).
// Inline: every blocking call asks, and in a process with no calls pending
// the answer is one load.
inline bool others_pending(const CallQueue* q) {
  return g_listed_queues.load(std::memory_order_relaxed) != 0 && others_listed(q);
}
inline bool CallQueue::must_queue() const { return !queue_.empty() || others_pending(this); }
// Waits for `c` (on whatever queue it is in), moving every queue of this
// thread on.
void wait_for(const std::shared_ptr<CallState>& c);
// Moves every queue of this thread on without blocking; whether `c` is done.
bool test_call(const CallState& c);

}  // namespace osmp
