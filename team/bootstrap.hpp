// The data exchange a team needs while it is being created: Bootstrap, an
// allgather and a broadcast among the processes of the job, nothing more. It
// is public (osmp_base.hpp: a program may create a team over its own
// launcher); its implementations here are osmprun's job segment
// (ShmBootstrap), MPI (mpi_glue/), threads in one process (ThreadBootstrap,
// tests), and a running team's own collectives (EngineBootstrap, api/).
#pragma once

#include "core/status.hpp"
#include "osmp_base.hpp"
