#include "osmp.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <stdexcept>
#include <string_view>

#include "api/access.hpp"
#include "api/views.hpp"
#include "collectives/engine.hpp"
#include "core/env.hpp"
#include "core/killpoint.hpp"
#include "core/log.hpp"
#include "core/strings.hpp"
#include "team/shm_bootstrap.hpp"
#include "team/split_bootstrap.hpp"
#include "team/team.hpp"
#include "tuning/tuning_file.hpp"

namespace osmp {
namespace {

// An empty value is the setting's default (docs/settings.md), except
// OSMP_VH's, which says "no virtual levels" (the default too, but a given one
// that a tuning file does not override).
bool unset(const std::string& name, std::string_view value) { return name != "OSMP_VH" && value.empty(); }

// The settings one operation may have of its own: OSMP_VH and those
// CollectiveConfig marks per-operation (collectives/config.cpp).
std::vector<std::string> per_op_names() {
  std::vector<std::string> out{"OSMP_VH"};
  for (std::string_view name : CollectiveConfig::names())
    if (CollectiveConfig::per_op(name)) out.emplace_back(name);
  return out;
}

// OSMP_VH_REDUCE=..., OSMP_BASE_CASE_BCAST=...: settings for one operation.
// The environment is read in one pass, at every team's creation (a program
// may change it between teams): a getenv per operation and setting scanned
// the whole environment some 300 times, most of what a communicator's
// creation cost once its topology was held (comm_bench).
Status per_op_from_env(Options& o) {
  struct Var {
    OpKind op;
    std::string setting, name;  // OSMP_VH, OSMP_VH_REDUCE
  };
  static const std::vector<Var> kVars = [] {
    std::vector<Var> v;
    const std::vector<std::string> names = per_op_names();
    for (OpKind k : kOpKinds)
      for (const std::string& name : names) v.push_back({k, name, cat(name, "_", upper_name(k))});
    return v;
  }();
  std::map<std::string_view, std::string_view> given;  // the environment's OSMP_* variables
  for (char** e = environ; e && *e; ++e) {
    const std::string_view kv(*e);
    const std::size_t eq = kv.find('=');
    if (kv.starts_with("OSMP_") && eq != std::string_view::npos) given.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  if (given.empty()) return {};
  for (const Var& var : kVars) {
    auto it = given.find(var.name);
    if (it == given.end() || unset(var.setting, it->second)) continue;
    std::string value(it->second);
    Profile probe;
    Status st = probe.set(var.setting, value, true);
    if (!st.ok()) return Status(st.code(), cat("environment variable ", var.name, ": ", st.message()));
    o.per_op[var.op][var.setting] = std::move(value);
  }
  return {};
}

// The settings of a tuning file this team should apply, as decided on rank 0
// (its environment wins over the file), in a text every rank can parse:
// "op\tname\tvalue\n" lines, op "*" for every operation.
std::string tuning_from_file(const Options& o, const TeamCore& core) {
  auto given = [&](const std::string& name) { return o.settings.count(name) != 0; };
  auto look = load_for(o.tuning_file, fingerprint(core.machine(), core.tree().places()));
  if (!look.ok()) {
    log(LogLevel::warn, look.status().message(), "; running without it");
    return "";
  }
  if (look->outcome == TuningLookup::Outcome::mismatch) log(LogLevel::warn, look->note);
  if (look->outcome != TuningLookup::Outcome::loaded) return "";
  const TuningFile& f = *look->file;
  std::string text;
  for (const auto& [name, value] : f.settings)
    if (!given(name)) text += cat("*\t", name, "\t", value, "\n");
  for (const auto& [op, settings] : f.ops) {
    for (const auto& [name, value] : settings) {
      bool mine = false;
      for (const auto& [k, s] : o.per_op) mine = mine || (to_string(k) == op && s.count(name));
      if (!given(name) && !mine) text += cat(op, "\t", name, "\t", value, "\n");
    }
  }
  log(LogLevel::info, "tuning file ", o.tuning_file, " (", f.created, ", ", f.machine, ")");
  return text;
}

Status parse_tuning_text(const std::string& text, Settings& all, std::map<OpKind, Settings>& per_op) {
  for (std::string_view line : split(text, '\n')) {
    if (line.empty()) continue;
    auto f = split(line, '\t');
    if (f.size() != 3) return Status(Errc::internal, cat("tuning settings line '", line, "'"));
    if (f[0] == "*") {
      all[std::string(f[1])] = std::string(f[2]);
      continue;
    }
    auto k = parse_op_kind(f[0]);
    if (!k.ok()) return k.status();
    per_op[*k][std::string(f[1])] = std::string(f[2]);
  }
  return {};
}

// What Team::create makes of Options::settings.
struct Resolved {
  TeamOptions team;
  CollectiveConfig collectives;
};

Result<Resolved> resolve(const Options& o) {
  Resolved r;
  for (const auto& [name, value] : o.settings) {
    if (TeamOptions::known(name)) {
      OSMP_RETURN_IF_ERROR(r.team.set(name, value));
    } else if (CollectiveConfig::known(name)) {
      if (!unset(name, value)) OSMP_RETURN_IF_ERROR(r.collectives.set(name, value));
    } else {
      return Status(Errc::invalid_argument, cat("Options: unknown setting '", name, "' (docs/settings.md lists them)"));
    }
  }
  // Per-operation settings are applied after the first view is up (or never,
  // in a team of one): checked here, so that a bad one fails every team.
  for (const auto& [k, s] : o.per_op) {
    for (const auto& [name, value] : s) {
      Profile probe;
      Status st = probe.set(name, value, true);
      if (!st.ok()) return st.prefix(cat("Options: ", to_string(k)));
    }
  }
  return r;
}

}  // namespace

Result<Options> Options::from_env() {
  // Parsed once here, so that a bad value names its environment variable.
  OSMP_RETURN_IF_ERROR(TeamOptions::from_env().status());
  OSMP_RETURN_IF_ERROR(CollectiveConfig::from_env().status());
  Options o;
  auto read = [&](std::string_view view) {
    const std::string name(view);
    if (auto v = env_get(name.c_str()); v && !unset(name, *v)) o.settings[name] = *v;
  };
  for (std::string_view name : TeamOptions::names()) read(name);
  for (std::string_view name : CollectiveConfig::names()) read(name);
  OSMP_RETURN_IF_ERROR(per_op_from_env(o));
  o.tuning_file = default_tuning_path();
  return o;
}

Team::Team() = default;
Team::Team(Team&&) noexcept = default;
Team& Team::operator=(Team&&) noexcept = default;
Team::~Team() {
  if (views_) kill_point(KillPoint::finalize, rank());
}

Status Team::finish() {
  if (!views_) return moved_from();
  return views_->finish();
}

Result<Team> Team::create() {
  OSMP_ASSIGN_OR_RETURN(Options o, Options::from_env());
  return create(o);
}

Result<Team> Team::create(const Options& options) {
  OSMP_ASSIGN_OR_RETURN(ShmBootstrap * boot, ShmBootstrap::instance());
  return create(*boot, options);
}

Result<Team> Team::create(Bootstrap& bootstrap, const Options& options) {
  OSMP_ASSIGN_OR_RETURN(Resolved r, resolve(options));
  Profile base{r.team.vh, r.collectives};
  Team t;
  OSMP_ASSIGN_OR_RETURN(t.views_, Views::create(bootstrap, r.team, base));
  if (t.size() > 1) OSMP_RETURN_IF_ERROR(t.apply_initial(options));
  return t;
}

// The per-operation settings and a tuning file made for this machine and
// placement: one collective configure after the first view is up.
Status Team::apply_initial(const Options& options) {
  Settings all;
  std::map<OpKind, Settings> per_op;
  if (!options.tuning_file.empty()) {
    std::string text = rank() == 0 ? tuning_from_file(options, views_->base_core()) : "";
    EngineBootstrap boot(views_->base_engine());
    OSMP_RETURN_IF_ERROR(boot.broadcast_string(text, 0));
    OSMP_RETURN_IF_ERROR(parse_tuning_text(text, all, per_op));
  }
  for (const auto& [k, s] : options.per_op)
    for (const auto& [name, value] : s) per_op[k][name] = value;
  if (all.empty() && per_op.empty()) return {};
  Status st = views_->configure(all, per_op);
  const bool from_file = !all.empty() || per_op != options.per_op;
  if (st.ok() || !from_file) return st.prefix("applying the per-operation settings");
  // The file's settings were refused (every rank knows): say so, run without them.
  if (rank() == 0) log(LogLevel::warn, "the tuning file's settings were refused (", st.message(), "); ignored");
  if (options.per_op.empty()) return {};
  return Status(views_->configure({}, options.per_op)).prefix("applying the per-operation settings");
}

// A moved-from Team has no views: every call says so instead of crashing.
Status Team::moved_from() {
  return Status(Errc::invalid_argument, "osmp::Team: this team was moved from; use the one it was moved to");
}

Result<std::optional<Team>> Team::split(int color, int key) {
  if (!views_) return moved_from();
  views_->queue().complete();  // the calls started before come first
  EngineBootstrap parent(views_->base_engine());
  struct Pick {
    std::int32_t color, key;
  };
  const Pick mine{color < 0 ? -1 : color, key};
  std::vector<Pick> all(static_cast<std::size_t>(size()));
  OSMP_RETURN_IF_ERROR(Status(parent.allgather(&mine, sizeof mine, all.data())).prefix("split"));
  std::vector<int> members;  // my group's ranks here, by key, then rank
  if (mine.color >= 0)
    for (int r = 0; r < size(); ++r)
      if (all[static_cast<std::size_t>(r)].color == mine.color) members.push_back(r);
  std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
    return all[static_cast<std::size_t>(a)].key < all[static_cast<std::size_t>(b)].key;
  });
  // Every group's team at once (team/split_bootstrap.hpp), then every rank
  // learns whether all were made.
  SplitBootstrap groups(parent, members);
  Result<std::unique_ptr<Views>> made = Status(Errc::not_found, "no group");
  if (!members.empty()) made = Views::like(*views_, groups);
  OSMP_RETURN_IF_ERROR(Status(groups.finish()).prefix("split"));
  Status local = members.empty() ? Status{} : made.status();
  if (local.ok() && !members.empty()) local = (*made)->like_ops(*views_);
  OSMP_RETURN_IF_ERROR(Status(parent.agree(local)).prefix(cat("split (rank ", rank(), ")")));
  if (members.empty()) return std::optional<Team>();
  Team t;
  t.views_ = std::move(made).value();
  return std::optional<Team>(std::move(t));
}

Result<Team> Team::dup() {
  OSMP_ASSIGN_OR_RETURN(std::optional<Team> t, split(0, 0));
  return std::move(*t);
}

int Team::rank() const { return views_ ? views_->base_core().rank() : -1; }
int Team::size() const { return views_ ? views_->base_core().size() : -1; }
TeamCore& TeamAccess::core(Team& t) {
  if (!t.views_) moved_from();
  return t.views_->base_core();
}

void TeamAccess::moved_from() { throw std::logic_error(Team::moved_from().message()); }
const TeamCore& TeamAccess::core(const Team& t) { return core(const_cast<Team&>(t)); }

void TeamAccess::announce_finish(Team& t) {
  if (t.views_) t.views_->announce_finish();
}

Status TeamAccess::leave(Team& t) { return t.views_ ? t.views_->leave() : t.moved_from(); }

Status TeamAccess::pause(Team& t) { return t.views_ ? t.views_->pause() : t.moved_from(); }

Status TeamAccess::finish_alone(Team& t) { return t.views_ ? t.views_->finish(/*together=*/false) : t.moved_from(); }

Status Team::configure(const Settings& all, const std::map<OpKind, Settings>& per_op) {
  if (!views_) return moved_from();
  if (size() == 1) {  // a team of one has no groups: check the settings, keep nothing
    Profile p;
    for (const auto& [n, v] : all) OSMP_RETURN_IF_ERROR(p.set(n, v, false));
    for (const auto& [k, s] : per_op)
      for (const auto& [n, v] : s) OSMP_RETURN_IF_ERROR(p.set(n, v, true));
    return {};
  }
  Status st = views_->configure(all, per_op);
  views_->propagate_stop(st);
  return st;
}

Status Team::set_vh(std::string_view spec) { return configure({{"OSMP_VH", std::string(spec)}}); }

Status Team::set_vh(OpKind op, std::string_view spec) {
  return configure({}, {{op, {{"OSMP_VH", std::string(spec)}}}});
}

std::string Team::vh(OpKind op) const { return views_ ? views_->profile(op).vh : ""; }
std::string Team::settings_text(OpKind op) const { return views_ ? views_->profile(op).key() : ""; }
std::uint64_t Team::generation() const { return views_ ? views_->generation() : 0; }
std::uint64_t Team::switched_after() const { return views_ ? views_->switched_after() : 0; }
int Team::views() const { return views_ ? views_->view_count() : 0; }

Status free_heap_memory(Heap& h, void* p) { return h.free(p); }

std::uint64_t Team::single_copies() const { return views_ ? views_->single_copies() : 0; }

std::shared_ptr<Heap> Team::heap_owner() const { return views_ ? views_->heap() : nullptr; }

Result<void*> Team::allocate_elements(std::size_t n, std::size_t size) {
  if (size && n > (std::size_t{1} << 62) / size) {
    return Status(Errc::no_space, cat("allocate: ", n, " elements of ", size, " bytes overflow a size"));
  }
  return allocate_bytes(n * size);
}

Result<void*> Team::allocate_bytes(std::size_t bytes) {
  if (!views_) return moved_from();
  std::shared_ptr<Heap> h = views_->heap();
  if (!h) {
    return Status(Errc::no_space, cat("allocate: rank ", rank(),
                                      " has no shared heap (OSMP_HEAP_SIZE=0, less "
                                      "than 4 MiB free per rank in the shared-memory directory, or a heap that "
                                      "could not be mapped: see the warning at team creation)"));
  }
  auto p = h->allocate(bytes);
  if (!p.ok()) return Status(p.status()).prefix(cat("allocate on rank ", rank()));
  return *p;
}

Status Team::free_bytes(void* p) {
  if (!views_) return moved_from();
  if (!p) return {};
  std::shared_ptr<Heap> h = views_->heap();
  if (!h || !h->contains(p)) {
    return Status(Errc::invalid_argument,
                  cat("free on rank ", rank(), ": ", p, " is not in this process's shared heap"));
  }
  CallQueue& q = views_->queue();
  q.poll();
  if (!q.empty()) {
    return Status(Errc::invalid_argument, cat("free on rank ", rank(),
                                              ": calls started on this team are still "
                                              "pending (complete them before freeing their buffers)"));
  }
  // A team stopped in the middle of a call may leave a live peer still
  // copying into its buffers: their pages are never handed out again.
  if (!views_->base_core().usable().ok()) return Status(h->retire(p)).prefix(cat("free on rank ", rank()));
  return Status(h->free(p)).prefix(cat("free on rank ", rank()));
}

Status Team::refuse(OpKind kind, std::size_t count, Datatype type, Op op, int root) {
  // The call's outcome on this rank is its own reason (the others get the
  // argument error the abstention carries), unless the team itself failed.
  Status st = abstain(kind, static_cast<std::int64_t>(count), type, op, root, Errc::invalid_argument);
  if (!st.ok() && st.code() != Errc::invalid_argument && st.code() != Errc::mismatch) return st;
  return Status(Errc::invalid_argument,
                cat(to_string(kind), ": rank ", rank(), "'s spans' sizes do not fit each other"));
}

Request Team::irefuse(OpKind kind, std::size_t count, Datatype type, Op op, int root) {
  return iabstain(kind, static_cast<std::int64_t>(count), type, op, root, Errc::invalid_argument);
}

// After the calls started before it, counted, its error stopping the
// team's other views where it must: Engine::run_call.
Status Team::run(const CollArgs& a) { return views_ ? views_->engine(a.kind).run(a) : moved_from(); }

Request Team::start(const CollArgs& a) {
  if (!views_) return failed(moved_from());
  return Request(views_->queue().start(views_->engine(a.kind), a));
}

Request Team::failed(Status st) {
  auto c = std::make_shared<CallState>();
  c->status = std::move(st);
  c->done = true;
  return Request(std::move(c));
}

// The collectives, Team::<name> and Team::i<name>, one pair per row of
// osmp_ops.h, with osmp.hpp's parameters of its form (OSMP_TEAM_PARAMS_OF_: the
// declarations come from the same row); OSMP_TEAM_ARGS_<form>: the call.
#define OSMP_TEAM_ARGS_none(kind, op, root) \
  { kind }
#define OSMP_TEAM_ARGS_buffer(kind, op, root) \
  { kind, nullptr, buf, count, type, op, root }
#define OSMP_TEAM_ARGS_uniform(kind, op, root) \
  { kind, send, recv, count, type, op, root }
#define OSMP_TEAM_ARGS_gathered(kind, op, root) \
  { kind, send, recv, count, type, op, root, counts, displs }
#define OSMP_TEAM_ARGS_scattered(kind, op, root) \
  { kind, send, recv, count, type, op, root, counts, displs }
#define OSMP_TEAM_ARGS_shares(kind, op, root) \
  { kind, send, recv, 0, type, op, root, counts }
#define OSMP_TEAM_ARGS_pairs(kind, op, root) \
  { kind, send, recv, 0, type, op, root, send_counts, send_displs, recv_counts, recv_displs }
#define OSMP_TEAM_CALL_(name, form, rooted, reduces) \
  OSMP_TEAM_ARGS_##form(OpKind::name, OSMP_IF_ELSE_##reduces(op, Op::sum), OSMP_IF_ELSE_##rooted(root, -1))
#define OSMP_TEAM_ENTRIES_(name, Name, NAME, key, rooted, reduces, form) \
  Status Team::name(OSMP_TEAM_PARAMS_OF_(form, rooted, reduces)) {       \
    return run(OSMP_TEAM_CALL_(name, form, rooted, reduces));            \
  }                                                                      \
  Request Team::i##name(OSMP_TEAM_PARAMS_OF_(form, rooted, reduces)) {   \
    return start(OSMP_TEAM_CALL_(name, form, rooted, reduces));          \
  }
OSMP_COLLECTIVES(OSMP_TEAM_ENTRIES_)
#undef OSMP_TEAM_ENTRIES_

bool Request::test() {
  if (!c_ || c_->done) return true;
  return test_call(*c_);
}

Status Request::wait() {
  if (!c_) return {};
  wait_for(c_);
  return c_->status;
}

bool Request::done() const { return !c_ || c_->done; }

Status Request::status() const { return c_ && c_->done ? c_->status : Status{}; }

Status wait_all(std::span<Request> requests) {
  Status first;
  for (Request& r : requests) {
    Status st = r.wait();
    if (first.ok() && !st.ok()) first = std::move(st);
  }
  return first;
}

namespace {

Status abstain_reason(Errc why) {
  if (why == Errc::ok || why == Errc::peer_dead || why == Errc::aborted)
    return Status(Errc::invalid_argument, cat("abstain: '", errc_name(why), "' is not a reason to abstain"));
  return {};
}

}  // namespace

Status Team::abstain(OpKind kind, std::int64_t count, Datatype type, Op op, int root, Errc why) {
  OSMP_RETURN_IF_ERROR(abstain_reason(why));
  CollArgs a{kind, nullptr, nullptr, count, type, op, root};
  a.abstain = why;
  return run(a);
}

Request Team::iabstain(OpKind kind, std::int64_t count, Datatype type, Op op, int root, Errc why) {
  if (Status st = abstain_reason(why); !st.ok()) return failed(std::move(st));
  CollArgs a{kind, nullptr, nullptr, count, type, op, root};
  a.abstain = why;
  return start(a);
}

}  // namespace osmp
