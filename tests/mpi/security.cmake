# Crash safety and hostile users under MPI (label mpi): every route osmp takes
# inside an MPI job (the interposer with each MPI, Open MPI's coll/osmp, and
# osmp_init_with over the caller's MPI) with a rank SIGKILLed at each kill
# point, and with another user attacking; see security_tests.py.
set(_sec ${CMAKE_CURRENT_SOURCE_DIR}/security_tests.py)
get_property(_flavours GLOBAL PROPERTY OSMP_MPI_FLAVOURS)
foreach(_f ${_flavours})
  add_executable(init_with_${_f} init_with.c)
  if(_f STREQUAL ompi)
    target_link_libraries(init_with_${_f} PRIVATE osmp::osmp PkgConfig::OMPI osmp_build_flags)
  else()
    target_link_libraries(init_with_${_f} PRIVATE osmp::osmp PkgConfig::MPICH osmp_build_flags)
  endif()
  set_target_properties(init_with_${_f} PROPERTIES LINKER_LANGUAGE CXX)
  add_test(NAME mpi.${_f}.init_with_4 COMMAND python3 ${_sec} run ${_f} init_with
           $<TARGET_FILE_DIR:osmprun> ${CMAKE_BINARY_DIR})
  set_tests_properties(mpi.${_f}.init_with_4 PROPERTIES LABELS mpi RUN_SERIAL TRUE TIMEOUT 300)
endforeach()
foreach(_case kill_points hostile)
  add_test(NAME mpi.security_${_case} COMMAND python3 ${_sec} ${_case} "${_flavours}" -
           $<TARGET_FILE_DIR:osmprun> ${CMAKE_BINARY_DIR})
  set_tests_properties(mpi.security_${_case} PROPERTIES LABELS mpi RUN_SERIAL TRUE TIMEOUT 900 SKIP_RETURN_CODE 77)
endforeach()
