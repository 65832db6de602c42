# The version and git revision the commands print (--version). The revision is
# read once at configure time; "unknown" outside a git checkout (a release
# tarball, a Spack stage). Configuring again after a commit refreshes it, and
# CMake does that by itself: the files git moves on a commit are configure
# dependencies.
set(OSMP_GIT_REVISION unknown)
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _rev RESULT_VARIABLE _rc
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_rc EQUAL 0 AND _rev)
    set(OSMP_GIT_REVISION ${_rev})
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --symbolic-full-name HEAD
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _branch
      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    foreach(_ref HEAD ${_branch})
      execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --path-format=absolute --git-path ${_ref}
        WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _path
        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(EXISTS "${_path}")
        set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_path})
      endif()
    endforeach()
  endif()
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/build_info.hpp.in
               ${PROJECT_BINARY_DIR}/generated/osmp/build_info.hpp @ONLY)
# Commands only: the installed headers do not carry it.
add_library(osmp_build_info INTERFACE)
target_include_directories(osmp_build_info INTERFACE $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated>)
