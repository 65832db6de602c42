# Debian packages: `cpack -G DEB` in the build directory (docs/install.md).
# One package per install component (cmake/osmpInstall.cmake), installed
# under /usr; coll/osmp lands in Open MPI's own component directory
# (OSMP_OMPI_COMPONENT_INSTALL_DIR, mpi_glue/ompi_coll/), where ompi_info
# finds it. Library dependencies come from dpkg-shlibdeps (dpkg-dev).
set(CPACK_PACKAGE_NAME osmp)
set(CPACK_PACKAGE_VENDOR "osmp developers")
# Debian's Maintainer field: whoever builds the packages says who they are.
set(OSMP_PACKAGE_MAINTAINER "osmp developers" CACHE STRING "Maintainer of the Debian packages (Name <email>)")
set(CPACK_PACKAGE_CONTACT "${OSMP_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Debug information stays in the build tree (RelWithDebInfo makes libosmp 70 MB).
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
# CPACK_COMPONENT_<C>_DEPENDS become Depends between the packages.
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

get_property(_flavours GLOBAL PROPERTY OSMP_MPI_FLAVOURS)
set(CPACK_COMPONENTS_ALL runtime tools dev ${_flavours})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libosmp${PROJECT_VERSION_MAJOR})
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME osmp-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libosmp-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# osmp.pc requires hwloc's .pc; osmp-mpi-<flavour>.pc its MPI's.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libhwloc-dev")
set(CPACK_COMPONENT_DEV_DEPENDS runtime)
set(CPACK_DEBIAN_OMPI_PACKAGE_NAME osmp-openmpi)
set(CPACK_DEBIAN_OMPI_PACKAGE_DEPENDS "libopenmpi-dev")
set(CPACK_COMPONENT_OMPI_DEPENDS dev)
set(CPACK_DEBIAN_MPICH_PACKAGE_NAME osmp-mpich)
set(CPACK_DEBIAN_MPICH_PACKAGE_DEPENDS "libmpich-dev")
set(CPACK_COMPONENT_MPICH_DEPENDS dev)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "osmp runtime library (libosmp)")
set(CPACK_COMPONENT_TOOLS_DESCRIPTION "osmp commands: osmprun, osmp-topo, osmp-tune, osmp-model, ...")
set(CPACK_COMPONENT_DEV_DESCRIPTION "osmp headers, static library, pkg-config and CMake files")
set(CPACK_COMPONENT_OMPI_DESCRIPTION "osmp for Open MPI: libosmp_mpi, libosmp_pmpi and the coll/osmp component")
set(CPACK_COMPONENT_MPICH_DESCRIPTION "osmp for MPICH: libosmp_mpi_mpich and libosmp_pmpi_mpich")
include(CPack)
