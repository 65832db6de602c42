// Errors of the collectives osmp runs under MPI, as MPI errors: an error
// class, a message, and the communicator's error handler.
#pragma once

#include <mpi.h>

#include <string>

#include "core/status.hpp"

namespace osmp::pmpi {

// The MPI error class of an osmp error (mismatch, invalid_argument:
// MPI_ERR_ARG; no_space: MPI_ERR_NO_MEM; the rest MPI_ERR_OTHER / _INTERN).
int class_of(Errc e);

// An error of `function` (e.g. "MPI_Allreduce") on comm, of class `cls`:
// returns a code of that class whose MPI_Error_string is the message where
// the MPI keeps strings on codes of its own classes (Open MPI does; MPICH
// 4.0 does not: the class itself then). The message is printed when comm's
// handler is MPI_ERRORS_ARE_FATAL (the job then aborts), logged at
// OSMP_VERBOSE >= 2 otherwise. The interposer, being the MPI_ function,
// also hands the code to comm's handler; the Open MPI component only
// returns it (Open MPI calls the handler).
int deliver(MPI_Comm comm, const char* function, int cls, const std::string& message);

// The same code and log, without calling any handler: for the error of a
// non-blocking call, which the MPI_Wait or MPI_Test that completes it
// returns (nonblocking.cpp).
int error_code(MPI_Comm comm, const char* function, int cls, const std::string& message);

// The interposer: deliver() calls the communicator's handler itself.
void set_raise(bool on);

}  // namespace osmp::pmpi
