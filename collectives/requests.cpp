#include "collectives/requests.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "shm/flag.hpp"

namespace osmp {
namespace {

// Queues with calls pending, per thread: an intrusive list; and how many
// queues are listed in the process (relaxed: only whether it is 0 matters,
// and only for this thread's own queues, which this thread counted), so that
// a blocking call in a process without pending calls reads no thread-local
// storage. A thread that ends takes its queues off its list (they are moved
// on from whichever thread tests or waits next), so that no queue points
// into a list that is gone, or that a new thread's list at the same address
// could be taken for.
struct ListHead {
  CallQueue* head = nullptr;
  ~ListHead();
};
thread_local ListHead t_list;

}  // namespace

std::atomic<int> g_listed_queues{0};

struct QueueList {
  // Into this thread's list (out of another thread's first).
  static void add(CallQueue* q) {
    CallQueue*& head = t_list.head;
    if (q->list_ == &head) return;
    remove(q);
    q->next_ = head;
    if (head) head->prev_ = q;
    head = q;
    q->list_ = &head;
    g_listed_queues.fetch_add(1, std::memory_order_relaxed);
  }
  static void remove(CallQueue* q) {
    if (!q->list_) return;
    if (q->prev_)
      q->prev_->next_ = q->next_;
    else
      *q->list_ = q->next_;
    if (q->next_) q->next_->prev_ = q->prev_;
    q->prev_ = q->next_ = nullptr;
    q->list_ = nullptr;
    g_listed_queues.fetch_sub(1, std::memory_order_relaxed);
  }
  static bool other_than(const CallQueue* q) {
    for (const CallQueue* x = t_list.head; x; x = x->next_)
      if (x != q) return true;
    return false;
  }
  static std::vector<CallQueue*> here() {
    std::vector<CallQueue*> v;
    for (CallQueue* q = t_list.head; q; q = q->next_) v.push_back(q);
    return v;
  }
};

namespace {

ListHead::~ListHead() {
  while (head) QueueList::remove(head);
}

void activate(CallQueue* q) { QueueList::add(q); }
void deactivate(CallQueue* q) { QueueList::remove(q); }

// The engine's mode for one advance, restored however it ends.
class Mode {
 public:
  Mode(Engine& e, bool block) : e_(e), was_(e.blocking()) { e_.set_blocking(block); }
  ~Mode() { e_.set_blocking(was_); }
  Mode(const Mode&) = delete;
  Mode& operator=(const Mode&) = delete;

 private:
  Engine& e_;
  bool was_;
};

// One round over every queue of this thread; true when any call completed.
bool poll_all() {
  bool moved = false;
  for (CallQueue* q : QueueList::here()) {  // polling may take a queue off the list
    if (!q->listed_here()) continue;
    moved = q->poll() || moved;
  }
  return moved;
}

}  // namespace

CallQueue::~CallQueue() {
  if (!queue_.empty()) {
    // Peers may wait in these calls for this rank: stop the team so that
    // they get an error, not a hang.
    queue_.front()->engine->team().abort(AbortCode::user);
  }
  for (auto& c : queue_) {
    c->task = Task{};
    c->status = Status(Errc::aborted, cat(to_string(c->args.kind), ": the team was freed with this call pending"));
    c->done = true;
    c->queue = nullptr;
  }
  queue_.clear();
  deactivate(this);
}

std::shared_ptr<CallState> CallQueue::start(Engine& e, const CollArgs& a) {
  ++calls_;
  auto c = std::make_shared<CallState>();
  c->queue = this;
  c->engine = &e;
  c->args = a;
  queue_.push_back(c);
  activate(this);
  poll();
  return c;
}

bool CallQueue::listed_here() const { return list_ && list_ == &t_list.head; }

bool CallQueue::advance_head(bool block) {
  if (advancing_) return false;  // polled from inside its own wait
  CallState& h = *queue_.front();
  bool done;
  try {
    advancing_ = true;
    Mode mode(*h.engine, block);
    if (!h.task.valid()) h.task = h.engine->call(h.args);
    done = h.task.advance(block);
    advancing_ = false;
  } catch (...) {
    // Out of memory mid-call: the call cannot go on, and its peers may
    // wait for this rank: stop the team, end the call with the error.
    advancing_ = false;
    h.engine->team().abort(AbortCode::user);
    h.task = Task{};
    h.failure = Status(Errc::internal, cat(to_string(h.args.kind), ": an exception stopped the call (out of memory?)"));
    done = true;
  }
  if (done) finish_head();
  return done;
}

void CallQueue::finish_head() {
  std::shared_ptr<CallState> h = std::move(queue_.front());
  queue_.pop_front();
  h->status = h->task.valid() ? h->task.result() : std::move(h->failure);
  h->task = Task{};  // its frames go back to the engine
  h->done = true;
  h->queue = nullptr;
  if (queue_.empty()) deactivate(this);
  if (!h->status.ok() && on_error_) on_error_(h->status);
}

bool CallQueue::poll() {
  bool any = false;
  while (!queue_.empty() && advance_head(false)) any = true;
  return any;
}

void CallQueue::complete(const CallState* c) {
  unsigned idle = 0;
  while (c ? !c->done : !queue_.empty()) {
    if (!others_pending(this)) {
      advance_head(true);
      continue;
    }
    // Calls pending on other teams too: each moves on in turn, so that a
    // peer waiting for one of them in another order is not starved.
    if (poll_all()) {
      idle = 0;
    } else if (++idle % 16 == 0) {
      ::sched_yield();
    } else {
      cpu_relax();
    }
  }
}

bool others_listed(const CallQueue* q) { return QueueList::other_than(q); }

bool test_call(const CallState& c) {
  if (c.done) return true;
  bool moved = poll_all();
  // Started in another thread: its queue is moved on here directly.
  if (!c.done && c.queue && !c.queue->listed_here()) moved = c.queue->poll() || moved;
  if (!moved && !c.done && c.engine && c.engine->team().waiter().tuning().spin_ns == 0) {
    // More processes than CPUs (or OSMP_WAIT=yield): a caller polling test()
    // in a loop must leave the CPU to the peers it waits for.
    ::sched_yield();
  }
  return c.done;
}

void wait_for(const std::shared_ptr<CallState>& c) {
  if (!c->done) c->queue->complete(c.get());
}

}  // namespace osmp
