# Warnings and sanitizers shared by every osmp target.
add_library(osmp_build_flags INTERFACE)
target_compile_options(osmp_build_flags INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion
      -Wno-sign-conversion -Wnon-virtual-dtor -Woverloaded-virtual>
  # Coroutine frames (collectives/task.hpp) are allocated by the promise's
  # operator new with the coroutine's parameters (to find the engine's
  # FrameCache) and freed by its usual sized delete, as the standard says;
  # GCC's unoptimised builds flag that pairing as a mismatch.
  $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-Wno-mismatched-new-delete>
  $<$<COMPILE_LANG_AND_ID:C,GNU,Clang>:-Wall -Wextra -Wpedantic>
  $<$<BOOL:${OSMP_WERROR}>:-Werror>)
if(OSMP_SANITIZE)
  string(REPLACE ";" "," _osmp_san "${OSMP_SANITIZE}")
  target_compile_options(osmp_build_flags INTERFACE -fsanitize=${_osmp_san} -fno-omit-frame-pointer)
  target_link_options(osmp_build_flags INTERFACE -fsanitize=${_osmp_san})
endif()

# The runtime's code (every library a call runs through, and the MPI glue)
# at -O3 in the default RelWithDebInfo build too, as in Release: measured
# 8-23 % faster small calls than -O2 (2026-11-25, interleaved A/B, 2 ranks),
# 3-5 % fewer instructions per call (scripts/callcost.sh).
add_library(osmp_runtime_flags INTERFACE)
target_compile_options(osmp_runtime_flags INTERFACE $<$<CONFIG:RelWithDebInfo>:-O3>)

# osmp_add_library(<folder-name> SOURCES ... DEPENDS ... PRIVATE_DEPENDS ...)
# One static archive per folder, aliased osmp::<name>. Its objects are compiled
# once (position-independent) and also go into the umbrella libosmp.so. Its
# headers are internal: only api/'s public headers are installed (api/).
function(osmp_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS;PRIVATE_DEPENDS" ${ARGN})
  add_library(osmp_${name}_objects OBJECT ${ARG_SOURCES})
  # Sources include "layer/file.hpp" from the root, the public headers
  # (api/osmp_base.hpp, api/osmp_ops.h, ...) by their bare names, and what
  # the build writes (collectives/ops/all.hpp) from generated_ops/.
  target_include_directories(osmp_${name}_objects PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                             $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/api> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated_ops>)
  target_link_libraries(osmp_${name}_objects PUBLIC ${ARG_DEPENDS}
                        PRIVATE osmp_build_flags osmp_runtime_flags ${ARG_PRIVATE_DEPENDS})
  add_library(osmp_${name} STATIC $<TARGET_OBJECTS:osmp_${name}_objects>)
  add_library(osmp::${name} ALIAS osmp_${name})
  target_include_directories(osmp_${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                             $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/api> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated_ops>)
  target_link_libraries(osmp_${name} PUBLIC ${ARG_DEPENDS} PRIVATE ${ARG_PRIVATE_DEPENDS})
  set_property(GLOBAL APPEND PROPERTY OSMP_LAYER_OBJECTS $<TARGET_OBJECTS:osmp_${name}_objects>)
  set_property(GLOBAL APPEND PROPERTY OSMP_LAYER_PRIVATE_DEPENDS ${ARG_PRIVATE_DEPENDS})
endfunction()

# osmp_add_tool(<name> SOURCES ... DEPENDS ...)
function(osmp_add_tool name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPENDS} osmp_build_flags osmp_build_info)
  install(TARGETS ${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
endfunction()
