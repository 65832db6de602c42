#include "mpi_glue/pmpi/reuse.hpp"

#include <algorithm>
#include <cassert>
#include <deque>
#include <mutex>
#include <numeric>

#include "api/access.hpp"
#include "mpi_glue/pmpi/state.hpp"
#include "team/team.hpp"

namespace osmp::pmpi {
namespace {

struct Kept {
  std::vector<int> ranks;  // MPI_COMM_WORLD ranks, in the freed communicator's order
  std::uint64_t id = 0;    // the team's id (TeamCore::team_id), the same on every rank
  std::uint64_t bytes = 0;
  bool reserved = false;
  Team team;
};

// In the order kept. The mutex guards the shelf alone: building and freeing
// states (state.cpp, its counters and live set) is not made safe for
// threads that do so at once.
struct Shelf {
  std::mutex m;
  std::deque<Kept> kept;
};
Shelf& shelf() {
  static Shelf s;
  return s;
}

// Lets an unreserved team go (the lock held), the one of the largest id:
// ranks that kept the same teams let the same one go, whatever order they
// freed them in, so their smallest ids still match (reserve_kept). False if
// none.
bool drop_one(Shelf& s) {
  auto it = s.kept.end();
  for (auto k = s.kept.begin(); k != s.kept.end(); ++k)
    if (!k->reserved && (it == s.kept.end() || k->id > it->id)) it = k;
  if (it == s.kept.end()) return false;
  note_team(TeamEvent::dropped, it->bytes);
  s.kept.erase(it);  // the team leaves at once (Team's destructor)
  return true;
}

}  // namespace

std::vector<int> world_ranks(MPI_Comm comm, int size) {
  MPI_Group mine = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  PMPI_Comm_group(comm, &mine);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> in(static_cast<std::size_t>(size)), out(static_cast<std::size_t>(size), MPI_UNDEFINED);
  std::iota(in.begin(), in.end(), 0);
  PMPI_Group_translate_ranks(mine, size, in.data(), world, out.data());
  PMPI_Group_free(&mine);
  PMPI_Group_free(&world);
  if (std::find(out.begin(), out.end(), MPI_UNDEFINED) != out.end()) out.clear();
  return out;
}

std::uint64_t reserve_kept(const std::vector<int>& ranks) {
  Shelf& s = shelf();
  std::lock_guard lock(s.m);
  // The smallest id of those over `ranks`: the same choice on every rank
  // that kept the same teams, whatever order it freed them in.
  // A kept team that another rank stopped, or where another rank raised an
  // error for a call this rank had already left (MPI_Comm_free waits for
  // nobody), is let go: its other ranks never kept it.
  for (auto k = s.kept.begin(); k != s.kept.end();) {
    if (!k->reserved && (!TeamAccess::pause(k->team).ok() || !core_of(k->team).usable().ok())) {
      note_team(TeamEvent::dropped, k->bytes);
      k = s.kept.erase(k);
    } else {
      ++k;
    }
  }
  Kept* best = nullptr;
  for (Kept& k : s.kept)
    if (!k.reserved && k.ranks == ranks && (!best || k.id < best->id)) best = &k;
  if (!best) return 0;
  best->reserved = true;
  return best->id;
}

Team take_kept(std::uint64_t id) {
  Shelf& s = shelf();
  std::lock_guard lock(s.m);
  auto it = std::find_if(s.kept.begin(), s.kept.end(), [&](const Kept& k) { return k.id == id && k.reserved; });
  assert(it != s.kept.end());  // reserved by this caller: it is there
  Team t = std::move(it->team);
  note_team(TeamEvent::taken, it->bytes);
  s.kept.erase(it);
  return t;
}

void unreserve_kept(std::uint64_t id) {
  Shelf& s = shelf();
  std::lock_guard lock(s.m);
  for (Kept& k : s.kept)
    if (k.id == id) k.reserved = false;
}

void keep(std::vector<int> ranks, Team team, std::uint64_t bytes) {
  Shelf& s = shelf();
  std::lock_guard lock(s.m);
  const std::uint64_t id = core_of(team).team_id();
  note_team(TeamEvent::kept, bytes);
  s.kept.push_back({std::move(ranks), id, bytes, false, std::move(team)});
  while (s.kept.size() > static_cast<std::size_t>(settings().reuse) && drop_one(s)) {}
}

void make_room(std::uint64_t bytes, std::uint64_t max) {
  Shelf& s = shelf();
  std::lock_guard lock(s.m);
  while (shm_use().bytes + bytes > max && drop_one(s)) {}
}

void release_kept() {
  Shelf& s = shelf();
  std::lock_guard lock(s.m);
  while (drop_one(s)) {}
}

}  // namespace osmp::pmpi
