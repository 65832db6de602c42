#include "collectives/requests.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "shm/flag.hpp"

namespace osmp {
namespace {

// Queues with calls pending, in this thread; and how many there are in the
// process (relaxed: only whether it is 0 matters, and only to this thread's
// own queues, which this thread counted), so that a blocking call on a
// process without pending calls reads no thread-local storage.
thread_local std::vector<CallQueue*> t_active;
std::atomic<int> g_active{0};

void activate(CallQueue* q) {
  if (std::find(t_active.begin(), t_active.end(), q) != t_active.end()) return;
  t_active.push_back(q);
  g_active.fetch_add(1, std::memory_order_relaxed);
}

void deactivate(CallQueue* q) {
  auto it = std::find(t_active.begin(), t_active.end(), q);
  if (it == t_active.end()) return;
  t_active.erase(it);
  g_active.fetch_sub(1, std::memory_order_relaxed);
}

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
  const std::vector<CallQueue*> queues = t_active;  // polling may deactivate
  for (CallQueue* q : queues) {
    if (std::find(t_active.begin(), t_active.end(), q) == t_active.end()) continue;
    const bool was_empty = q->empty();
    moved = q->poll() || moved || was_empty;
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
  auto c = std::make_shared<CallState>();
  c->queue = this;
  c->engine = &e;
  c->args = a;
  queue_.push_back(c);
  activate(this);
  poll();
  return c;
}

bool CallQueue::advance_head(bool block) {
  CallState& h = *queue_.front();
  if (!h.task.valid()) h.task = h.engine->call(h.args);
  bool done;
  {
    Mode mode(*h.engine, block);
    done = h.task.advance(block);
  }
  if (done) finish_head();
  return done;
}

void CallQueue::finish_head() {
  std::shared_ptr<CallState> h = std::move(queue_.front());
  queue_.pop_front();
  h->status = h->task.result();
  h->task = Task{};  // its frames go back to the engine
  h->done = true;
  h->queue = nullptr;
  if (queue_.empty()) deactivate(this);
  if (!h->status.ok() && on_error_) on_error_(h->status);
}

bool CallQueue::poll() {
  while (!queue_.empty()) {
    if (!advance_head(false)) return false;
  }
  return true;
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

bool others_pending(const CallQueue* q) {
  if (g_active.load(std::memory_order_relaxed) == 0) return false;
  return std::any_of(t_active.begin(), t_active.end(), [q](const CallQueue* x) { return x != q; });
}

bool test_call(const CallState& c) {
  if (c.done) return true;
  if (!poll_all() && c.engine && c.engine->team().waiter().tuning().spin_ns == 0) {
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
