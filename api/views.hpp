// The views of a team: one team of the same processes per distinct profile
// (virtual hierarchy + collective settings), and which operation runs on
// which. A Team starts with one view; Team::configure() changes profiles
// collectively, building the views it needs over the current one and freeing
// those no operation uses any more.
//
// Switching is a collective call, agreed in two steps before anything is
// built: every rank's local verdict on the settings (a bad spec on one rank is
// every rank's error), then a hash of the whole resulting profile table (ranks
// that asked for different settings all get Errc::mismatch). The new views are
// built over the current base view's own collectives (EngineBootstrap), so
// every rank switches between the same two collectives of the sequence; on any
// failure the old table stays in use, unchanged.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "collectives/calls.hpp"
#include "collectives/config.hpp"
#include "collectives/engine.hpp"
#include "collectives/requests.hpp"
#include "collectives/types.hpp"
#include "team/bootstrap.hpp"
#include "team/team.hpp"

namespace osmp {

// What may differ between operations.
struct Profile {
  std::string vh;         // virtual-hierarchy spec text
  CollectiveConfig coll;  // base cases and thresholds
  // Identical keys run on one view.
  std::string key() const { return vh + "|" + coll.fingerprint(); }
  // OSMP_VH or one of CollectiveConfig's settings; `per_op_only` refuses the
  // team-wide thresholds (they cannot differ per operation).
  Status set(const std::string& name, const std::string& value, bool per_op_only);
};

// A Bootstrap over a running team's own collectives.
class EngineBootstrap final : public Bootstrap {
 public:
  explicit EngineBootstrap(Engine& e) : e_(e) {}
  int rank() const override { return e_.team().rank(); }
  int size() const override { return e_.team().size(); }
  std::uint64_t job_id() const override { return e_.team().job_id(); }
  Status allgather(const void* in, std::size_t len, void* out) override;
  Status broadcast(void* buf, std::size_t len, int root) override;
  const std::atomic<std::uint64_t>* job_abort() const override { return e_.team().job_abort(); }

 private:
  Engine& e_;
};

class Views {
 public:
  // The first view, collective over `boot`. Whether single copy works between
  // every pair of ranks, and pays, is probed here once, whatever OSMP_CMA says
  // now: a later configure may turn it on (the setting is policy, the probe capability).
  static Result<std::unique_ptr<Views>> create(Bootstrap& boot, const TeamOptions& team, const Profile& base);
  // A team like `parent` over the ranks of `boot` (Team::split): the same
  // machine, places, settings and base profile, so nothing is loaded again
  // (collective over boot). Then like_ops() gives it the parent's
  // per-operation profiles (collective over the new team alone).
  static Result<std::unique_ptr<Views>> like(const Views& parent, Bootstrap& boot);
  Status like_ops(const Views& parent);

  // The engine `k` runs on (an unknown `k`: the base view's, whose run()
  // reports it).
  Engine& engine(OpKind k) {
    const int i = op_index(k);
    if (i < 0) [[unlikely]]
      return base_engine();
    return *views_[static_cast<std::size_t>(of_op_[static_cast<std::size_t>(i)])]->engine;
  }
  TeamCore& base_core() { return *views_.front()->core; }
  const TeamCore& base_core() const { return *views_.front()->core; }
  Engine& base_engine() { return *views_.front()->engine; }
  const Profile& profile(OpKind k) const { return profiles_[static_cast<std::size_t>(op_index(k))]; }
  const Profile& base_profile() const { return views_.front()->profile; }
  int view_count() const { return static_cast<int>(views_.size()); }
  // This process's shared heap (null: OSMP_HEAP_SIZE=0, or no room).
  std::uint64_t single_copies() const {
    std::uint64_t n = 0;
    for (const auto& v : views_) n += v->engine->single_copies();
    return n;
  }
  std::shared_ptr<Heap> heap() const { return heaps_ ? heaps_->own_shared() : nullptr; }
  // How many reconfigurations took effect, and after how many collectives
  // each rank had run when the last did (the same on every rank).
  std::uint64_t generation() const { return generation_; }
  std::uint64_t switched_after() const { return switched_after_; }

  // Collective: `all` applies to every operation, then `per_op` to each named
  // one. Unknown names, bad values, or ranks that disagree: an error on every
  // rank, and nothing changes.
  Status configure(const Settings& all, const std::map<OpKind, Settings>& per_op);

  // After a failed call: a dead peer or an abort seen on one view stops all.
  void propagate_stop(const Status& st);
  // The team's started non-blocking calls (collectives/requests.hpp), in order.
  CallQueue& queue() { return *queue_; }
  // Leaving the team: an error of an earlier call not yet reported here
  // (collectives/calls.hpp, Calls::finish); waits for every rank's last
  // call. Once; the destructor only leaves, without waiting. `together`:
  // as Calls::finish's (false: MPI_Finalize, after announce_finish()).
  Status finish(bool together = true);
  void announce_finish();
  // Leaving now, without waiting for anybody: an error already raised for
  // a call up to this rank's last (MPI_Comm_free). The destructor leaves so too.
  Status leave();
  // The calls started before end; an error already raised for one of them
  // or an earlier call (Calls::pause). The team stays: its next call
  // continues the numbering.
  Status pause();
  ~Views();

 private:
  struct View {
    Profile profile;
    std::unique_ptr<TeamCore> core;
    std::unique_ptr<Engine> engine;
  };
  Result<std::unique_ptr<View>> build(const Profile& p);
  Status next_table(const Settings& all, const std::map<OpKind, Settings>& per_op, Profile& base,
                    std::array<Profile, kOpKindCount>& table) const;
  Status install(const Profile& base, const std::array<Profile, kOpKindCount>& table);
  Status agree_on_table(const std::array<Profile, kOpKindCount>& table, const Profile& base, const Status& local,
                        const std::string& asked);

  // Every view's engine to the team's queue and calls (numbered_, teams of
  // more than one rank).
  void bind_calls();

  // The ranks' shared heaps (team/heaps.hpp): every view's engine reads
  // them, so they outlive the views.
  std::shared_ptr<const HeapPeers> heaps_;
  std::vector<std::unique_ptr<View>> views_;  // [0]: the base view
  std::unique_ptr<Calls> numbered_;           // the team's calls (teams of more than one rank)
  std::array<Profile, kOpKindCount> profiles_;
  std::array<int, kOpKindCount> of_op_{};  // index into views_
  CmaProbe cma_;
  std::uint64_t generation_ = 0, switched_after_ = 0;
  // Freed first (~Views): its calls' frames belong to the views' engines.
  std::unique_ptr<CallQueue> queue_ = std::make_unique<CallQueue>([this](const Status& st) { propagate_stop(st); });
};

}  // namespace osmp
