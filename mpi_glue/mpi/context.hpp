// What libosmp_mpi keeps per process and per communicator, and how errors
// reach MPI. Internal to mpi_glue/mpi.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "core/status.hpp"
#include "mpi_glue/hierarchy/hierarchy.hpp"
#include "topology/machine_tree.hpp"

namespace osmp::mpi {

// Simulated nodes (tests on one machine): OSMP_SIM_RANKS_PER_NODE=R (or
// OSMP_SIM_NODES=K) puts MPI_COMM_WORLD ranks r in node r / R; each node is
// the machine of OSMP_TOPOLOGY; OSMP_SIM_PLACES lists the place of node-local
// rank 0, 1, ... separated by ';' ("Core:3", "L2:1", "NUMA:1", "none", "0-3");
// without it local rank i is bound to core i (OSMP_SIM_BIND=none: unbound).
struct SimConfig {
  bool on = false;
  int ranks_per_node = 0;
  std::vector<std::string> places;
  bool unbound = false;
};
Result<SimConfig> sim_config();

// This process's machine (loaded once per node and shared as XML) and place.
struct Local {
  MachineTree machine;
  hier::Member me;
};
// Local: loads the topology alone if nobody shared it yet.
Result<const Local*> local_alone();

// Every member's place on `comm`, in rank order (collective, unless comm
// carries them already); `request` is compared across ranks and every rank
// gets the same error when one fails or they differ.
struct Gathered {
  std::vector<hier::Member> members;
  int me = 0;
};
Result<Gathered> gather(MPI_Comm comm, const std::string& request, Status local_error);

// What osmp remembers about a communicator it made (an attribute).
struct CommRecord {
  std::vector<hier::Member> members;  // in comm's rank order
  std::string type;                   // level of the split ("" when not from a split)
  int parts = 1;
  int index = 0;
};
const CommRecord* record_of(MPI_Comm comm);
void attach_record(MPI_Comm comm, CommRecord record);
// Records `newcomm`'s members from its parent's, in newcomm's rank order.
Status remember_split(MPI_Comm parent, const std::vector<hier::Member>& parent_members, MPI_Comm newcomm,
                      const std::string& type, int parts, int index);

// Errors: a code of an osmp error class whose MPI_Error_string is `status`'s
// message, raised through comm's error handler.
int raise(MPI_Comm comm, const Status& status, const char* function);
int standard_class(int code);

// A string that lives as long as the process (for char** outputs).
char* intern(const std::string& s);

}  // namespace osmp::mpi
