# What `cmake --install` and the packages (cmake/osmpPackage.cmake) install.
# Components (one Debian package each, cmake/osmpPackage.cmake): runtime
# (libosmp), tools (commands), dev (headers, libosmp.a, osmp.pc, the CMake
# package), and per MPI flavour, ompi / mpich (libosmp_mpi*, libosmp_pmpi*,
# their .pc and CMake files; ompi also coll/osmp). docs/install.md has the
# layout and the ABI policy.
include(CMakePackageConfigHelpers)
include(osmpMpiFlavours)
set(OSMP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/osmp)
set(OSMP_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# .pc files find the prefix from where they are installed (relocatable).
file(RELATIVE_PATH OSMP_PC_TO_PREFIX ${CMAKE_INSTALL_PREFIX}/${OSMP_PC_DIR} ${CMAKE_INSTALL_PREFIX})

# osmp_install_library(TARGETS <target>... [EXPORT <set>] [COMPONENT <c>]):
# the shared library and its SONAME link go to <c> (default runtime), the
# unversioned link and archives to dev (to <c> when it is given).
function(osmp_install_library)
  cmake_parse_arguments(ARG "" "EXPORT;COMPONENT" "TARGETS" ${ARGN})
  set(_export)
  if(ARG_EXPORT)
    set(_export EXPORT ${ARG_EXPORT})
  endif()
  set(_lib runtime)
  set(_dev dev)
  if(ARG_COMPONENT)
    set(_lib ${ARG_COMPONENT})
    set(_dev ${ARG_COMPONENT})
  endif()
  install(TARGETS ${ARG_TARGETS} ${_export}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${_lib} NAMELINK_COMPONENT ${_dev}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${_dev})
endfunction()

# osmp_install_mpi_library(<target> <flavour>): libosmp_mpi for one MPI, its
# CMake export set (osmp::mpi_<flavour>) and osmp-mpi-<flavour>.pc.
function(osmp_install_mpi_library target flavour)
  osmp_install_library(TARGETS ${target} EXPORT osmpMpi_${flavour} COMPONENT ${flavour})
  install(EXPORT osmpMpi_${flavour} NAMESPACE osmp:: FILE osmp-mpi-${flavour}Targets.cmake
          DESTINATION ${OSMP_CMAKE_DIR} COMPONENT ${flavour})
  set(OSMP_PC_FLAVOUR ${flavour})
  set(OSMP_PC_MPI_MODULE ${OSMP_MPI_MODULE_${flavour}})
  get_target_property(OSMP_PC_LIBRARY ${target} OUTPUT_NAME)
  if(NOT OSMP_PC_LIBRARY)
    set(OSMP_PC_LIBRARY ${target})
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/osmp-mpi.pc.in ${PROJECT_BINARY_DIR}/osmp-mpi-${flavour}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/osmp-mpi-${flavour}.pc DESTINATION ${OSMP_PC_DIR} COMPONENT ${flavour})
endfunction()

# libosmp (and libosmp.a, OSMP_BUILD_STATIC): the CMake package exports the
# shared one as osmp::osmp; the archive is for pkg-config --static.
osmp_install_library(TARGETS osmp EXPORT osmpTargets)
install(EXPORT osmpTargets NAMESPACE osmp:: DESTINATION ${OSMP_CMAKE_DIR} COMPONENT dev)
if(TARGET osmp_static)
  osmp_install_library(TARGETS osmp_static)
endif()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/osmpConfig.cmake.in
  ${PROJECT_BINARY_DIR}/osmpConfig.cmake INSTALL_DESTINATION ${OSMP_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/osmpConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/osmpConfig.cmake ${PROJECT_BINARY_DIR}/osmpConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/osmpMpiFlavours.cmake
        DESTINATION ${OSMP_CMAKE_DIR} COMPONENT dev)

configure_file(${PROJECT_SOURCE_DIR}/cmake/osmp.pc.in ${PROJECT_BINARY_DIR}/osmp.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/osmp.pc DESTINATION ${OSMP_PC_DIR} COMPONENT dev)
