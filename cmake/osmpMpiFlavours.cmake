# The MPIs the MPI glue is built for, and the pkg-config module that finds
# each: read by mpi_glue/ when building, by osmp-mpi-<flavour>.pc (Requires)
# and by the installed CMake package (osmpConfig.cmake), which finds the MPI
# again on the consumer's side. The order is the preference of
# find_package(osmp COMPONENTS mpi) when nothing names the MPI.
set(OSMP_MPI_FLAVOUR_LIST ompi mpich)
set(OSMP_MPI_MODULE_ompi ompi-c)
set(OSMP_MPI_MODULE_mpich mpich)
