// Teams kept for reuse. A freed communicator's node team is not let go at
// once: it waits here, and the next communicator over the same processes in
// the same order (the next MPI_Comm_dup of the world, the same split again)
// takes it at its first collective instead of creating a team: no segment,
// no exchange of topology, places or handles, only the one agreement that
// builds every state (state.cpp: the operations every rank allows, and
// the kept team every rank proposes). A loop that creates, uses and frees
// communicators pays for its first team only.
//
// The taken team continues its call numbering where the freed communicator
// left it (collectives/calls.hpp, Calls::pause), the same on every rank
// since every rank agreed to take it. A team is kept only if its
// communicator lay on one node, its settings are the process's own (no info
// hint reshaped it), it is still usable and no error is pending on it; one
// that another rank stopped or raised an error on later (a one-pass call's
// mismatch found after this rank freed the communicator: lost, as
// MPI_Comm_free waits for nobody) is let go when it would be proposed. At
// most OSMP_PMPI_REUSE teams (default 4, 0: none) are kept per process, the
// one of the largest id let go first (the same choice on ranks that kept the
// same teams); their shared memory counts against OSMP_PMPI_SHM_MAX, and a
// new team that would pass it lets kept teams go before the communicator is
// refused. MPI_Finalize lets every kept team go.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "osmp.hpp"

namespace osmp::pmpi {

// comm's ranks as MPI_COMM_WORLD ranks, in comm's order (local: a group
// translation); empty where one is outside the world (spawned processes).
std::vector<int> world_ranks(MPI_Comm comm, int size);

// A kept team over exactly `ranks`, reserved for this caller: its
// id (every rank that kept it has the same), 0 when none. The caller takes
// it (take_kept) once every rank proposed the same id, else gives it back
// (unreserve_kept); a reserved team is not proposed twice (threads).
std::uint64_t reserve_kept(const std::vector<int>& ranks);
Team take_kept(std::uint64_t id);
void unreserve_kept(std::uint64_t id);

// Keeps `team` (a freed communicator's, paused, of `bytes` of shared
// memory) for the next communicator over `ranks`; lets the oldest kept team
// go past OSMP_PMPI_REUSE (the largest id first).
void keep(std::vector<int> ranks, Team team, std::uint64_t bytes);
// Lets kept teams go, the largest id first, until `bytes` more fit under `max`
// together with every team of this process (shm_use()).
void make_room(std::uint64_t bytes, std::uint64_t max);
// MPI_Finalize, before the live teams finish: every kept team goes (it
// leaves at once: a rank finishing a team it still holds waits for nobody
// on this one).
void release_kept();

}  // namespace osmp::pmpi
