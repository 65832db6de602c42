// The C interface over osmp::Team. No exception crosses it: every entry
// point turns a Status (or anything thrown) into an error code. An
// osmp_team* is a handle checked on every call (api/handles.hpp): NULL, a
// finalized team or a value osmp never returned is OSMP_ERR_ARG, never a crash.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>

#include "api/access.hpp"
#include "api/handles.hpp"
#include "collectives/engine.hpp"
#include "core/log.hpp"
#include "osmp.h"
#include "osmp.hpp"

namespace osmp::capi {
struct TeamEntry {
  osmp::Team team;
  std::string last_error;  // of this team's last failed call on this rank
};
}  // namespace osmp::capi

namespace {

using osmp::capi::BadHandle;
using osmp::capi::TeamEntry;

static_assert(OSMP_ERR_ARG == static_cast<int>(osmp::Errc::invalid_argument));
static_assert(OSMP_ERR_MISMATCH == static_cast<int>(osmp::Errc::mismatch));
static_assert(OSMP_ERR_PEER_DEAD == static_cast<int>(osmp::Errc::peer_dead));
static_assert(OSMP_ERR_INTERNAL == static_cast<int>(osmp::Errc::internal));
static_assert(static_cast<int>(OSMP_FLOAT64) == static_cast<int>(osmp::Datatype::float64));
static_assert(static_cast<int>(OSMP_LOR) == static_cast<int>(osmp::Op::lor));
// osmp_coll and OpKind are both numbered by osmp_ops.h.

// `which` names an operation or OSMP_COLL_ALL.
bool known_coll(osmp_coll which) { return which >= OSMP_COLL_ALL && which <= OSMP_COLL_COUNT; }

// The message of this thread's last failed call, whatever its team handle.
thread_local std::string t_last_error;

osmp::capi::Handle handle_of(const osmp_team* t) { return reinterpret_cast<std::uintptr_t>(t); }
osmp_team* to_c(osmp::capi::Handle h) { return reinterpret_cast<osmp_team*>(static_cast<std::uintptr_t>(h)); }

int fail(int code, std::string msg) {
  t_last_error = std::move(msg);
  return code;
}

// Records why a handle was refused (`fn` names the call).
[[gnu::cold, gnu::noinline]] void refuse_handle(const char* fn, BadHandle why) {
  fail(OSMP_ERR_ARG, osmp::cat(fn, ": ", osmp::capi::describe(why)));
}

// The entry `t` names, or nullptr after recording why (`fn` names the call).
inline TeamEntry* entry(const osmp_team* t, const char* fn) {
  BadHandle why = BadHandle::none;
  TeamEntry* e = osmp::capi::find(handle_of(t), why);
  if (!e) [[unlikely]]
    refuse_handle(fn, why);
  return e;
}

int code(TeamEntry* t, const osmp::Status& st) {
  if (!st.ok()) {
    t->last_error = st.to_string();
    return fail(static_cast<int>(st.code()), t->last_error);
  }
  if (!t->last_error.empty()) t->last_error.clear();
  return OSMP_SUCCESS;
}

template <class F>
int guarded(osmp_team* h, const char* fn, F&& f) {
  TeamEntry* t = entry(h, fn);
  if (!t) return OSMP_ERR_ARG;
  try {
    return code(t, f(t->team));
  } catch (const std::bad_alloc&) {
    return code(t, osmp::Status(osmp::Errc::no_space, "out of memory"));
  } catch (...) {
    return code(t, osmp::Status(osmp::Errc::internal, "unexpected exception"));
  }
}

// osmp_set and osmp_set_vh (`fn` names the call in messages).
int set_one(osmp_team* t, const char* fn, osmp_coll which, const char* name, const char* value) {
  return guarded(t, fn, [&](osmp::Team& team) -> osmp::Status {
    if (!name || !value) return osmp::Status(osmp::Errc::invalid_argument, osmp::cat(fn, ": null name or value"));
    if (!known_coll(which))
      return osmp::Status(osmp::Errc::invalid_argument, osmp::cat(fn, ": unknown operation ", static_cast<int>(which)));
    if (which == OSMP_COLL_ALL) return team.configure({{name, value}});
    return team.configure({}, {{static_cast<osmp::OpKind>(which), {{name, value}}}});
  });
}

// A new team's handle in *out.
int publish(osmp::Team&& team, osmp_team** out) {
  auto* e = new TeamEntry{std::move(team), {}};
  osmp::capi::Handle h = osmp::capi::add(e);
  if (h == 0) {
    delete e;
    return fail(OSMP_ERR_NO_SPACE, "osmp: too many teams in this process (65536 at once)");
  }
  *out = to_c(h);
  return OSMP_SUCCESS;
}

// The C requests: handles as a team's are ([tag][id], nothing dereferenced
// to check one), in a table under a mutex (start and completion only).
class RequestTable {
 public:
  static constexpr std::uint64_t kTag = 0x05a2;  // bits 48-63 (teams use 0x05a1)
  osmp_request add(osmp::Request r) {
    std::lock_guard lock(m_);
    const std::uint64_t id = next_++ & ((std::uint64_t{1} << 48) - 1);
    live_.emplace(id, std::move(r));
    return reinterpret_cast<osmp_request>(static_cast<std::uintptr_t>(kTag << 48 | id));
  }
  // Takes the request out (a wait runs without the lock; a test that finds
  // it pending puts it back). False: `h` names no pending request.
  bool take(osmp_request h, osmp::Request& out) {
    const auto v = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(h));
    if (v >> 48 != kTag) return false;
    std::lock_guard lock(m_);
    auto it = live_.find(v & ((std::uint64_t{1} << 48) - 1));
    if (it == live_.end()) return false;
    out = std::move(it->second);
    live_.erase(it);
    return true;
  }
  void put_back(osmp_request h, osmp::Request r) {
    const auto v = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(h));
    std::lock_guard lock(m_);
    live_.emplace(v & ((std::uint64_t{1} << 48) - 1), std::move(r));
  }

 private:
  std::mutex m_;
  std::unordered_map<std::uint64_t, osmp::Request> live_;
  std::uint64_t next_ = 1;
};

RequestTable& requests() {
  static RequestTable* t = new RequestTable;  // never destroyed: requests may be freed at exit
  return *t;
}

// Starts a call on the team `h` names; *req gets its request.
template <class F>
int start(osmp_team* h, const char* fn, osmp_request* req, F&& f) {
  if (!req) return fail(OSMP_ERR_ARG, osmp::cat(fn, ": the request pointer is NULL"));
  *req = OSMP_REQUEST_NULL;
  TeamEntry* t = entry(h, fn);
  if (!t) return OSMP_ERR_ARG;
  try {
    *req = requests().add(f(t->team));
    return OSMP_SUCCESS;
  } catch (const std::bad_alloc&) {
    return code(t, osmp::Status(osmp::Errc::no_space, "out of memory"));
  } catch (...) {
    return code(t, osmp::Status(osmp::Errc::internal, "unexpected exception"));
  }
}

// The status of a completed call as a code (its message is the thread's).
int completed(const char* fn, const osmp::Status& st) {
  if (st.ok()) return OSMP_SUCCESS;
  return fail(static_cast<int>(st.code()), osmp::cat(fn, ": ", st.to_string()));
}

// The request *req names, taken out of the table (false: recorded why).
bool take(osmp_request* req, const char* fn, osmp::Request& out) {
  if (!req) {
    fail(OSMP_ERR_ARG, osmp::cat(fn, ": the request pointer is NULL"));
    return false;
  }
  if (!requests().take(*req, out)) {
    fail(OSMP_ERR_ARG, osmp::cat(fn, ": not a pending request (completed or freed already, or not from osmp)"));
    return false;
  }
  return true;
}

osmp::Datatype dt(osmp_datatype t) { return static_cast<osmp::Datatype>(t); }
osmp::Op op_of(osmp_op o) { return static_cast<osmp::Op>(o); }

// A bootstrap over the caller's allgather and broadcast (osmp_init_with).
class CallbackBootstrap final : public osmp::Bootstrap {
 public:
  CallbackBootstrap(int rank, int size, osmp_allgather_fn ag, osmp_bcast_fn bc, void* ctx)
      : rank_(rank), size_(size), ag_(ag), bc_(bc), ctx_(ctx) {
    // Unique on this machine: rank 0's pid and its count of teams so far.
    static std::atomic<std::uint32_t> teams{0};
    if (rank_ == 0) job_ = (static_cast<std::uint64_t>(::getpid()) << 24) | (0x400000u | (teams++ & 0x3fffffu));
    if (bc_(&job_, sizeof(job_), 0, ctx_) != 0) failed_ = true;
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::uint64_t job_id() const override { return job_; }
  osmp::Status allgather(const void* in, std::size_t len, void* out) override {
    if (failed_ || ag_(in, len, out, ctx_) != 0)
      return osmp::Status(osmp::Errc::system, "the caller's allgather failed");
    return {};
  }
  osmp::Status broadcast(void* buf, std::size_t len, int root) override {
    if (failed_ || bc_(buf, len, root, ctx_) != 0)
      return osmp::Status(osmp::Errc::system, "the caller's broadcast failed");
    return {};
  }

 private:
  int rank_, size_;
  osmp_allgather_fn ag_;
  osmp_bcast_fn bc_;
  void* ctx_;
  std::uint64_t job_ = 0;
  bool failed_ = false;
};

}  // namespace

extern "C" {

int osmp_init_with(int rank, int size, osmp_allgather_fn allgather, osmp_bcast_fn bcast, void* ctx, osmp_team** team,
                   char* error, size_t error_len) {
  auto failed = [&](int code, const std::string& msg) {
    if (error && error_len > 0) std::snprintf(error, error_len, "%s", msg.c_str());
    return fail(code, msg);
  };
  if (!team || !allgather || !bcast || size < 1 || rank < 0 || rank >= size)
    return failed(OSMP_ERR_ARG, "osmp_init_with: bad rank, size, callback or team pointer");
  *team = nullptr;
  try {
    CallbackBootstrap boot(rank, size, allgather, bcast, ctx);
    auto options = osmp::Options::from_env();
    if (!options.ok()) return failed(static_cast<int>(options.status().code()), options.status().to_string());
    auto t = osmp::Team::create(boot, *options);
    if (!t.ok()) return failed(static_cast<int>(t.status().code()), t.status().to_string());
    int rc = publish(std::move(t).value(), team);
    return rc == OSMP_SUCCESS ? rc : failed(rc, t_last_error);
  } catch (const std::exception& e) {
    return failed(OSMP_ERR_INTERNAL, e.what());
  }
}

int osmp_init(osmp_team** team) {
  if (!team) return fail(OSMP_ERR_ARG, "osmp_init: the team pointer is NULL");
  *team = nullptr;
  try {
    auto t = osmp::Team::create();
    if (!t.ok()) {
      osmp::log(osmp::LogLevel::error, t.status().to_string());
      return fail(static_cast<int>(t.status().code()), t.status().to_string());
    }
    return publish(std::move(t).value(), team);
  } catch (...) {
    return fail(OSMP_ERR_INTERNAL, "osmp_init: unexpected exception");
  }
}

int osmp_finalize(osmp_team* team) {
  BadHandle why = BadHandle::none;
  TeamEntry* e = osmp::capi::remove(handle_of(team), why);
  if (!e) return fail(OSMP_ERR_ARG, osmp::cat("osmp_finalize: ", osmp::capi::describe(why)));
  osmp::Status st = e->team.finish();
  delete e;
  if (!st.ok()) return fail(static_cast<int>(st.code()), osmp::cat("osmp_finalize: ", st.message()));
  return OSMP_SUCCESS;
}

int osmp_team_split(osmp_team* t, int color, int key, osmp_team** out) {
  if (out) *out = nullptr;
  osmp::Result<std::optional<osmp::Team>> made = osmp::Status(osmp::Errc::not_found, "not made");
  int rc = guarded(t, "osmp_team_split", [&](osmp::Team& team) -> osmp::Status {
    if (!out) return osmp::Status(osmp::Errc::invalid_argument, "osmp_team_split: out is NULL");
    made = team.split(color, key);
    return made.status();
  });
  if (rc != OSMP_SUCCESS || !made->has_value()) return rc;
  return publish(std::move(**made), out);
}

int osmp_team_dup(osmp_team* t, osmp_team** out) {
  if (out) *out = nullptr;
  osmp::Result<osmp::Team> made = osmp::Status(osmp::Errc::not_found, "not made");
  int rc = guarded(t, "osmp_team_dup", [&](osmp::Team& team) -> osmp::Status {
    if (!out) return osmp::Status(osmp::Errc::invalid_argument, "osmp_team_dup: out is NULL");
    made = team.dup();
    return made.status();
  });
  if (rc != OSMP_SUCCESS) return rc;
  return publish(std::move(made).value(), out);
}

int osmp_rank(const osmp_team* t) {
  TeamEntry* e = entry(t, "osmp_rank");
  return e ? e->team.rank() : -1;
}

int osmp_size(const osmp_team* t) {
  TeamEntry* e = entry(t, "osmp_size");
  return e ? e->team.size() : -1;
}

int osmp_alloc(osmp_team* t, size_t bytes, void** ptr) {
  return guarded(t, "osmp_alloc", [&](osmp::Team& team) -> osmp::Status {
    if (!ptr) return osmp::Status(osmp::Errc::invalid_argument, "osmp_alloc: ptr is NULL");
    *ptr = nullptr;
    OSMP_ASSIGN_OR_RETURN(*ptr, team.allocate_bytes(bytes));
    return {};
  });
}

int osmp_free(osmp_team* t, void* ptr) {
  return guarded(t, "osmp_free", [&](osmp::Team& team) { return team.free_bytes(ptr); });
}

// The collectives, osmp_<name> and osmp_i<name>, one pair per row of
// osmp_ops.h, with osmp.h's parameters of its form (OSMP_PARAMS_OF_: the
// declarations are generated from the same row); OSMP_C_ARGS_<form>: the
// call's arguments as the engine takes them (collectives/engine.hpp), run
// by the operation's own call (Ops<K>::entry.call: Engine::run_call, which
// queues, counts and stops as Team::<name>'s run does) on the engine the
// team runs it on.
// OSMP_IN_PLACE is osmp::kInPlace (both the address 1): passed as it is.
#define OSMP_C_ARGS_none(kind, op, root) \
  { kind }
#define OSMP_C_ARGS_buffer(kind, op, root) \
  { kind, nullptr, buf, count, dt(type), op, root }
#define OSMP_C_ARGS_uniform(kind, op, root) \
  { kind, sendbuf, recvbuf, count, dt(type), op, root }
#define OSMP_C_ARGS_gathered(kind, op, root) \
  { kind, sendbuf, recvbuf, sendcount, dt(type), op, root, recvcounts, displs }
#define OSMP_C_ARGS_scattered(kind, op, root) \
  { kind, sendbuf, recvbuf, recvcount, dt(type), op, root, sendcounts, displs }
#define OSMP_C_ARGS_shares(kind, op, root) \
  { kind, sendbuf, recvbuf, 0, dt(type), op, root, recvcounts }
#define OSMP_C_ARGS_pairs(kind, op, root) \
  { kind, sendbuf, recvbuf, 0, dt(type), op, root, sendcounts, sdispls, recvcounts, rdispls }
#define OSMP_C_ARGS_(name, form, rooted, reduces)                                                         \
  osmp::CollArgs OSMP_C_ARGS_##form(osmp::OpKind::name, OSMP_IF_ELSE_##reduces(op_of(op), osmp::Op::sum), \
                                    OSMP_IF_ELSE_##rooted(root, -1))
#define OSMP_C_ENTRIES_(name, Name, NAME, key, rooted, reduces, form)                                      \
  int osmp_##name(osmp_team* t OSMP_PARAMS_OF_(form, rooted, reduces)) {                                   \
    return guarded(t, "osmp_" #name, [&](osmp::Team& team) {                                               \
      return osmp::Ops<osmp::OpKind::name>::entry.call(osmp::TeamAccess::engine(team, osmp::OpKind::name), \
                                                       OSMP_C_ARGS_(name, form, rooted, reduces));         \
    });                                                                                                    \
  }                                                                                                        \
  int osmp_i##name(osmp_team* t OSMP_PARAMS_OF_(form, rooted, reduces), osmp_request* req) {               \
    return start(t, "osmp_i" #name, req, [&](osmp::Team& team) {                                           \
      return osmp::TeamAccess::start(team, OSMP_C_ARGS_(name, form, rooted, reduces));                     \
    });                                                                                                    \
  }
OSMP_COLLECTIVES(OSMP_C_ENTRIES_)
#undef OSMP_C_ENTRIES_

int osmp_set(osmp_team* t, osmp_coll which, const char* name, const char* value) {
  return set_one(t, "osmp_set", which, name, value);
}

int osmp_set_vh(osmp_team* t, osmp_coll which, const char* spec) {
  return set_one(t, "osmp_set_vh", which, "OSMP_VH", spec);
}

int osmp_get_vh(const osmp_team* t, osmp_coll which, char* buf, size_t len) {
  TeamEntry* e = entry(t, "osmp_get_vh");
  if (!e) return -1;
  if (!known_coll(which)) {
    return fail(-1, osmp::cat("osmp_get_vh: unknown operation ", static_cast<int>(which)));
  }
  std::string vh = e->team.vh(which == OSMP_COLL_ALL ? osmp::OpKind::barrier : static_cast<osmp::OpKind>(which));
  if (buf && len) std::snprintf(buf, len, "%s", vh.c_str());
  return static_cast<int>(vh.size());
}

int osmp_test(osmp_request* req, int* flag) {
  if (!flag) return fail(OSMP_ERR_ARG, "osmp_test: the flag pointer is NULL");
  *flag = 0;
  if (req && *req == OSMP_REQUEST_NULL) {
    *flag = 1;
    return OSMP_SUCCESS;
  }
  osmp::Request r;
  if (!take(req, "osmp_test", r)) return OSMP_ERR_ARG;
  try {
    if (!r.test()) {
      requests().put_back(*req, std::move(r));
      return OSMP_SUCCESS;
    }
  } catch (...) {
    *req = OSMP_REQUEST_NULL;
    return fail(OSMP_ERR_INTERNAL, "osmp_test: unexpected exception");
  }
  *flag = 1;
  *req = OSMP_REQUEST_NULL;
  return completed("osmp_test", r.status());
}

int osmp_wait(osmp_request* req) {
  if (req && *req == OSMP_REQUEST_NULL) return OSMP_SUCCESS;
  osmp::Request r;
  if (!take(req, "osmp_wait", r)) return OSMP_ERR_ARG;
  *req = OSMP_REQUEST_NULL;
  try {
    return completed("osmp_wait", r.wait());
  } catch (...) {
    return fail(OSMP_ERR_INTERNAL, "osmp_wait: unexpected exception");
  }
}

int osmp_waitall(int count, osmp_request* reqs) {
  if (count < 0 || (count > 0 && !reqs)) {
    return fail(OSMP_ERR_ARG, osmp::cat("osmp_waitall: ", count, " requests at ", static_cast<const void*>(reqs)));
  }
  int first = OSMP_SUCCESS;
  std::string why;
  for (int i = 0; i < count; ++i) {
    int rc = osmp_wait(&reqs[i]);
    if (rc != OSMP_SUCCESS && first == OSMP_SUCCESS) {
      first = rc;
      why = t_last_error;
    }
  }
  return first == OSMP_SUCCESS ? first : fail(first, why);
}

int osmp_request_free(osmp_request* req) {
  if (req && *req == OSMP_REQUEST_NULL) return OSMP_SUCCESS;
  osmp::Request r;
  if (!take(req, "osmp_request_free", r)) return OSMP_ERR_ARG;
  *req = OSMP_REQUEST_NULL;
  return OSMP_SUCCESS;  // r detaches: the call still runs (osmp::Request)
}

const char* osmp_strerror(int c) {
  switch (c) {
    case OSMP_SUCCESS: return "OSMP_SUCCESS: no error";
    case OSMP_ERR_ARG: return "OSMP_ERR_ARG: invalid argument";
    case OSMP_ERR_NOT_FOUND: return "OSMP_ERR_NOT_FOUND: not found (started without osmprun?)";
    case OSMP_ERR_TOPOLOGY: return "OSMP_ERR_TOPOLOGY: the topology could not be loaded";
    case OSMP_ERR_SYSTEM: return "OSMP_ERR_SYSTEM: a system call failed";
    case OSMP_ERR_MISMATCH: return "OSMP_ERR_MISMATCH: ranks passed different counts, datatypes, ops or roots";
    case OSMP_ERR_PEER_DEAD: return "OSMP_ERR_PEER_DEAD: a rank of the team died";
    case OSMP_ERR_ABORTED: return "OSMP_ERR_ABORTED: the team was stopped";
    case OSMP_ERR_NO_SPACE: return "OSMP_ERR_NO_SPACE: not enough shared memory";
    case OSMP_ERR_UNSUPPORTED: return "OSMP_ERR_UNSUPPORTED: not supported";
    case OSMP_ERR_TIMEOUT: return "OSMP_ERR_TIMEOUT: timed out";
    case OSMP_ERR_INTERNAL: return "OSMP_ERR_INTERNAL: internal error";
    default: return "unknown osmp error code";
  }
}

const char* osmp_last_error(const osmp_team* t) {
  // Checked without recording anything: the thread's message is what a
  // caller holding a bad handle wants to read.
  BadHandle why = BadHandle::none;
  TeamEntry* e = osmp::capi::find(handle_of(t), why);
  return e ? e->last_error.c_str() : t_last_error.c_str();
}

}  // extern "C"
