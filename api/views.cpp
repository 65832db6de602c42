#include "api/views.hpp"

#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstring>

#include "core/disagreement.hpp"
#include "core/killpoint.hpp"
#include "core/log.hpp"
#include "core/strings.hpp"
#include "shm/cma.hpp"
#include "team/heaps.hpp"
#include "virtual_hier/spec.hpp"

namespace osmp {
namespace {

// Can every rank read and write its neighbour's memory with
// process_vm_readv / process_vm_writev? Each rank publishes a word's address,
// reads its right neighbour's, writes it and reads it back, and all agree:
// single copy is used only if it works everywhere. The word lives until the
// agreement, which every neighbour joins only after its probe. The same
// agreement carries whether the copy pays on this rank (cma_slowdown, timed
// once per process): it pays for the team where it does on at least half of
// the ranks, which every rank counts alike from the same bytes.
Result<CmaProbe> probe_cma(Bootstrap& boot) {
  struct Probe {
    std::int64_t pid;
    std::uint64_t address;
  };
  constexpr std::uint64_t kMagic = 0x0c3a0c3a0c3a0c3aULL;
  std::uint64_t word = kMagic;
  Probe mine{::getpid(), reinterpret_cast<std::uint64_t>(&word)};
  std::vector<Probe> all(static_cast<std::size_t>(boot.size()));
  OSMP_RETURN_IF_ERROR(boot.allgather(&mine, sizeof mine, all.data()));
  const Probe& right = all[static_cast<std::size_t>((boot.rank() + 1) % boot.size())];
  const auto pid = static_cast<pid_t>(right.pid);
  std::uint64_t got = 0, back = 0;
  const std::uint64_t mark = ~kMagic;
  bool works = cma_read(pid, &got, right.address, sizeof got).ok() && got == kMagic &&
               cma_write(pid, right.address, &mark, sizeof mark).ok() &&
               cma_read(pid, &back, right.address, sizeof back).ok() && back == mark;
  // 0: the copy fails here; 1: it works, slowly; 2: it works and pays.
  std::uint8_t code = !works ? 0 : cma_pays(cma_slowdown()) ? 2 : 1;
  std::vector<std::uint8_t> codes(all.size());
  OSMP_RETURN_IF_ERROR(boot.allgather(&code, 1, codes.data()));
  CmaProbe out;
  out.works = std::ranges::none_of(codes, [](std::uint8_t c) { return c == 0; });
  out.pays = 2 * std::ranges::count(codes, std::uint8_t{2}) >= std::ssize(codes);
  return out;
}

// A spec names levels of this machine (checked on the tree it would build):
// an error here, on one rank, becomes every rank's error with its words.
Status check_spec(const TeamCore& team, const std::string& vh) { return team.tree_with(vh).status(); }

// What one configure call asked for, as the user wrote it.
std::string asked_text(const Settings& all, const std::map<OpKind, Settings>& per_op) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : all) parts.push_back(cat(name, "=", value));
  for (const auto& [kind, settings] : per_op)
    for (const auto& [name, value] : settings) parts.push_back(cat(to_string(kind), ": ", name, "=", value));
  return parts.empty() ? "no settings" : cat("'", join(parts, ", "), "'");
}

// The whole table as text: what the ranks must agree on.
std::string table_text(const std::array<Profile, kOpKindCount>& table, const Profile& base) {
  std::string s = cat("*=", base.key());
  for (OpKind k : kOpKinds) s += cat(";", to_string(k), "=", table[static_cast<std::size_t>(op_index(k))].key());
  return s;
}

}  // namespace

Status Profile::set(const std::string& name, const std::string& value, bool per_op_only) {
  if (name == "OSMP_VH") {
    OSMP_ASSIGN_OR_RETURN(VhSpec spec, parse_spec(value));
    vh = spec.empty() ? "" : std::string(trim(value));  // "none" and "" are one profile
    return {};
  }
  if (!CollectiveConfig::known(name)) {
    std::string names = "OSMP_VH";
    for (std::string_view n : CollectiveConfig::names()) names += cat(", ", n);
    return Status(Errc::invalid_argument, cat("unknown setting '", name, "' (", names, ")"));
  }
  if (per_op_only && !CollectiveConfig::per_op(name)) {
    return Status(Errc::invalid_argument, cat(name, " is team-wide; it cannot be set for one operation"));
  }
  return coll.set(name, value);
}

Status EngineBootstrap::allgather(const void* in, std::size_t len, void* out) {
  if (len == 0) return e_.run_own({OpKind::barrier});
  return e_.run_own({OpKind::allgather, in, out, static_cast<std::int64_t>(len), Datatype::uint8});
}

Status EngineBootstrap::broadcast(void* buf, std::size_t len, int root) {
  return e_.run_own({OpKind::bcast, nullptr, buf, static_cast<std::int64_t>(len), Datatype::uint8, Op::sum, root});
}

Result<std::unique_ptr<Views>> Views::create(Bootstrap& boot, const TeamOptions& team, const Profile& base) {
  TeamOptions to = team;
  to.vh = base.vh;
  to.protocol = base.coll.fingerprint();
  auto v = std::make_unique<View>();
  v->profile = base;
  OSMP_ASSIGN_OR_RETURN(v->core, TeamCore::create(boot, to));
  OSMP_ASSIGN_OR_RETURN(v->engine, Engine::create(*v->core, base.coll));
  std::unique_ptr<Views> out(new Views());
  if (boot.size() > 1) {
    OSMP_ASSIGN_OR_RETURN(out->cma_, probe_cma(boot));
  }
  v->engine->set_cma(out->cma_);
  OSMP_ASSIGN_OR_RETURN(out->heaps_, join_heaps(boot, team));
  v->engine->set_heaps(out->heaps_.get());
  out->views_.push_back(std::move(v));
  out->profiles_.fill(base);
  if (boot.size() > 1) out->numbered_ = std::make_unique<Calls>(out->base_core());
  out->bind_calls();
  return out;
}

Result<std::unique_ptr<Views>> Views::like(const Views& parent, Bootstrap& boot) {
  const TeamCore& cur = parent.base_core();
  const Profile& base = parent.base_profile();
  OSMP_ASSIGN_OR_RETURN(auto out, create(boot, cur.rebuild_options(base.vh, base.coll.fingerprint()), base));
  out->base_core().set_topology_description(cur.topology_description());
  return out;
}

Status Views::like_ops(const Views& parent) {
  if (base_core().size() == 1) return {};  // a team of one runs every operation as its local copy
  return install(parent.base_profile(), parent.profiles_);
}

void Views::bind_calls() {
  for (auto& v : views_) v->engine->set_queue(*queue_);
  if (!numbered_) return;
  std::vector<Engine*> engines;
  for (auto& v : views_) engines.push_back(v->engine.get());
  numbered_->bind(base_core(), engines);
}

Status Views::finish(bool together) {
  queue_->complete();  // the calls started before come first
  return numbered_ ? numbered_->finish(/*wait=*/true, together) : Status{};
}

Status Views::leave() {
  queue_->complete();  // the calls started before come first
  return numbered_ ? numbered_->finish(/*wait=*/false) : Status{};
}

Status Views::pause() {
  queue_->complete();  // the calls started before come first
  return numbered_ ? numbered_->pause() : Status{};
}

void Views::announce_finish() {
  queue_->complete();  // the calls started before come first
  if (numbered_) numbered_->announce_finish();
}

Views::~Views() {
  queue_.reset();
  if (numbered_) (void)numbered_->finish(/*wait=*/false);
}

Result<std::unique_ptr<Views::View>> Views::build(const Profile& p) {
  TeamCore& cur = base_core();
  EngineBootstrap boot(base_engine());
  auto v = std::make_unique<View>();
  v->profile = p;
  OSMP_ASSIGN_OR_RETURN(v->core, TeamCore::create(boot, cur.rebuild_options(p.vh, p.coll.fingerprint())));
  v->core->set_topology_description(cur.topology_description());
  OSMP_ASSIGN_OR_RETURN(v->engine, Engine::create(*v->core, p.coll));
  v->engine->set_cma(cma_);
  v->engine->set_heaps(heaps_.get());
  return v;
}

Status Views::agree_on_table(const std::array<Profile, kOpKindCount>& table, const Profile& base, const Status& local,
                             const std::string& asked) {
  EngineBootstrap boot(base_engine());
  OSMP_RETURN_IF_ERROR(boot.agree(local));
  std::uint64_t mine = fnv1a(table_text(table, base));
  std::vector<std::uint64_t> all(static_cast<std::size_t>(boot.size()));
  OSMP_RETURN_IF_ERROR(boot.allgather(&mine, sizeof mine, all.data()));
  if (std::all_of(all.begin(), all.end(), [&](std::uint64_t h) { return h == all[0]; })) return {};
  // Every rank saw the same hashes: all exchange what they asked for. Ranks
  // with the same resulting table are one side, shown by its lowest rank's words.
  OSMP_ASSIGN_OR_RETURN(std::vector<std::string> texts, boot.allgather_strings(asked));
  std::vector<std::string> keys;
  for (std::uint64_t h : all) keys.push_back(std::to_string(h));
  Disagreement d = group_by_value(keys);
  for (auto& g : d.groups) g.value = texts[static_cast<std::size_t>(g.ranks.front())];
  return Status(Errc::mismatch, cat("configure: ranks disagree on the settings: ", describe_sides(d, "asked for")));
}

Status Views::next_table(const Settings& all, const std::map<OpKind, Settings>& per_op, Profile& base,
                         std::array<Profile, kOpKindCount>& table) const {
  base = base_profile();
  table = profiles_;
  for (const auto& [name, value] : all) {
    OSMP_RETURN_IF_ERROR(base.set(name, value, false));
    for (auto& p : table) OSMP_RETURN_IF_ERROR(p.set(name, value, false));
  }
  for (const auto& [kind, settings] : per_op) {
    if (op_index(kind) < 0)
      return Status(Errc::invalid_argument, cat("configure: unknown operation ", static_cast<int>(kind)));
    for (const auto& [name, value] : settings) {
      Status st = table[static_cast<std::size_t>(op_index(kind))].set(name, value, true);
      if (!st.ok()) return st.prefix(cat("configure ", to_string(kind)));
    }
  }
  OSMP_RETURN_IF_ERROR(check_spec(base_core(), base.vh));
  for (const auto& p : table)
    if (p.vh != base.vh) OSMP_RETURN_IF_ERROR(check_spec(base_core(), p.vh));
  return {};
}

Status Views::configure(const Settings& all, const std::map<OpKind, Settings>& per_op) {
  queue_->complete();  // the calls started before run on the views they were started on
  OSMP_RETURN_IF_ERROR(base_core().usable());
  kill_point(KillPoint::reconfigure_begin, base_core().rank());
  Profile base;
  std::array<Profile, kOpKindCount> table;
  Status local = next_table(all, per_op, base, table);  // checked here, then agreed
  OSMP_RETURN_IF_ERROR(agree_on_table(table, base, local, asked_text(all, per_op)));
  OSMP_RETURN_IF_ERROR(install(base, table));
  ++generation_;
  switched_after_ = queue_->calls();
  log(LogLevel::debug, "configure: generation ", generation_, ", ", views_.size(), " view(s), base vh '",
      views_.front()->profile.vh, "'");
  return {};
}

// The views an agreed table needs: the current one of each profile it keeps,
// new ones for the rest (built in the same order on every rank: same history,
// same table). A failed build drops what was built and changes nothing.
Status Views::install(const Profile& base, const std::array<Profile, kOpKindCount>& table) {
  std::vector<const Profile*> needed{&base};  // each profile once, base first
  auto index_of = [&](const Profile& p) {
    for (std::size_t i = 0; i < needed.size(); ++i)
      if (needed[i]->key() == p.key()) return static_cast<int>(i);
    return -1;
  };
  std::array<int, kOpKindCount> of_op{};
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (index_of(table[i]) < 0) needed.push_back(&table[i]);
    of_op[i] = index_of(table[i]);
  }
  auto current = [&](const Profile& p) -> std::unique_ptr<View>* {
    for (auto& v : views_)
      if (v->profile.key() == p.key()) return &v;
    return nullptr;
  };
  std::vector<std::unique_ptr<View>> built(needed.size());
  for (std::size_t i = 0; i < needed.size(); ++i) {
    if (current(*needed[i])) continue;
    auto v = build(*needed[i]);
    if (!v.ok()) return Status(v.status()).prefix("configure: building the new views");
    built[i] = std::move(v).value();
  }
  kill_point(KillPoint::reconfigure_built, base_core().rank());
  std::vector<std::unique_ptr<View>> next;
  for (std::size_t i = 0; i < needed.size(); ++i) {
    auto* cur = current(*needed[i]);
    next.push_back(cur ? std::move(*cur) : std::move(built[i]));
    if (cur) views_.erase(views_.begin() + (cur - views_.data()));
  }
  views_ = std::move(next);  // the views no profile uses any more are unmapped here
  profiles_ = table;
  of_op_ = of_op;
  bind_calls();
  return {};
}

void Views::propagate_stop(const Status& st) {
  if (st.code() != Errc::peer_dead && st.code() != Errc::aborted) return;
  for (auto& from : views_) {
    if (from->core->usable().ok()) continue;
    for (auto& to : views_)
      if (to != from) to->core->stop_like(*from->core);
    return;
  }
}

}  // namespace osmp
