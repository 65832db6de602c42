#include "mpi_glue/pmpi/reuse.hpp"

#include <algorithm>
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

// Oldest first. The mutex: threads of MPI_THREAD_MULTIPLE building and
// freeing states of different communicators at once.
struct Shelf {
  std::mutex m;
  std::deque<Kept> kept;
};
Shelf& shelf() {
  static Shelf s;
  return s;
}

// Lets the oldest unreserved team go (the lock held); false if none.
bool drop_oldest(Shelf& s) {
  auto it = std::find_if(s.kept.begin(), s.kept.end(), [](const Kept& k) { return !k.reserved; });
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
  Team t = std::move(it->team);  // reserved by this caller: it is there
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
  while (s.kept.size() > static_cast<std::size_t>(settings().reuse) && drop_oldest(s)) {
  }
}

void make_room(std::uint64_t bytes, std::uint64_t max) {
  Shelf& s = shelf();
  std::lock_guard lock(s.m);
  while (shm_use().bytes + bytes > max && drop_oldest(s)) {
  }
}

void release_kept() {
  Shelf& s = shelf();
  std::lock_guard lock(s.m);
  while (drop_oldest(s)) {
  }
}

}  // namespace osmp::pmpi
