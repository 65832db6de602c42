#include "osmp.hpp"

#include <cctype>

#include "api/views.hpp"
#include "collectives/engine.hpp"
#include "core/env.hpp"
#include "core/log.hpp"
#include "team/shm_bootstrap.hpp"
#include "team/team.hpp"

namespace osmp {
namespace {

constexpr const char* kPerOpNames[] = {"OSMP_VH", "OSMP_BASE_CASE", "OSMP_FLAT_MAX", "OSMP_KNOMIAL_RADIX"};
constexpr const char* kTeamWideNames[] = {"OSMP_VH", "OSMP_BASE_CASE", "OSMP_FLAT_MAX", "OSMP_KNOMIAL_RADIX",
                                          "OSMP_SYMMETRIC_MAX", "OSMP_CMA", "OSMP_CMA_MIN", "OSMP_CMA_MAX"};

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

// OSMP_VH_REDUCE=..., OSMP_BASE_CASE_BCAST=...: settings for one operation.
Status per_op_from_env(Options& o) {
  for (int i = 0; i < kOpKinds; ++i) {
    OpKind k = op_kind_at(i);
    for (const char* name : kPerOpNames) {
      std::string var = cat(name, "_", upper(to_string(k)));
      auto v = env_get(var.c_str());
      if (!v) continue;
      Profile probe;
      Status st = probe.set(name, *v, true);
      if (!st.ok()) return Status(st.code(), cat("environment variable ", var, ": ", st.message()));
      o.per_op[k][name] = *v;
    }
  }
  return {};
}

}  // namespace

Result<Options> Options::from_env() {
  Options o;
  OSMP_ASSIGN_OR_RETURN(o.team, TeamOptions::from_env());
  OSMP_ASSIGN_OR_RETURN(o.collectives, CollectiveConfig::from_env());
  OSMP_RETURN_IF_ERROR(per_op_from_env(o));
  for (const char* name : kTeamWideNames)
    if (env_get(name)) o.given.insert(name);
  return o;
}

Team::Team() = default;
Team::Team(Team&&) noexcept = default;
Team& Team::operator=(Team&&) noexcept = default;
Team::~Team() = default;

Result<Team> Team::create() {
  OSMP_ASSIGN_OR_RETURN(Options o, Options::from_env());
  return create(o);
}

Result<Team> Team::create(const Options& options) {
  OSMP_ASSIGN_OR_RETURN(ShmBootstrap* boot, ShmBootstrap::instance());
  return create(*boot, options);
}

Result<Team> Team::create(Bootstrap& bootstrap, const Options& options) {
  Profile base{options.team.vh, options.collectives};
  Team t;
  OSMP_ASSIGN_OR_RETURN(t.views_, Views::create(bootstrap, options.team, base, options.collectives.cma));
  if (t.size() > 1) OSMP_RETURN_IF_ERROR(t.apply_initial(options));
  return t;
}

Status Team::apply_initial(const Options& options) {
  if (options.per_op.empty()) return {};
  return Status(views_->configure({}, options.per_op)).prefix("applying the per-operation settings");
}

int Team::rank() const { return views_->base_core().rank(); }
int Team::size() const { return views_->base_core().size(); }
TeamCore& Team::core() { return views_->base_core(); }
const TeamCore& Team::core() const { return views_->base_core(); }

Status Team::configure(const Settings& all, const std::map<OpKind, Settings>& per_op) {
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

std::string Team::vh(OpKind op) const { return views_->profile(op).vh; }
std::string Team::settings_text(OpKind op) const { return views_->profile(op).key(); }
std::uint64_t Team::generation() const { return views_->generation(); }
std::uint64_t Team::switched_after() const { return views_->switched_after(); }
int Team::views() const { return views_->view_count(); }

Status Team::size_error(const char* op) {
  return Status(Errc::invalid_argument, cat(op, ": the spans' sizes do not match"));
}

Status Team::run(const CollArgs& a) {
  views_->count_call();
  Status st = views_->engine(a.kind).run(a);
  if (!st.ok()) views_->propagate_stop(st);
  return st;
}

Status Team::barrier() { return run({OpKind::barrier}); }

Status Team::bcast(void* buf, std::int64_t count, Datatype type, int root) {
  return run({OpKind::bcast, nullptr, buf, count, type, Op::sum, root});
}

Status Team::reduce(const void* send, void* recv, std::int64_t count, Datatype type, Op op, int root) {
  return run({OpKind::reduce, send, recv, count, type, op, root});
}

Status Team::allreduce(const void* send, void* recv, std::int64_t count, Datatype type, Op op) {
  return run({OpKind::allreduce, send, recv, count, type, op, -1});
}

Status Team::gather(const void* send, void* recv, std::int64_t count, Datatype type, int root) {
  return run({OpKind::gather, send, recv, count, type, Op::sum, root});
}

Status Team::allgather(const void* send, void* recv, std::int64_t count, Datatype type) {
  return run({OpKind::allgather, send, recv, count, type, Op::sum, -1});
}

Status Team::scatter(const void* send, void* recv, std::int64_t count, Datatype type, int root) {
  return run({OpKind::scatter, send, recv, count, type, Op::sum, root});
}

Status Team::reduce_scatter_block(const void* send, void* recv, std::int64_t count, Datatype type, Op op) {
  return run({OpKind::reduce_scatter_block, send, recv, count, type, op, -1});
}

}  // namespace osmp
