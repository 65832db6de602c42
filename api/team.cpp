#include "osmp.hpp"

#include <unistd.h>

#include "collectives/engine.hpp"
#include "shm/cma.hpp"
#include "team/shm_bootstrap.hpp"
#include "team/team.hpp"

namespace osmp {

Result<Options> Options::from_env() {
  Options o;
  OSMP_ASSIGN_OR_RETURN(o.team, TeamOptions::from_env());
  OSMP_ASSIGN_OR_RETURN(o.collectives, CollectiveConfig::from_env());
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

namespace {

// Can every rank read its neighbour's memory with process_vm_readv? Each
// rank publishes a word's address, reads its right neighbour's, and all
// agree: single copy is used only if it works everywhere.
Result<bool> probe_cma(Bootstrap& boot) {
  struct Probe {
    std::int64_t pid;
    std::uint64_t address;
  };
  static const std::uint64_t kMagic = 0x0c3a0c3a0c3a0c3aULL;
  Probe mine{::getpid(), reinterpret_cast<std::uint64_t>(&kMagic)};
  std::vector<Probe> all(static_cast<std::size_t>(boot.size()));
  OSMP_RETURN_IF_ERROR(boot.allgather(&mine, sizeof mine, all.data()));
  const Probe& right = all[static_cast<std::size_t>((boot.rank() + 1) % boot.size())];
  std::uint64_t got = 0;
  Status st = cma_read(static_cast<pid_t>(right.pid), &got, right.address, sizeof got);
  std::uint8_t ok = st.ok() && got == kMagic ? 1 : 0;
  std::vector<std::uint8_t> oks(all.size());
  OSMP_RETURN_IF_ERROR(boot.allgather(&ok, 1, oks.data()));
  for (auto o : oks)
    if (!o) return false;
  return true;
}

}  // namespace

Result<Team> Team::create(Bootstrap& bootstrap, const Options& options) {
  TeamOptions to = options.team;
  to.protocol = options.collectives.fingerprint();
  OSMP_ASSIGN_OR_RETURN(auto core, TeamCore::create(bootstrap, to));
  OSMP_ASSIGN_OR_RETURN(auto engine, Engine::create(*core, options.collectives));
  if (options.collectives.cma) {
    OSMP_ASSIGN_OR_RETURN(bool cma, probe_cma(bootstrap));
    engine->set_cma(cma);
  }
  Team t;
  t.core_ = std::move(core);
  t.engine_ = std::move(engine);
  return t;
}

int Team::rank() const { return core_->rank(); }
int Team::size() const { return core_->size(); }

Status Team::size_error(const char* op) {
  return Status(Errc::invalid_argument, cat(op, ": the spans' sizes do not match"));
}

Status Team::barrier() { return engine_->run({OpKind::barrier}); }

Status Team::bcast(void* buf, std::int64_t count, Datatype type, int root) {
  return engine_->run({OpKind::bcast, nullptr, buf, count, type, Op::sum, root});
}

Status Team::reduce(const void* send, void* recv, std::int64_t count, Datatype type, Op op, int root) {
  return engine_->run({OpKind::reduce, send, recv, count, type, op, root});
}

Status Team::allreduce(const void* send, void* recv, std::int64_t count, Datatype type, Op op) {
  return engine_->run({OpKind::allreduce, send, recv, count, type, op, -1});
}

Status Team::gather(const void* send, void* recv, std::int64_t count, Datatype type, int root) {
  return engine_->run({OpKind::gather, send, recv, count, type, Op::sum, root});
}

Status Team::allgather(const void* send, void* recv, std::int64_t count, Datatype type) {
  return engine_->run({OpKind::allgather, send, recv, count, type, Op::sum, -1});
}

Status Team::scatter(const void* send, void* recv, std::int64_t count, Datatype type, int root) {
  return engine_->run({OpKind::scatter, send, recv, count, type, Op::sum, root});
}

Status Team::reduce_scatter_block(const void* send, void* recv, std::int64_t count, Datatype type, Op op) {
  return engine_->run({OpKind::reduce_scatter_block, send, recv, count, type, op, -1});
}

}  // namespace osmp
