// A team: the processes of a job on this machine, their communication tree,
// and one shared-memory segment per group of that tree.
//
// TeamCore::create() is collective over the bootstrap's ranks. Rank 0 loads the
// topology once and broadcasts it as XML; everyone shares its pid and place
// (binding); all build the same tree; every group leader creates its group's
// segment (unnamed, shm/segment.hpp), the handles go round, every member
// attaches, then the creators drop their descriptors. Each step
// ends with all ranks agreeing on success, so one rank's failure (no room in
// /dev/shm, a bad setting) is every rank's clear error, never a hang.
#pragma once

#include <memory>
#include <vector>

#include "shm/layout.hpp"
#include "shm/peers.hpp"
#include "shm/segment.hpp"
#include "shm/wait.hpp"
#include "team/bootstrap.hpp"
#include "team/options.hpp"
#include "topology/machine_tree.hpp"
#include "topology/tree.hpp"

namespace osmp {

// A group on this process's path through the tree, seen from this process.
//
// The group's members are its units: the domains just below it and the
// processes placed in it directly. Unit i is normally operated by its leader,
// members[i]; in a rooted collective the unit that holds the root is operated
// by the root itself (see actor()), so the root's path acts as leaders. This
// process maps every group on its path, whether or not it leads its unit.
struct Group {
  int domain = -1;                // domain id in the tree
  int depth = 0;                  // of that domain
  std::vector<int> members;       // each unit's leader (team rank), ascending; index = unit
  std::vector<int> unit_of_rank;  // team rank -> unit holding it; -1 outside this domain
  int me = -1;                    // the unit holding this process
  int self = -1;                  // this process's team rank
  GroupLayout layout;
  Segment segment;

  int size() const { return static_cast<int>(members.size()); }
  // Who operates unit `u` in an operation rooted at `root` (-1: no root).
  int actor(int u, int root) const {
    return root >= 0 && unit_of_rank[static_cast<std::size_t>(root)] == u ? root : members[static_cast<std::size_t>(u)];
  }
  // The domain's leader (lowest rank): it created the segment.
  bool leader() const { return members[0] == self; }
  // This process leads its unit, so it acts here in unrooted operations.
  bool leads_unit() const { return members[static_cast<std::size_t>(me)] == self; }
  CtrlLine& leader_line(int i) const { return *segment.at<CtrlLine>(layout.leader_line(i)); }
  CtrlLine& member_line(int i, int parity = 0) const { return *segment.at<CtrlLine>(layout.member_line(i, parity)); }
  std::byte* slot(int parity, int member) const {
    return segment.at<std::byte>(layout.slot(parity, member), layout.params.slot_bytes);
  }
  std::byte* bcast_area(int parity) const {
    return segment.at<std::byte>(layout.bcast_area(parity), layout.params.bcast_bytes);
  }
};

class TeamCore {
 public:
  static Result<std::unique_ptr<TeamCore>> create(Bootstrap& bootstrap, const TeamOptions& options);

  TeamCore(const TeamCore&) = delete;
  TeamCore& operator=(const TeamCore&) = delete;
  ~TeamCore();

  int rank() const { return rank_; }
  int size() const { return tree_.size(); }
  std::uint64_t job_id() const { return job_id_; }
  std::uint64_t team_id() const { return team_id_; }
  const Tree& tree() const { return tree_; }
  const TeamOptions& options() const { return options_; }
  bool oversubscribed() const { return oversubscribed_; }
  const std::string& topology_description() const { return topology_description_; }
  // The machine the tree was built on, and its XML as rank 0 loaded it: a
  // team rebuilt with another virtual hierarchy starts from these, without
  // loading the topology again.
  const MachineTree& machine() const { return machine_; }
  const std::string& topology_xml() const { return topology_xml_; }
  bool topology_is_this_system() const { return this_system_; }
  // The options that rebuild this team on the same machine and places with
  // another virtual hierarchy (and collective settings, `protocol`).
  TeamOptions rebuild_options(std::string vh, std::string protocol) const;
  // The tree this team would have with virtual-hierarchy spec `vh` (checks it
  // against this machine's levels; pure, local).
  Result<Tree> tree_with(const std::string& vh) const;
  // A rebuilt team keeps describing the topology as the user gave it.
  void set_topology_description(std::string d) { topology_description_ = std::move(d); }
  // The groups on this process's path through the tree, bottom-up.
  std::vector<Group>& groups() { return groups_; }
  const std::vector<Group>& groups() const { return groups_; }
  Waiter& waiter() { return waiter_; }
  pid_t pid_of(int rank) const { return peers_.pid(rank); }
  // Bytes of shared memory the whole team maps (all segments, all ranks' view).
  std::uint64_t shm_bytes() const { return shm_bytes_; }

  // A flag per rank in the team's control segment, written only by that rank;
  // for team-wide hand-offs (tests, benchmarks) outside the groups.
  Flag& rank_flag(int rank) const;
  // The control segment: a line per rank and a per-rank outbox (flat collectives).
  RankLine& rank_line(int rank) const { return *control_.at<RankLine>(control_layout_.rank_line(rank)); }
  std::byte* outbox(int rank, int parity) const {
    return control_.at<std::byte>(control_layout_.item(rank) + static_cast<std::size_t>(parity) * outbox_bytes(),
                                  outbox_bytes());
  }
  std::size_t outbox_bytes() const { return control_layout_.params.item_bytes / kBuffers; }
  // The calls' bookkeeping (collectives/calls.hpp): each rank's record, and
  // the team's call-error word.
  CallRecord& call_record(int rank) const { return *control_.at<CallRecord>(control_layout_.record(rank)); }
  std::atomic<std::uint64_t>& call_error() const { return control_block_->error; }

  // Turns a failed wait into an error that names the cause, and marks the team
  // aborted so every other rank stops too (a dead peer: "rank 3 (pid 812) died").
  Status fail(WaitStatus ws);
  // Stops the team on every rank: their waits return `aborted`.
  void abort(AbortCode code = AbortCode::user);
  // ok while the team can run collectives; afterwards the reason it cannot.
  Status usable() const { return stopped() ? why_stopped() : Status{}; }
  // Whether the team was stopped (this team's abort word or the launcher's
  // job-wide one): two loads on every call. Acquire: the reason was
  // published by a compare-exchange (layout.hpp).
  bool stopped() const {
    return control_block_->abort.load(std::memory_order_acquire) != 0 ||
           (job_abort_ && job_abort_->load(std::memory_order_acquire) != 0);
  }
  // Stops this team for the reason another team of the same processes was
  // stopped (its abort word), unless it is already stopped.
  void stop_like(const TeamCore& other);
  // The launcher's job-wide abort word, when there is one.
  const std::atomic<std::uint64_t>* job_abort() const { return job_abort_; }

 private:
  TeamCore() = default;
  struct Builder;

  int rank_ = -1;
  std::uint64_t job_id_ = 0;
  std::uint64_t team_id_ = 0;
  TeamOptions options_;
  Tree tree_;
  std::string topology_description_;
  MachineTree machine_;
  std::string topology_xml_;
  bool this_system_ = false;
  bool oversubscribed_ = false;
  std::uint64_t shm_bytes_ = 0;
  ControlLayout control_layout_;
  Segment control_;
  std::vector<Group> groups_;
  PeerWatch peers_;
  Waiter waiter_;
  const std::atomic<std::uint64_t>* job_abort_ = nullptr;
  // In control_, checked against its size once (at attach): read on every call.
  ControlBlock* control_block_ = nullptr;
  Status why_stopped() const;
};

}  // namespace osmp
