#include "team/team.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <optional>

#include "core/killpoint.hpp"
#include "core/log.hpp"
#include "core/random.hpp"
#include "core/strings.hpp"
#include "team/settings_agreement.hpp"
#include "topology/build.hpp"
#include "topology/limits.hpp"
#include "topology/shared.hpp"
#include "virtual_hier/split.hpp"

namespace osmp {
namespace {

constexpr std::size_t kPlaceWords = kMaxPus / 64;  // a place is a bitmap of every PU osmp takes
static_assert(kMaxPus % 64 == 0);

Result<std::array<std::uint64_t, kPlaceWords>> pack(const CpuSet& s, const char* what) {
  std::array<std::uint64_t, kPlaceWords> w{};
  if (s.words().size() > kPlaceWords) {
    return Status(Errc::unsupported, cat(what, " ", s.to_string(), " has PUs above ", kPlaceWords * 64 - 1));
  }
  std::copy(s.words().begin(), s.words().end(), w.begin());
  return w;
}

CpuSet unpack(const std::uint64_t* w) {
  CpuSet s;
  for (std::size_t i = 0; i < kPlaceWords; ++i)  // the set bits only: a place is a few of kMaxPus
    for (std::uint64_t bits = w[i]; bits != 0; bits &= bits - 1)
      s.set(static_cast<unsigned>(i * 64 + static_cast<unsigned>(std::countr_zero(bits))));
  return s;
}

CpuSet real_affinity() {
  CpuSet s;
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) s.set(static_cast<unsigned>(c));
  }
  return s;
}

// More processes than the CPUs they may run on: together, or on a shared set.
bool is_oversubscribed(const std::vector<CpuSet>& real) {
  CpuSet all;
  std::map<std::string, std::pair<unsigned, unsigned>> per_set;  // cpus, processes
  for (const auto& r : real) {
    all |= r;
    auto& e = per_set[r.to_string()];
    e.first = r.count();
    ++e.second;
  }
  if (real.size() > all.count()) return true;
  for (const auto& [k, e] : per_set)
    if (e.second > e.first) return true;
  return false;
}

// NUMA node (os index) of a process placed at `place`, or -1 above NUMA level.
int numa_node_of(const MachineTree& m, const CpuSet& place) {
  for (int n = home_node(m, place); n >= 0; n = m.nodes[static_cast<std::size_t>(n)].parent) {
    const auto& node = m.nodes[static_cast<std::size_t>(n)];
    if (node.level == "NUMANode" && !node.numa_os_indexes.empty())
      return static_cast<int>(node.numa_os_indexes.front());
  }
  return -1;
}

}  // namespace

struct TeamCore::Builder {
  Bootstrap& boot;
  TeamCore& t;
  SharedTopology shared;  // this team's topology, held by the process (share_topology)
  std::vector<CpuSet> real;
  std::vector<pid_t> pids;
  std::vector<Segment> created;  // names this rank must remove after everyone attached

  Status agree_on_settings() {
    OSMP_RETURN_IF_ERROR(osmp::agree_on_settings(boot, t.options_));
    return boot.agree(parse_spec(t.options_.vh).status());
  }

  // Rank 0's topology reaches every rank: its digest first, then its XML
  // only when some rank does not hold it already (topology/shared.hpp: a
  // process loads, exports and imports a topology once, at its first team).
  Status share_topology() {
    struct Named {
      std::uint64_t digest = 0;
      std::uint8_t this_system = 0;
    } named;
    Status local;
    if (boot.rank() == 0) {
      auto loaded = shared_topology(t.options_.topology);
      if (loaded.ok()) {
        named = {loaded->digest, static_cast<std::uint8_t>(loaded->topology->is_this_system() ? 1 : 0)};
        t.topology_description_ = loaded->topology->describe();
        shared = std::move(loaded).value();
      } else {
        local = loaded.status();
      }
    }
    OSMP_RETURN_IF_ERROR(boot.agree(local));
    OSMP_RETURN_IF_ERROR(boot.broadcast(&named, sizeof named, 0));
    const bool this_system = named.this_system != 0;
    t.this_system_ = this_system;
    if (boot.rank() != 0) {
      if (auto held = shared_topology_named(named.digest, this_system)) shared = std::move(*held);
    }
    // Whether every rank holds it: the XML travels only if one does not.
    const std::uint8_t holds = shared.topology ? 1 : 0;
    std::vector<std::uint8_t> all(static_cast<std::size_t>(boot.size()));
    OSMP_RETURN_IF_ERROR(boot.allgather(&holds, 1, all.data()));
    if (std::find(all.begin(), all.end(), std::uint8_t{0}) != all.end()) {
      std::string xml = boot.rank() == 0 ? shared.xml : std::string();
      OSMP_RETURN_IF_ERROR(boot.broadcast_string(xml, 0));
      if (!shared.topology) {
        auto imported = shared_topology(TopologySource::xml_buffer(std::move(xml), this_system));
        local = imported.status();
        if (imported.ok()) shared = std::move(imported).value();
      }
    }
    if (boot.rank() != 0 && shared.topology)
      t.topology_description_ =
          cat(t.options_.topology.describe(), this_system ? "" : " (not this system: bindings are virtual)");
    OSMP_RETURN_IF_ERROR(boot.agree(local));
    t.machine_ = shared.topology->machine();
    t.topology_xml_ = shared.xml;
    return {};
  }

  Result<CpuSet> my_place() const {
    if (t.options_.place) return *t.options_.place;
    if (shared.topology->is_this_system()) return shared.topology->current_binding();
    return shared.topology->machine().pus();  // a virtual machine and no place given: unbound
  }

  Status share_places(std::vector<CpuSet>& places) {
    struct Record {
      std::int64_t pid;
      std::uint64_t place[kPlaceWords];
      std::uint64_t real[kPlaceWords];
    };
    Record mine{};
    Status local;
    auto place = my_place();
    if (place.ok()) {
      auto p = pack(*place, "place");
      auto r = pack(real_affinity(), "CPU affinity");
      if (p.ok() && r.ok()) {
        std::copy(p->begin(), p->end(), mine.place);
        std::copy(r->begin(), r->end(), mine.real);
      }
      local = !p.ok() ? p.status() : r.status();
    } else {
      local = place.status();
    }
    mine.pid = ::getpid();
    OSMP_RETURN_IF_ERROR(boot.agree(local));
    std::vector<Record> all(static_cast<std::size_t>(boot.size()));
    OSMP_RETURN_IF_ERROR(boot.allgather(&mine, sizeof mine, all.data()));
    for (const auto& rec : all) {
      places.push_back(unpack(rec.place));
      real.push_back(unpack(rec.real));
      pids.push_back(static_cast<pid_t>(rec.pid));
    }
    return {};
  }

  Status build_tree(const std::vector<CpuSet>& places) {
    BuildOptions bo;
    bo.allow_oversubscribe = t.options_.allow_oversubscribe;
    SpecReport report;
    auto tree = osmp::build_tree(shared.topology->machine(), places, bo, *parse_spec(t.options_.vh), &report);
    if (!tree.ok()) return tree.status();
    if (boot.rank() == 0)  // every rank builds the same tree: one warning is enough
      for (const std::string& note : ineffective_items(report)) log(LogLevel::warn, "virtual hierarchy: ", note);
    OSMP_RETURN_IF_ERROR(tree->check());
    t.tree_ = std::move(tree).value();
    t.oversubscribed_ = is_oversubscribed(real);
    return {};
  }

  SegmentInfo group_header(int domain, const GroupLayout& l) const {
    SegmentInfo h;
    h.kind = SegmentKind::group;
    h.job_id = t.job_id_;
    h.team_id = t.team_id_;
    h.total_size = l.total;
    h.members = static_cast<std::uint32_t>(l.params.members);
    h.domain = static_cast<std::uint64_t>(domain);
    h.params[0] = l.params.slot_bytes;
    h.params[1] = l.params.bcast_bytes;
    h.params[2] = static_cast<std::uint64_t>(t.tree_.domain(domain).depth);
    return h;
  }

  SegmentInfo control_header() const {
    SegmentInfo h;
    h.kind = SegmentKind::team;
    h.job_id = t.job_id_;
    h.team_id = t.team_id_;
    h.total_size = t.control_layout_.total;
    h.members = static_cast<std::uint32_t>(t.tree_.size());
    h.params[0] = t.control_layout_.params.item_bytes;
    return h;
  }

  // Data slots on their writer's NUMA node, the rest on the leader's.
  std::vector<NumaRange> numa_plan(const Domain& d, const GroupLayout& l) const {
    const MachineTree& m = shared.topology->machine();
    if (!shared.topology->is_this_system() || m.nodes_of_level("NUMANode").size() < 2) return {};
    std::vector<NumaRange> plan;
    int leader_node = numa_node_of(m, t.tree_.place(d.leader));
    plan.push_back({0, l.slots, leader_node});
    for (int p = 0; p < kBuffers; ++p)
      for (int i = 0; i < l.params.members; ++i)
        plan.push_back(
            {l.slot(p, i), l.params.slot_bytes, numa_node_of(m, t.tree_.place(d.group[static_cast<std::size_t>(i)]))});
    plan.push_back({l.bcast, kBuffers * l.params.bcast_bytes, leader_node});
    return plan;
  }

  Status plan_segments(std::map<int, GroupLayout>& layouts) {
    // Each rank's outbox for the flat collectives: two buffers of a slot each.
    OSMP_ASSIGN_OR_RETURN(GroupLayout probe, make_group_layout({1, t.options_.slot_bytes, t.options_.bcast_bytes}));
    OSMP_ASSIGN_OR_RETURN(t.control_layout_,
                          make_control_layout({t.tree_.size(), kBuffers * probe.params.slot_bytes, 0}));
    std::uint64_t total = t.control_layout_.total;
    for (std::size_t d = 0; d < t.tree_.domains().size(); ++d) {
      const Domain& dom = t.tree_.domains()[d];
      if (!dom.has_group()) continue;
      OSMP_ASSIGN_OR_RETURN(GroupLayout l, make_group_layout({static_cast<int>(dom.group.size()), t.options_.slot_bytes,
                                                              t.options_.bcast_bytes}));
      total += l.total;
      layouts.emplace(static_cast<int>(d), l);
    }
    t.shm_bytes_ = total;
    if (t.options_.shm_limit && total > t.options_.shm_limit) {
      return Status(Errc::no_space,
                    cat("the team needs ", format_bytes(total), " of shared memory, more than OSMP_SHM_LIMIT (",
                        format_bytes(t.options_.shm_limit),
                        "); lower OSMP_SLOT_SIZE / "
                        "OSMP_BCAST_SIZE or raise the limit"));
    }
    Status room;
    if (boot.rank() == 0) {
      auto free_bytes = shm_free_bytes(shm_dir());
      if (!free_bytes.ok()) {
        room = free_bytes.status();
      } else if (*free_bytes < total) {
        room = Status(Errc::no_space, cat("not enough shared memory in ", shm_dir(), ": the team needs ",
                                          format_bytes(total), ", only ", format_bytes(*free_bytes),
                                          " free (enlarge the tmpfs, e.g. docker --shm-size, or lower "
                                          "OSMP_SLOT_SIZE / OSMP_BCAST_SIZE)"));
      }
    }
    return boot.agree(room);
  }

  // Which unit of domain d's group holds each rank (-1: outside d).
  std::vector<int> units_of(int d) const {
    const Domain& dom = t.tree_.domain(d);
    std::vector<int> unit(static_cast<std::size_t>(t.tree_.size()), -1);
    auto index = [&](int leader) {
      return static_cast<int>(std::find(dom.group.begin(), dom.group.end(), leader) - dom.group.begin());
    };
    for (int r : dom.direct) unit[static_cast<std::size_t>(r)] = index(r);
    for (int c : dom.children) {
      const Domain& cd = t.tree_.domain(c);
      for (int r : cd.members) unit[static_cast<std::size_t>(r)] = index(cd.leader);
    }
    return unit;
  }

  Status create_segments(const std::map<int, GroupLayout>& layouts) {
    const std::string dir = shm_dir();
    Status local;
    if (t.rank_ == 0) {
      auto c = Segment::create(dir, t.control_layout_.total, control_header());
      if (c.ok()) {
        t.control_ = std::move(c).value();
      } else {
        local = c.status();
      }
    }
    for (int d : t.tree_.group_path(t.rank_)) {
      const Domain& dom = t.tree_.domain(d);
      Group g;
      g.domain = d;
      g.depth = dom.depth;
      g.members = dom.group;
      g.unit_of_rank = units_of(d);
      g.me = g.unit_of_rank[static_cast<std::size_t>(t.rank_)];
      g.self = t.rank_;
      g.layout = layouts.at(d);
      if (local.ok() && dom.leader == t.rank_) {
        auto s = Segment::create(dir, g.layout.total, group_header(d, g.layout), numa_plan(dom, g.layout));
        if (s.ok()) {
          g.segment = std::move(s).value();
        } else {
          local = s.status();
        }
      }
      t.groups_.push_back(std::move(g));
    }
    kill_point(KillPoint::team_created, t.rank_);
    return boot.agree(local);
  }

  // Every creator's handles reach every rank: one allgather of a fixed
  // number of (domain, handle) entries per rank, as many as the rank that
  // leads the most groups needs (-1 stands for the control segment).
  Status share_handles(std::map<int, SegmentHandle>& handles) const {
    struct Entry {
      std::int64_t domain = -2;  // -2: unused
      SegmentHandle handle;
    };
    std::map<int, std::size_t> led;  // rank -> groups it creates
    for (const auto& d : t.tree_.domains())
      if (d.has_group()) ++led[d.leader];
    std::size_t per_rank = 1;
    for (const auto& [r, n] : led) per_rank = std::max(per_rank, n + (r == 0 ? 1 : 0));
    std::vector<Entry> mine(per_rank);
    std::size_t k = 0;
    if (t.rank_ == 0) mine[k++] = {-1, t.control_.handle()};
    for (const Group& g : t.groups_)
      if (t.tree_.domain(g.domain).leader == t.rank_) mine[k++] = {g.domain, g.segment.handle()};
    std::vector<Entry> all(per_rank * static_cast<std::size_t>(boot.size()));
    OSMP_RETURN_IF_ERROR(boot.allgather(mine.data(), per_rank * sizeof(Entry), all.data()));
    for (const Entry& e : all)
      if (e.domain >= -1) handles[static_cast<int>(e.domain)] = e.handle;
    return {};
  }

  Status attach_segments() {
    std::map<int, SegmentHandle> handles;
    OSMP_RETURN_IF_ERROR(share_handles(handles));
    kill_point(KillPoint::team_shared, t.rank_);
    auto handle = [&](int d) { return handles.count(d) ? handles.at(d) : SegmentHandle{}; };
    Status local;
    if (t.rank_ != 0) {
      auto c = Segment::attach(handle(-1), control_header());
      if (c.ok()) {
        t.control_ = std::move(c).value();
      } else {
        local = Status(c.status().code(), cat("rank 0's control segment: ", c.status().message()));
      }
    }
    for (auto& g : t.groups_) {
      if (!local.ok() || t.tree_.domain(g.domain).leader == t.rank_) continue;
      auto s = Segment::attach(handle(g.domain), group_header(g.domain, g.layout));
      if (s.ok()) {
        g.segment = std::move(s).value();
      } else {
        const int creator = t.tree_.domain(g.domain).leader;
        local = Status(s.status().code(), cat("rank ", creator, "'s group segment: ", s.status().message()));
      }
    }
    kill_point(KillPoint::team_attached, t.rank_);
    OSMP_RETURN_IF_ERROR(boot.agree(local));
    // Everyone is attached: drop the descriptors, and nothing can reach the
    // segments any more but the mappings, which die with their processes.
    t.control_.close_fd();
    for (auto& g : t.groups_) g.segment.close_fd();
    return {};
  }

  Status run() {
    t.rank_ = boot.rank();
    t.job_id_ = boot.job_id();
    t.job_abort_ = boot.job_abort();
    OSMP_RETURN_IF_ERROR(agree_on_settings());
    kill_point(KillPoint::team_settings, t.rank_);
    t.team_id_ = boot.rank() == 0 ? random_id() : 0;
    OSMP_RETURN_IF_ERROR(boot.broadcast(&t.team_id_, sizeof t.team_id_, 0));
    OSMP_RETURN_IF_ERROR(share_topology());
    std::vector<CpuSet> places;
    OSMP_RETURN_IF_ERROR(share_places(places));
    OSMP_RETURN_IF_ERROR(build_tree(places));
    std::map<int, GroupLayout> layouts;
    OSMP_RETURN_IF_ERROR(plan_segments(layouts));
    OSMP_RETURN_IF_ERROR(create_segments(layouts));
    OSMP_RETURN_IF_ERROR(attach_segments());
    t.peers_ = PeerWatch(pids);
    t.waiter_ = Waiter(t.options_.wait, t.oversubscribed_);
    t.control_block_ = t.control_.at<ControlBlock>(t.control_layout_.control);
    t.waiter_.watch(AbortWords{&t.control_block_->abort, t.job_abort_}, &t.peers_);
    kill_point(KillPoint::team_ready, t.rank_);
    return {};
  }
};

Result<std::unique_ptr<TeamCore>> TeamCore::create(Bootstrap& bootstrap, const TeamOptions& options) {
  std::unique_ptr<TeamCore> t(new TeamCore());
  t->options_ = options;
  Builder b{bootstrap, *t, {}, {}, {}, {}};
  Status st = b.run();
  if (!st.ok()) {
    st.prefix(cat("creating the team (rank ", bootstrap.rank(), " of ", bootstrap.size(), ")"));
    return st;
  }
  log(LogLevel::debug, "team ", std::hex, t->team_id_, std::dec, ": ", t->size(), " ranks, ", t->groups_.size(),
      " groups here, ", format_bytes(t->shm_bytes_), " of shared memory", t->oversubscribed_ ? ", oversubscribed" : "");
  return t;
}

TeamCore::~TeamCore() = default;

Flag& TeamCore::rank_flag(int rank) const { return rank_line(rank).user; }

Status TeamCore::fail(WaitStatus ws) {
  auto& word = control_block_->abort;
  switch (ws) {
    case WaitStatus::ok: return {};
    case WaitStatus::peer_dead: {
      int r = waiter_.dead_peer();
      raise_abort(word, AbortCode::peer_dead, r);
      return Status(Errc::peer_dead, cat("rank ", r, " (pid ", peers_.pid(r), ") died"));
    }
    case WaitStatus::aborted: return usable();
    case WaitStatus::timeout: return Status(Errc::timeout, "timed out waiting for a peer");
    case WaitStatus::stale:
      // The caller (collectives/calls.hpp) replaces this with the error it names.
      return Status(Errc::mismatch, "another rank found an error in a call on this team");
  }
  return {};
}

void TeamCore::abort(AbortCode code) { raise_abort(control_block_->abort, code, rank_); }

TeamOptions TeamCore::rebuild_options(std::string vh, std::string protocol) const {
  TeamOptions o = options_;
  o.topology = TopologySource::xml_buffer(topology_xml_, this_system_);
  o.place = tree_.place(rank_);
  o.vh = std::move(vh);
  o.protocol = std::move(protocol);
  return o;
}

Result<Tree> TeamCore::tree_with(const std::string& vh) const {
  OSMP_ASSIGN_OR_RETURN(VhSpec spec, parse_spec(vh));
  BuildOptions bo;
  bo.allow_oversubscribe = options_.allow_oversubscribe;
  return osmp::build_tree(machine_, tree_.places(), bo, spec);
}

void TeamCore::stop_like(const TeamCore& other) {
  auto& theirs = other.control_block_->abort;
  auto& mine = control_block_->abort;
  // Acquire pairs with the compare-exchange that raised `theirs`; the copy is
  // published the same way raise_abort() publishes (first reason wins).
  std::uint64_t w = theirs.load(std::memory_order_acquire);
  std::uint64_t none = 0;
  if (w) mine.compare_exchange_strong(none, w, std::memory_order_acq_rel, std::memory_order_acquire);
}

Status TeamCore::why_stopped() const {
  std::uint64_t w = control_block_->abort.load(std::memory_order_acquire);  // as stopped()
  if (!w && job_abort_) w = job_abort_->load(std::memory_order_acquire);
  if (!w) return {};
  return Status(abort_errc(w), cat("the team was stopped: ", describe_abort(w)));
}

}  // namespace osmp
