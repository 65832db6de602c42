// What libosmp_mpi keeps per process and per communicator, and how errors
// reach MPI. Internal to mpi_glue/mpi.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.hpp"
#include "mpi_glue/hierarchy/hierarchy.hpp"
#include "mpi_glue/mpi/layout.hpp"
#include "topology/machine_tree.hpp"

namespace osmp::mpi {

// This process's machine (loaded once per node and shared as XML) and place.
struct Local {
  MachineTree machine;
  hier::Member me;
};
// Local: loads the topology alone if nobody shared it yet.
Result<const Local*> local_alone();

// An info value, or nullopt when info is MPI_INFO_NULL or lacks the key.
std::optional<std::string> info_value(MPI_Info info, const char* key);

// Local. This node's levels with the network's above them, widest first
// (MPI_HW_LEVEL0, ...), and the canonical level for a name a user gave:
// hardware names and aliases, network levels, MPI_HW_LEVELn (of that list).
Result<std::vector<std::string>> levels_here();
Result<std::string> level_named(std::string_view name);

// Every member's place on `comm`, in rank order (collective, unless comm
// carries them already), with its network links; `request` is compared
// across ranks and every rank gets the same error when one fails or they
// differ; `detail` travels along, per rank (a level resolved on each node).
struct Gathered {
  std::vector<hier::Member> members;
  std::vector<std::string> details;
  int me = 0;
};
Result<Gathered> gather(MPI_Comm comm, const std::string& request, Status local_error, const std::string& detail = "");

// What osmp remembers about a communicator it made (an attribute).
struct CommRecord {
  std::vector<hier::Member> members;  // in comm's rank order
  std::string type;                   // level of the split ("" when not from a split)
  int parts = 1;
  int index = 0;
};
const CommRecord* record_of(MPI_Comm comm);
// The info keys of a communicator made by a hardware split (empty otherwise):
// mpi_hw_resource_type (MPI-4), MPI_HW_DOMAIN_{TYPE,NUM,RANK} (hsplit
// functions) and MPI_COMM_HLEVEL_{TYPE,NUM,RANK} (hsplit paper), from one list.
std::vector<std::pair<std::string, std::string>> hw_info_keys(const CommRecord& record);
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
