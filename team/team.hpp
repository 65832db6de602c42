// A team: the processes of a job on this machine, their communication tree,
// and one shared-memory segment per group of that tree.
//
// Team::create() is collective over the bootstrap's ranks. Rank 0 loads the
// topology once and broadcasts it as XML; everyone shares its pid and place
// (binding); all build the same tree; every group leader creates its group's
// segment, then every member attaches, then the names are removed. Each step
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
#include "topology/tree.hpp"

namespace osmp {

// One group this process belongs to, seen from this process.
struct Group {
  int domain = -1;           // domain id in the tree
  int depth = 0;             // of that domain
  std::vector<int> members;  // team ranks, ascending; the logical rank is the index
  int me = -1;               // my logical rank; 0 is the leader
  GroupLayout layout;
  Segment segment;

  int size() const { return static_cast<int>(members.size()); }
  bool leader() const { return me == 0; }
  CtrlLine& leader_line(int i) const { return *segment.at<CtrlLine>(layout.leader_line(i)); }
  CtrlLine& member_line(int i) const { return *segment.at<CtrlLine>(layout.member_line(i)); }
  std::byte* slot(int parity, int member) const {
    return segment.at<std::byte>(layout.slot(parity, member), layout.params.slot_bytes);
  }
  std::byte* bcast_area(int parity) const {
    return segment.at<std::byte>(layout.bcast_area(parity), layout.params.bcast_bytes);
  }
};

class Team {
 public:
  static Result<std::unique_ptr<Team>> create(Bootstrap& bootstrap, const TeamOptions& options);

  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;
  ~Team();

  int rank() const { return rank_; }
  int size() const { return tree_.size(); }
  std::uint64_t job_id() const { return job_id_; }
  std::uint64_t team_id() const { return team_id_; }
  const Tree& tree() const { return tree_; }
  const TeamOptions& options() const { return options_; }
  bool oversubscribed() const { return oversubscribed_; }
  const std::string& topology_description() const { return topology_description_; }
  // The groups this process takes part in, bottom-up along its path.
  std::vector<Group>& groups() { return groups_; }
  const std::vector<Group>& groups() const { return groups_; }
  Waiter& waiter() { return waiter_; }
  pid_t pid_of(int rank) const { return peers_.pid(rank); }
  // Bytes of shared memory the whole team maps (all segments, all ranks' view).
  std::uint64_t shm_bytes() const { return shm_bytes_; }

  // A flag per rank in the team's control segment, written only by that rank;
  // for team-wide hand-offs (tests, benchmarks) outside the groups.
  Flag& rank_flag(int rank) const;

  // Turns a failed wait into an error that names the cause, and marks the team
  // aborted so every other rank stops too (a dead peer: "rank 3 (pid 812) died").
  Status fail(WaitStatus ws);
  // Stops the team on every rank: their waits return `aborted`.
  void abort(AbortCode code = AbortCode::user);
  // ok while the team can run collectives; afterwards the reason it cannot.
  Status usable() const;

 private:
  Team() = default;
  struct Builder;

  int rank_ = -1;
  std::uint64_t job_id_ = 0;
  std::uint64_t team_id_ = 0;
  TeamOptions options_;
  Tree tree_;
  std::string topology_description_;
  bool oversubscribed_ = false;
  std::uint64_t shm_bytes_ = 0;
  ControlLayout control_layout_;
  Segment control_;
  std::vector<Group> groups_;
  PeerWatch peers_;
  Waiter waiter_;
  const std::atomic<std::uint64_t>* job_abort_ = nullptr;
};

}  // namespace osmp
